// Behavioral cloning of yes/no decisions (int64 scalars and two actions:
// inlining): vocab-bucketized features, a YesNoPolicy.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/training/cloning/cloning_task.h"
#include "mlgo/training/shared/warm_start.h"

namespace mlgo {

namespace {

struct RawDecisions : RawDecisionWeights {
  std::vector<int64_t> features;  ///< flat, decisions x features
  std::vector<int64_t> labels;
};

/// Inputs: decisions x preprocessed inputs.
struct Dataset : DecisionTensors {
  torch::Tensor labels;  ///< decisions, int64
  size_t size() const { return inputs.defined() ? static_cast<size_t>(inputs.size(0)) : 0; }
};

Dataset preprocess(const RawDecisions &raw, const FeaturePreprocessor &preprocessor) {
  Dataset data;
  data.modules = raw.modules;
  const size_t count = raw.labels.size();
  const size_t width = preprocessor.outputCount();
  data.inputs = torch::empty({static_cast<int64_t>(count), static_cast<int64_t>(width)}, torch::kFloat32);
  float *out = data.inputs.data_ptr<float>();
  for (size_t d = 0; d < count; ++d)
    preprocessor.transform(raw.features.data() + d * preprocessor.inputCount(), out + d * width);
  data.labels = torch::tensor(raw.labels, torch::kInt64);
  data.weights = optionalWeights(raw.weights);
  return data;
}

/// How much a module's decisions weigh: 1 + gainWeight x its % .text gain
/// over the default heuristic (an explored trace's best trajectory against
/// baselines.json; a default trace gains nothing). Modules that got larger
/// weigh 1: exploration keeps the default where it found nothing better.
float moduleWeight(const trace::ModuleTrace &module, const std::map<std::string, uint64_t> &baselines,
                   double gainWeight) {
  if (gainWeight == 0) return 1.0f;
  auto found = baselines.find(module.name);
  if (found == baselines.end() || found->second == 0 || module.nativeSize >= found->second) return 1.0f;
  const double gainPercent = 100.0 * double(found->second - module.nativeSize) / double(found->second);
  return float(1.0 + gainWeight * gainPercent);
}

/// Mean and standard deviation of every feature over the decisions.
std::pair<std::vector<double>, std::vector<double>> featureStatistics(const RawDecisions &raw, size_t featureCount) {
  std::vector<double> means(featureCount, 0), stddevs(featureCount, 0);
  const size_t n = raw.labels.size();
  for (size_t d = 0; d < n; ++d)
    for (size_t f = 0; f < featureCount; ++f) means[f] += double(raw.features[d * featureCount + f]) / n;
  for (size_t d = 0; d < n; ++d)
    for (size_t f = 0; f < featureCount; ++f) {
      const double delta = double(raw.features[d * featureCount + f]) - means[f];
      stddevs[f] += delta * delta / n;
    }
  for (double &s : stddevs) s = std::sqrt(s);
  return {means, stddevs};
}

class YesNoCloningTask final : public DatasetCloningTask<Dataset> {
 public:
  YesNoCloningTask(const BCOptions &options, const BCSettings &settings, const trace::TraceReader &reader,
                   const Problem &problem)
      : problem_(problem.name()) {
    const bool zScoreFromTrace = choosePreprocessing(options, settings, problem);

    RawDecisions trainRaw, heldoutRaw;
    const double gainWeight = settings.gainWeight;
    const double flipWeight = settings.flipWeight;
    const double holdout = settings.holdoutFraction;
    const std::map<std::string, uint64_t> baselines =
        gainWeight > 0 ? reader.baselines() : std::map<std::string, uint64_t>{};
    readHeldOutSplit(reader, options, holdout, trainRaw, heldoutRaw,
                     [&](const trace::ModuleTrace &module, RawDecisions &target) {
                       target.features.insert(target.features.end(), module.features.begin(), module.features.end());
                       const float weight = moduleWeight(module, baselines, gainWeight);
                       for (size_t d = 0; d < module.decisions(); ++d) {
                         target.labels.push_back(module.actions[d]);
                         target.weights.push_back(weight * flipDecisionWeight(module, d, flipWeight));
                       }
                     });
    if (zScoreFromTrace) {
      auto [means, stddevs] = featureStatistics(trainRaw, problem.featureNames().size());
      preprocessor_.setZScoreStatistics(means, stddevs);
    }
    train_ = preprocess(trainRaw, preprocessor_);
    heldout_ = preprocess(heldoutRaw, preprocessor_);
  }

  int64_t networkInputs() const override { return static_cast<int64_t>(preprocessor_.outputCount()); }
  int64_t networkOutputs() const override { return 2; }
  const std::vector<DenseLayer> *startingLayers() const override { return start_ ? &start_->layers() : nullptr; }

  torch::Tensor batchLoss(TorchMlp &network, const torch::Tensor &batch) const override {
    const torch::Tensor logits = network->forward(train_.inputs.index_select(0, batch));
    const torch::Tensor labels = train_.labels.index_select(0, batch);
    return weightedCrossEntropy(logits, labels,
                                train_.weights.defined() ? train_.weights.index_select(0, batch) : torch::Tensor());
  }

  std::pair<double, double> evaluate(TorchMlp &network, Split split) const override {
    const Dataset &data = this->data(split);
    if (data.size() == 0) return {0.0, 0.0};
    const torch::Tensor logits = network->forward(data.inputs);
    const double loss = torch::nn::functional::cross_entropy(logits, data.labels).item<double>();
    const double agreement = logits.argmax(1).eq(data.labels).to(torch::kFloat64).mean().item<double>();
    return {agreement, loss};
  }

  void savePolicy(const TorchMlp &network, Activation activation, const nlohmann::json &training,
                  const std::filesystem::path &directory) const override {
    YesNoPolicy model = toPolicyModel(network, problem_, preprocessor_, activation);
    model.training = training;
    model.save(directory);
  }

 private:
  /// The network's input: a warm start's preprocessing (what its weights were
  /// trained on), else the config's preprocessing of the vocab. Returns
  /// whether the z-score statistics are still to be measured on the trace.
  bool choosePreprocessing(const BCOptions &options, const BCSettings &settings, const Problem &problem) {
    if (options.warmstart) {
      start_ = loadStartingYesNoPolicy(problem, *options.warmstart, options.vocab, networkShapeOf(settings));
      preprocessor_ = start_->preprocessor();
      return false;
    }
    if (options.vocab.empty()) throw UsageError("train-bc for " + problem.name() + " needs --vocab");
    PreprocessingConfig preprocessing;
    preprocessing.withSqrt = settings.withSqrt;
    preprocessing.withZScore = settings.withZScore;
    preprocessing.passthrough = settings.passthroughFeatures;
    preprocessor_ = preprocessorFromVocab(problem.featureNames(), options.vocab, preprocessing);
    return preprocessing.withZScore;
  }

  std::string problem_;
  std::optional<YesNoPolicy> start_;
  FeaturePreprocessor preprocessor_;
};

}  // namespace

std::unique_ptr<CloningTask> makeYesNoCloningTask(const BCOptions &options, const BCSettings &settings,
                                                  const trace::TraceReader &reader, const Problem &problem) {
  return std::make_unique<YesNoCloningTask>(options, settings, reader, problem);
}

}  // namespace mlgo
