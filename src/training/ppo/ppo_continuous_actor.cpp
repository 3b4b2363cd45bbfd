// train-ppo for continuous decisions (register allocation's priority): a
// ContinuousPolicy's network gives the mean of a Gaussian over its output (the
// z-score of log2(1 + value)), whose standard deviation is the config's
// value_std; a sampled output stands for the value the compiler is answered.
#include <cmath>

#include "mlgo/policy/continuous_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/training/ppo/ppo_actor.h"
#include "mlgo/training/shared/warm_start.h"

namespace mlgo {

namespace {

class ContinuousPPOActor final : public PPOActor {
 public:
  ContinuousPPOActor(ContinuousPolicy start, double logStd)
      : PPOActor(0, start.features()), start_(std::move(start)), logStd_(logStd) {}

  int64_t networkInputs() const override { return static_cast<int64_t>(start_.features()); }
  int64_t networkOutputs() const override { return 1; }
  void loadStartingWeights(TorchMlp &network) const override { loadWeights(network, start_.network().layers()); }
  DistributionTerms distributions(TorchMlp &network, const PPOBatch &batch, const torch::Tensor &rows) const override {
    const torch::Tensor means = network->forward(batch.inputs.index_select(0, rows)).squeeze(1);
    return gaussianTerms(means, batch.oldMeans.index_select(0, rows), batch.outputs.index_select(0, rows), logStd_,
                         batch.oldLogStd);
  }
  void applyTemperature(TorchMlp &, double temperature) const override {
    // Scaling the output would move the mean, the greedy answer itself.
    if (temperature != 1)
      throw UsageError("warmstart_temperature scales logits; " + start_.problem() +
                       "'s continuous decisions explore by value_std");
  }
  std::unique_ptr<SamplingPolicy> policy(const TorchMlp &network, Activation activation,
                                         const nlohmann::json &training) const override {
    // The start's input statistics and target scale stay: the network was trained on them.
    ContinuousPolicy policy(start_.problem(), start_.spec(), start_.means(), start_.stddevs(), start_.targetScale(),
                            DenseNetwork(denseLayers(network), activation));
    policy.training = training;
    return samplingPolicy(std::move(policy), static_cast<float>(logStd_));
  }

 protected:
  void decisionInputs(const int64_t *features, float *inputs, uint8_t *) const override {
    start_.inputs(features, inputs);
  }

 private:
  ContinuousPolicy start_;
  double logStd_;
};

}  // namespace

std::unique_ptr<PPOActor> makeContinuousPPOActor(const Problem &problem,
                                                 const std::optional<std::filesystem::path> &startingPolicy,
                                                 const std::filesystem::path &, const PPOSettings &settings) {
  const std::filesystem::path &start = requireStatisticsStart(problem, startingPolicy, settings);
  const double std = settings.valueStd;
  return std::make_unique<ContinuousPPOActor>(loadStartingContinuousPolicy(problem, start, networkShapeOf(settings)),
                                              std::log(std));
}

}  // namespace mlgo
