// train-ppo for yes/no decisions (int64 scalars and two actions: inlining): a
// YesNoPolicy's network over the vocab-preprocessed features, two logits.
#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/training/ppo/ppo_actor.h"
#include "mlgo/training/shared/warm_start.h"

namespace mlgo {

namespace {

class YesNoPPOActor final : public PPOActor {
 public:
  YesNoPPOActor(const Problem &problem, std::optional<YesNoPolicy> start, FeaturePreprocessor preprocessor)
      : PPOActor(2, preprocessor.outputCount()),
        problem_(problem.name()),
        start_(std::move(start)),
        preprocessor_(std::move(preprocessor)) {}

  int64_t networkInputs() const override { return static_cast<int64_t>(preprocessor_.outputCount()); }
  int64_t networkOutputs() const override { return 2; }
  void loadStartingWeights(TorchMlp &network) const override {
    if (start_) loadWeights(network, start_->layers());
  }
  DistributionTerms distributions(TorchMlp &network, const PPOBatch &batch, const torch::Tensor &rows) const override {
    return categoricalTerms(network->forward(batch.inputs.index_select(0, rows)), batch.oldLogits.index_select(0, rows),
                            batch.actions.index_select(0, rows));
  }
  void applyTemperature(TorchMlp &network, double temperature) const override { scaleLogits(network, temperature); }
  std::unique_ptr<SamplingPolicy> policy(const TorchMlp &network, Activation activation,
                                         const nlohmann::json &training) const override {
    YesNoPolicy model = toPolicyModel(network, problem_, preprocessor_, activation);
    model.training = training;
    return samplingPolicy(std::move(model));
  }

 protected:
  void decisionInputs(const int64_t *features, float *inputs, uint8_t *mask) const override {
    preprocessor_.transform(features, inputs);
    mask[0] = mask[1] = 1;
  }

 private:
  std::string problem_;
  std::optional<YesNoPolicy> start_;
  FeaturePreprocessor preprocessor_;
};

}  // namespace

std::unique_ptr<PPOActor> makeYesNoPPOActor(const Problem &problem,
                                            const std::optional<std::filesystem::path> &startingPolicy,
                                            const std::filesystem::path &vocab, const PPOSettings &settings) {
  requireYesNoDecisions(problem, "train-ppo");
  if (vocab.empty()) throw UsageError("train-ppo for " + problem.name() + " needs --vocab (gen-vocab's output)");
  if (!startingPolicy) {
    // The network's input: the config's preprocessing of the vocab.
    PreprocessingConfig preprocessing;
    preprocessing.withSqrt = settings.withSqrt;
    preprocessing.passthrough = settings.passthroughFeatures;
    return std::make_unique<YesNoPPOActor>(problem, std::nullopt,
                                           preprocessorFromVocab(problem.featureNames(), vocab, preprocessing));
  }
  YesNoPolicy start = loadStartingYesNoPolicy(problem, *startingPolicy, vocab, networkShapeOf(settings));
  FeaturePreprocessor preprocessor = start.preprocessor();
  return std::make_unique<YesNoPPOActor>(problem, std::move(start), std::move(preprocessor));
}

}  // namespace mlgo
