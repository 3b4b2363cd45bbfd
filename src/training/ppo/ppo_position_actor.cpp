// train-ppo for decisions among positions (register allocation's eviction):
// a PositionPolicy's network scores every position, a softmax over the
// positions the mask allows is the policy's distribution.
#include "mlgo/policy/position_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/training/ppo/ppo_actor.h"
#include "mlgo/training/shared/warm_start.h"

namespace mlgo {

namespace {

class PositionPPOActor final : public PPOActor {
 public:
  explicit PositionPPOActor(PositionPolicy start)
      : PPOActor(start.layout().positions(), start.layout().positions() * start.layout().width()),
        start_(std::move(start)) {}

  int64_t networkInputs() const override { return static_cast<int64_t>(start_.layout().width()); }
  int64_t networkOutputs() const override { return 1; }
  void loadStartingWeights(TorchMlp &network) const override { loadWeights(network, start_.network().layers()); }
  DistributionTerms distributions(TorchMlp &network, const PPOBatch &batch,
                                  const torch::Tensor &rows) const override {
    const auto positions = static_cast<int64_t>(start_.layout().positions());
    const auto width = static_cast<int64_t>(start_.layout().width());
    const torch::Tensor logits = positionLogits(
        network, batch.inputs.index_select(0, rows).reshape({-1, positions, width}), batch.mask.index_select(0, rows));
    return categoricalTerms(logits, batch.oldLogits.index_select(0, rows), batch.actions.index_select(0, rows));
  }
  void applyTemperature(TorchMlp &network, double temperature) const override { scaleLogits(network, temperature); }
  std::unique_ptr<SamplingPolicy> policy(const TorchMlp &network, Activation activation,
                                         const nlohmann::json &training) const override {
    // The start's input statistics stay: the network was trained on them.
    PositionPolicy policy(start_.problem(), start_.spec(), start_.means(), start_.stddevs(),
                          DenseNetwork(denseLayers(network), activation));
    policy.training = training;
    return samplingPolicy(std::move(policy));
  }

 protected:
  void decisionInputs(const int64_t *features, float *inputs, uint8_t *mask) const override {
    start_.inputs(features, inputs, mask);
  }

 private:
  PositionPolicy start_;
};

}  // namespace

std::unique_ptr<PPOActor> makePositionPPOActor(const Problem &problem,
                                               const std::optional<std::filesystem::path> &startingPolicy,
                                               const std::filesystem::path &, const PPOSettings &settings) {
  if (std::string reason = PositionLayout::whyNot(problem.decisionSpec()); !reason.empty())
    throw UsageError("train-ppo cannot learn " + problem.name() + "'s decisions: " + reason);
  const std::filesystem::path &start = requireStatisticsStart(problem, startingPolicy, settings);
  return std::make_unique<PositionPPOActor>(loadStartingPositionPolicy(problem, start, networkShapeOf(settings)));
}

}  // namespace mlgo
