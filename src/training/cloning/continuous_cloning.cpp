// Behavioral cloning of continuous decisions (register-allocation priority):
// a ContinuousPolicy's network regresses log2(1 + value) of the recorded values,
// with a mean squared error.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "mlgo/policy/continuous_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/training/cloning/cloning_task.h"

namespace mlgo {

namespace {

/// Inputs: decisions x features.
struct ContinuousDataset : DecisionTensors {
  torch::Tensor targets;  ///< decisions, float: log2(1 + value)'s z-score
  size_t size() const { return targets.defined() ? static_cast<size_t>(targets.size(0)) : 0; }
};

struct RawValues : RawDecisionWeights {
  std::vector<float> inputs;  ///< squashed (signedLog1p) features
  std::vector<float> targets;
};

/// Mean and standard deviation of value(0), ..., value(count - 1).
template <class Value>
std::pair<float, float> moments(size_t count, Value value) {
  double sum = 0, squares = 0;
  for (size_t i = 0; i < count; ++i) {
    const double x = value(i);
    sum += x;
    squares += x * x;
  }
  const double mean = sum / double(count);
  return {float(mean), float(std::sqrt(std::max(0.0, squares / double(count) - mean * mean)))};
}

/// Mean squared error, each decision weighed by `weights` where defined.
torch::Tensor weightedSquaredError(const torch::Tensor &predicted, const torch::Tensor &targets,
                                   const torch::Tensor &weights) {
  const torch::Tensor each = (predicted - targets).pow(2);
  if (!weights.defined()) return each.mean();
  return (each * weights).sum() / weights.sum();
}

class ContinuousCloningTask final : public SpecCloningTask<ContinuousDataset> {
 public:
  ContinuousCloningTask(const BCOptions &options, const BCSettings &settings, const trace::TraceReader &reader,
                        const Problem &problem)
      : SpecCloningTask(problem, settings) {
    if (options.warmstart)
      throw UsageError("train-bc --warmstart does not take " + problem_ + "'s continuous decisions yet");
    const double holdout = settings.holdoutFraction;
    RawValues trainRaw, heldoutRaw;
    readHeldOutSplit(reader, options, holdout, trainRaw, heldoutRaw,
                     [&](const trace::ModuleTrace &module, RawValues &target) { append(module, target, options.trace); });
    measureStatistics(trainRaw);
    train_ = toDataset(trainRaw);
    heldout_ = toDataset(heldoutRaw);
  }

  int64_t networkInputs() const override { return static_cast<int64_t>(spec_.features.size()); }
  int64_t networkOutputs() const override { return 1; }
  const std::vector<DenseLayer> *startingLayers() const override { return nullptr; }

  torch::Tensor batchLoss(TorchMlp &network, const torch::Tensor &batch) const override {
    const torch::Tensor predicted = network->forward(train_.inputs.index_select(0, batch)).squeeze(1);
    return weightedSquaredError(predicted, train_.targets.index_select(0, batch),
                                train_.weights.defined() ? train_.weights.index_select(0, batch) : torch::Tensor());
  }

  std::pair<double, double> evaluate(TorchMlp &network, Split split) const override {
    const ContinuousDataset &data = this->data(split);
    if (data.size() == 0) return {0.0, 0.0};
    const torch::Tensor error = network->forward(data.inputs).squeeze(1) - data.targets;
    // Within a factor of 2 of 1 + the recorded value.
    const double agreeing = (error.abs() * scale_.stddev).lt(1.0).sum().item<double>();
    return {agreeing / double(data.size()), error.pow(2).mean().item<double>()};
  }

  void savePolicy(const TorchMlp &network, Activation activation, const nlohmann::json &training,
                  const std::filesystem::path &directory) const override {
    ContinuousPolicy policy(problem_, spec_, means_, stddevs_, scale_, DenseNetwork(denseLayers(network), activation));
    policy.training = training;
    policy.save(directory);
  }

 private:
  void append(const trace::ModuleTrace &module, RawValues &target, const std::filesystem::path &tracePath) const {
    std::vector<float> inputs(spec_.features.size());
    for (size_t d = 0; d < module.decisions(); ++d) {
      const float value = module.values[d];
      if (!std::isfinite(value))
        throw InputError(describeInputProblem(tracePath.string(), module.name + ", decision " + std::to_string(d),
                                              "its value is not a finite number"));
      ContinuousPolicy::squashedInputs(spec_, module.featuresOf(d), inputs.data());
      target.inputs.insert(target.inputs.end(), inputs.begin(), inputs.end());
      target.targets.push_back(ContinuousPolicy::target(value));
      const float byDefault = module.defaultValues[d];
      target.weights.push_back(!std::isnan(byDefault) && byDefault != value ? float(1 + flipWeight_) : 1.0f);
    }
  }

  /// Mean and standard deviation of every input and of the target over the
  /// training decisions.
  void measureStatistics(const RawValues &raw) {
    const size_t width = spec_.features.size(), rows = raw.targets.size();
    const auto [targetMean, targetStddev] = moments(rows, [&](size_t row) { return raw.targets[row]; });
    scale_.mean = targetMean;
    scale_.stddev = std::max(1e-3f, targetStddev);
    means_.assign(width, 0);
    stddevs_.assign(width, 1);
    for (size_t i = 0; i < width; ++i)
      std::tie(means_[i], stddevs_[i]) = moments(rows, [&](size_t row) { return raw.inputs[row * width + i]; });
  }

  ContinuousDataset toDataset(const RawValues &raw) const {
    ContinuousDataset data;
    data.modules = raw.modules;
    const auto rows = static_cast<int64_t>(raw.targets.size()), width = static_cast<int64_t>(spec_.features.size());
    data.targets = (torch::tensor(raw.targets, torch::kFloat32) - scale_.mean) / scale_.stddev;
    if (rows == 0) return data;
    data.weights = optionalWeights(raw.weights);
    data.inputs = normalizedInputs(raw.inputs, {rows, width});
    return data;
  }

  ContinuousPolicy::TargetScale scale_;
};

}  // namespace

std::unique_ptr<CloningTask> makeContinuousCloningTask(const BCOptions &options, const BCSettings &settings,
                                                       const trace::TraceReader &reader, const Problem &problem) {
  return std::make_unique<ContinuousCloningTask>(options, settings, reader, problem);
}

}  // namespace mlgo
