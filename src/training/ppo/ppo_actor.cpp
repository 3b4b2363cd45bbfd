#include "mlgo/training/learning_kinds.h"
#include "mlgo/training/ppo/ppo_actor.h"

#include <algorithm>

#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"

namespace mlgo {

PPOBatch PPOActor::makeBatch(const std::vector<CollectedModule> &collected,
                             const std::vector<std::vector<double>> &rewards) const {
  int64_t decisions = 0;
  for (const CollectedModule &module : collected)
    if (module.result.ok()) decisions += static_cast<int64_t>(module.trajectory.decisions());
  const auto actions = static_cast<int64_t>(actions_), width = static_cast<int64_t>(inputsPerDecision_);
  const bool choices = actions_ > 0;
  PPOBatch batch;
  batch.inputs = torch::empty({decisions, width}, torch::kFloat32);
  batch.rewards = torch::empty({decisions}, torch::kFloat32);
  torch::Tensor mask;
  if (choices) {
    mask = torch::empty({decisions, actions}, torch::kUInt8);
    batch.actions = torch::empty({decisions}, torch::kInt64);
    batch.oldLogits = torch::empty({decisions, actions}, torch::kFloat32);
  } else {
    batch.outputs = torch::empty({decisions}, torch::kFloat32);
    batch.oldMeans = torch::empty({decisions}, torch::kFloat32);
  }
  float *inputs = batch.inputs.data_ptr<float>();
  float *reward = batch.rewards.data_ptr<float>();
  int64_t row = 0;
  for (size_t i = 0; i < collected.size(); ++i) {
    if (!collected[i].result.ok()) continue;
    const Trajectory &trajectory = collected[i].trajectory;
    if (trajectory.decisions() && trajectory.actionCount != actions_)
      throw std::logic_error("a trajectory of " + std::to_string(trajectory.actionCount) + " actions for an actor of " +
                             std::to_string(actions_));
    if (rewards.at(i).size() != trajectory.decisions())
      throw std::logic_error("a module's rewards and decisions differ in number");
    for (size_t d = 0; d < trajectory.decisions(); ++d, ++row) {
      decisionInputs(trajectory.features.data() + d * trajectory.featureCount, inputs + row * width,
                     choices ? mask.data_ptr<uint8_t>() + row * actions : nullptr);
      reward[row] = static_cast<float>(rewards[i][d]);
      if (choices) {
        batch.actions.data_ptr<int64_t>()[row] = trajectory.actions[d];
        float *logits = batch.oldLogits.data_ptr<float>() + row * actions;
        for (int64_t a = 0; a < actions; ++a)
          logits[a] = std::max(trajectory.logits[d * actions_ + size_t(a)], kForbiddenLogit);
      } else {
        batch.outputs.data_ptr<float>()[row] = trajectory.outputs[d];
        batch.oldMeans.data_ptr<float>()[row] = trajectory.means[d];
      }
    }
    if (!choices && trajectory.decisions()) batch.oldLogStd = trajectory.logStd;
  }
  if (choices) batch.mask = mask.to(torch::kBool);
  return batch;
}

void scaleLogits(TorchMlp &network, double temperature) {
  torch::NoGradGuard noGrad;
  network->linears().back()->weight.div_(temperature);
  network->linears().back()->bias.div_(temperature);
}

const std::filesystem::path &requireStatisticsStart(const Problem &problem,
                                                    const std::optional<std::filesystem::path> &startingPolicy,
                                                    const PPOSettings &settings) {
  if (!startingPolicy)
    throw UsageError("train-ppo for " + problem.name() +
                     " starts from a policy (--warmstart, e.g. train-bc's output): its input statistics are the "
                     "network's preprocessing");
  if (settings.withSqrt || !settings.passthroughFeatures.empty())
    throw UsageError("with_sqrt and passthrough_features apply to vocab-bucketized features, not to " +
                     problem.name() + "'s (the starting policy's signed log1p and z-score)");
  return *startingPolicy;
}

std::unique_ptr<PPOActor> makePPOActor(const Problem &problem,
                                       const std::optional<std::filesystem::path> &startingPolicy,
                                       const std::filesystem::path &vocab, const PPOSettings &settings) {
  return learningKindBundle(problem.decisionSpec().kind()).ppoActor(problem, startingPolicy, vocab, settings);
}

}  // namespace mlgo
