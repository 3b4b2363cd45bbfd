// Behavioral cloning of decisions among positions (register allocation's
// eviction): a PositionPolicy's network scores each position, a softmax over
// the positions the mask allows is trained toward the recorded one.
#include <algorithm>
#include <cmath>
#include <optional>

#include "mlgo/policy/position_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/training/cloning/cloning_task.h"
#include "mlgo/training/shared/warm_start.h"

namespace mlgo {

namespace {

/// Inputs: decisions x positions x width.
struct PositionDataset : DecisionTensors {
  torch::Tensor mask;    ///< decisions x positions, bool
  torch::Tensor labels;  ///< decisions, int64
  size_t size() const { return labels.defined() ? static_cast<size_t>(labels.size(0)) : 0; }
};

struct RawPositions : RawDecisionWeights {
  std::vector<float> inputs;  ///< squashed (signedLog1p) inputs
  std::vector<uint8_t> mask;
  std::vector<int64_t> labels;
};

class PositionCloningTask final : public SpecCloningTask<PositionDataset> {
 public:
  PositionCloningTask(const BCOptions &options, const BCSettings &settings, const trace::TraceReader &reader,
                      const Problem &problem)
      : SpecCloningTask(problem, settings), layout_(spec_) {
    if (options.warmstart) start_ = loadStartingPositionPolicy(problem, *options.warmstart, networkShapeOf(settings));
    const double holdout = settings.holdoutFraction;
    RawPositions trainRaw, heldoutRaw;
    readHeldOutSplit(reader, options, holdout, trainRaw, heldoutRaw, [&](const trace::ModuleTrace &module,
                                                                         RawPositions &target) {
      append(module, target, options.trace);
    });
    if (start_) {
      // The start's input statistics stay: its weights were trained on them.
      means_ = start_->means();
      stddevs_ = start_->stddevs();
    } else {
      measureStatistics(trainRaw);
    }
    train_ = toDataset(trainRaw);
    heldout_ = toDataset(heldoutRaw);
  }

  int64_t networkInputs() const override { return static_cast<int64_t>(layout_.width()); }
  int64_t networkOutputs() const override { return 1; }
  const std::vector<DenseLayer> *startingLayers() const override {
    return start_ ? &start_->network().layers() : nullptr;
  }

  torch::Tensor batchLoss(TorchMlp &network, const torch::Tensor &batch) const override {
    const torch::Tensor logits =
        positionLogits(network, train_.inputs.index_select(0, batch), train_.mask.index_select(0, batch));
    return weightedCrossEntropy(logits, train_.labels.index_select(0, batch),
                                train_.weights.defined() ? train_.weights.index_select(0, batch) : torch::Tensor());
  }

  std::pair<double, double> evaluate(TorchMlp &network, Split split) const override {
    const PositionDataset &data = this->data(split);
    if (data.size() == 0) return {0.0, 0.0};
    // In chunks: every position of every decision at once would take
    // hundreds of MB of activations on a large trace.
    constexpr int64_t kChunk = 4096;
    double agreeing = 0, lossSum = 0;
    for (int64_t first = 0; first < int64_t(data.size()); first += kChunk) {
      const int64_t count = std::min<int64_t>(kChunk, int64_t(data.size()) - first);
      const torch::Tensor logits =
          positionLogits(network, data.inputs.narrow(0, first, count), data.mask.narrow(0, first, count));
      const torch::Tensor labels = data.labels.narrow(0, first, count);
      lossSum += torch::nn::functional::cross_entropy(
                     logits, labels, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                     .item<double>();
      agreeing += logits.argmax(1).eq(labels).sum().item<double>();
    }
    return {agreeing / double(data.size()), lossSum / double(data.size())};
  }

  void savePolicy(const TorchMlp &network, Activation activation, const nlohmann::json &training,
                  const std::filesystem::path &directory) const override {
    PositionPolicy policy(problem_, spec_, means_, stddevs_, DenseNetwork(denseLayers(network), activation));
    policy.training = training;
    policy.save(directory);
  }

 private:
  void append(const trace::ModuleTrace &module, RawPositions &target, const std::filesystem::path &tracePath) const {
    const size_t positions = layout_.positions(), width = layout_.width();
    std::vector<float> inputs(positions * width);
    std::vector<uint8_t> mask(positions);
    for (size_t d = 0; d < module.decisions(); ++d) {
      layout_.rawInputs(module.featuresOf(d), inputs.data(), mask.data());
      const int64_t label = module.actions[d];
      if (size_t(label) >= positions || !mask[label])
        throw InputError(
            describeInputProblem(tracePath.string(), module.name + ", decision " + std::to_string(d),
                                 "its action " + std::to_string(label) + " is not a position its mask allows"));
      for (float &x : inputs) x = signedLog1p(x);
      target.inputs.insert(target.inputs.end(), inputs.begin(), inputs.end());
      target.mask.insert(target.mask.end(), mask.begin(), mask.end());
      target.labels.push_back(label);
      target.weights.push_back(flipDecisionWeight(module, d, flipWeight_));
    }
  }

  /// Mean and standard deviation of every input over the positions the
  /// training decisions' masks allow (the ones a policy chooses among).
  void measureStatistics(const RawPositions &raw) {
    const size_t width = layout_.width();
    std::vector<double> sum(width, 0), squares(width, 0);
    double count = 0;
    for (size_t row = 0; row < raw.mask.size(); ++row) {
      if (!raw.mask[row]) continue;
      ++count;
      for (size_t i = 0; i < width; ++i) {
        const double x = raw.inputs[row * width + i];
        sum[i] += x;
        squares[i] += x * x;
      }
    }
    means_.assign(width, 0);
    stddevs_.assign(width, 1);
    for (size_t i = 0; i < width && count > 0; ++i) {
      const double mean = sum[i] / count;
      means_[i] = float(mean);
      stddevs_[i] = float(std::sqrt(std::max(0.0, squares[i] / count - mean * mean)));
    }
  }

  PositionDataset toDataset(const RawPositions &raw) const {
    PositionDataset data;
    data.modules = raw.modules;
    const auto decisions = static_cast<int64_t>(raw.labels.size());
    const auto positions = static_cast<int64_t>(layout_.positions()), width = static_cast<int64_t>(layout_.width());
    data.labels = torch::tensor(raw.labels, torch::kInt64);
    if (decisions == 0) return data;
    data.weights = optionalWeights(raw.weights);
    data.inputs = normalizedInputs(raw.inputs, {decisions, positions, width});
    data.mask = torch::tensor(std::vector<int64_t>(raw.mask.begin(), raw.mask.end()), torch::kInt64)
                    .reshape({decisions, positions})
                    .to(torch::kBool);
    return data;
  }

  PositionLayout layout_;
  std::optional<PositionPolicy> start_;
};

}  // namespace

std::unique_ptr<CloningTask> makePositionCloningTask(const BCOptions &options, const BCSettings &settings,
                                                     const trace::TraceReader &reader, const Problem &problem) {
  return std::make_unique<PositionCloningTask>(options, settings, reader, problem);
}

}  // namespace mlgo
