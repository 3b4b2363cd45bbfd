#include "mlgo/training/ppo/ppo_update.h"

#include <chrono>

#include "mlgo/support/errors.h"
#include "mlgo/support/sampling.h"
#include "mlgo/training/shared/adam_state.h"
#include "mlgo/training/shared/deterministic_torch.h"
#include "mlgo/metrics/metrics_keys.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

PPOHyperparameters hyperparametersOf(const PPOSettings &settings) {
  PPOHyperparameters hyper;
  hyper.importanceRatioClipping = settings.importanceRatioClipping;
  hyper.entropyRegularization = settings.entropyRegularization;
  hyper.policyL2 = settings.policyL2;
  hyper.klTarget = settings.klTarget;
  hyper.klTolerance = settings.klTolerance;
  hyper.klCutoffFactor = settings.klCutoffFactor;
  hyper.klCutoffCoefficient = settings.klCutoffCoefficient;
  return hyper;
}

/// torch::load, with a damaged or foreign file reported as bad input naming
/// the file instead of LibTorch's message with its C++ stack frames.
template <typename Value>
void loadTorchArchive(Value &value, const fs::path &path) {
  if (!fs::is_regular_file(path)) throw InputError(describeInputProblem(path.string(), "", "missing"));
  try {
    torch::load(value, path.string());
  } catch (const c10::Error &e) {
    throw InputError(describeInputProblem(path.string(), "",
                                          std::string("not a readable LibTorch archive of this run (truncated or "
                                                      "damaged?): ") +
                                              e.what_without_backtrace()));
  } catch (const std::exception &e) {
    throw InputError(describeInputProblem(path.string(), "", std::string("cannot be loaded: ") + e.what()));
  }
}

}  // namespace

json TrainingMetrics::toJson(double klBeta) const {
  const double n = steps > 0 ? double(steps) : 1.0;
  using namespace metrics_keys;
  return {{kLoss,
           {{kLossTotal, total / n},
            {kLossPolicyGradient, policyGradient / n},
            {kLossEntropy, entropyRegularization / n},
            {kLossKl, klPenalty / n},
            {kLossL2, l2 / n}}},
          {kEntropy, entropy / n},
          {kKl, kl / n},
          {kKlBeta, klBeta},
          {kClippedShare, clippedShare / n},
          {kGradientSteps, steps}};
}

torch::Tensor sampleWindows(int64_t decisions, int64_t windows, int64_t length, uint64_t seed, int64_t iteration,
                            int64_t step) {
  length = std::min(length, decisions);
  const uint64_t starts = static_cast<uint64_t>(decisions - length + 1);
  uint64_t state = mixBits(seed ^ 0x6261'7463'6865'7321ull) ^ mixBits(uint64_t(iteration) << 32 ^ uint64_t(step));
  torch::Tensor indices = torch::empty({windows * length}, torch::kInt64);
  int64_t *out = indices.data_ptr<int64_t>();
  for (int64_t w = 0; w < windows; ++w) {
    const int64_t start = static_cast<int64_t>(mixBits(state++) % starts);
    for (int64_t k = 0; k < length; ++k) *out++ = start + k;
  }
  return indices;
}

PPOUpdate::PPOUpdate(const PPOSettings &settings, std::unique_ptr<PPOActor> actor, uint64_t seed)
    : settings_(settings),
      hyper_(hyperparametersOf(settings)),
      seed_(seed),
      actor_(std::move(actor)),
      klBeta_(settings.initialKlBeta) {
  startDeterministicTorch(seed);
  network_ =
      TorchMlp(actor_->networkInputs(), settings.hiddenLayers, settings.activation, 0.0, actor_->networkOutputs());
  optimizer_.emplace(network_->parameters(),
                     torch::optim::AdamOptions(settings.learningRate).eps(settings.adamEpsilon));
}

void PPOUpdate::warmStart(double temperature) {
  actor_->loadStartingWeights(network_);
  actor_->applyTemperature(network_, temperature);
}

Learning PPOUpdate::learn(const Collection &collection, const IterationRewards &rewards, int64_t iteration) {
  const auto start = std::chrono::steady_clock::now();
  Learning learning;
  const PPOBatch batch = actor_->makeBatch(collection.modules, rewards.training);
  if (rewards.decisions) learning.trainingRewardMean = batch.rewards.mean().item<double>();
  if (batch.size() > 0) {
    std::vector<torch::Tensor> kernels;
    for (const torch::nn::Linear &linear : network_->linears()) kernels.push_back(linear->weight);
    for (int64_t step = 0; step < settings_.gradientSteps; ++step)
      gradientStep(batch, kernels, iteration, step, learning.metrics);
  }
  learning.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return learning;
}

std::unique_ptr<SamplingPolicy> PPOUpdate::policy(const json &training) const {
  return actor_->policy(network_, settings_.activation, training);
}

void PPOUpdate::save(const fs::path &directory) {
  torch::save(network_, (directory / "network.pt").string());
  saveAdamState(*optimizer_, directory / "optimizer.pt");
}

void PPOUpdate::load(const fs::path &directory) {
  loadTorchArchive(network_, directory / "network.pt");
  loadAdamState(*optimizer_, directory / "optimizer.pt");
}

void PPOUpdate::gradientStep(const PPOBatch &batch, const std::vector<torch::Tensor> &kernels, int64_t iteration,
                             int64_t step, TrainingMetrics &metrics) {
  const torch::Tensor rows =
      sampleWindows(batch.size(), settings_.batchSize, settings_.sequenceLength, seed_, iteration, step);
  torch::Tensor advantages = batch.rewards.index_select(0, rows);
  if (settings_.normalizeAdvantages) advantages = normalizeAdvantages(advantages);
  optimizer_->zero_grad();
  PPOLossTerms terms = ppoLoss(actor_->distributions(network_, batch, rows), advantages, klBeta_, kernels, hyper_);
  terms.total.backward();
  optimizer_->step();
  klBeta_ = adaptKlBeta(klBeta_, terms.meanKl, hyper_);
  metrics.total += terms.total.item<double>();
  metrics.policyGradient += terms.policyGradient.item<double>();
  metrics.entropyRegularization += terms.entropyRegularization.item<double>();
  metrics.klPenalty += terms.klPenalty.item<double>();
  metrics.l2 += terms.l2Regularization.item<double>();
  metrics.entropy += terms.meanEntropy;
  metrics.kl += terms.meanKl;
  metrics.clippedShare += terms.clippedShare;
  ++metrics.steps;
}

}  // namespace mlgo
