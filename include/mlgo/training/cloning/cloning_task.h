#pragma once
// What behavioral cloning learns from, for one kind of decision: the trace's
// decisions as tensors, the loss of a network's choice against the recorded
// actions, and the policy the network becomes. train-bc's loop
// (bc_trainer.cpp) is the same for every kind: yes/no decisions (inlining: a
// YesNoPolicy), decisions among positions (register allocation's eviction: a
// PositionPolicy) and continuous decisions (its priority: a ContinuousPolicy). Include only from training code.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/training/cloning/bc_settings.h"
#include "mlgo/training/cloning/bc_trainer.h"
#include "mlgo/training/shared/torch_network.h"
#include "mlgo/training/shared/warm_start.h"

namespace mlgo {

enum class Split { Train, Heldout };

class CloningTask {
 public:
  virtual ~CloningTask() = default;
  virtual int64_t networkInputs() const = 0;
  virtual int64_t networkOutputs() const = 0;
  virtual size_t decisions(Split split) const = 0;
  virtual size_t modules(Split split) const = 0;
  /// The warm start's layers (BCOptions::warmstart), null without one.
  virtual const std::vector<DenseLayer> *startingLayers() const = 0;
  /// Mean (weighted, where decisions have weights) cross entropy of the
  /// network's choice against the recorded actions of training decisions `batch`.
  virtual torch::Tensor batchLoss(TorchMlp &network, const torch::Tensor &batch) const = 0;
  /// Share of the split's decisions where the greedy choice is the recorded
  /// action (a real value: within a factor of 2 in 1 + value), and the mean loss. Without dropout; no gradients.
  virtual std::pair<double, double> evaluate(TorchMlp &network, Split split) const = 0;
  /// Saves the network as the problem's policy directory.
  virtual void savePolicy(const TorchMlp &network, Activation activation, const nlohmann::json &training,
                          const std::filesystem::path &directory) const = 0;
};

/// What every kind's cloning data holds besides its inputs and targets,
/// while the trace is read (per decision weights) and as tensors.
struct RawDecisionWeights {
  std::vector<float> weights;  ///< one per decision
  size_t modules = 0;
};
struct DecisionTensors {
  torch::Tensor inputs;
  torch::Tensor weights;  ///< decisions, float; undefined when all weigh the same
  size_t modules = 0;
};

/// The decisions' weights as a tensor; undefined when all weigh 1, so that
/// the loss is a plain mean.
inline torch::Tensor optionalWeights(const std::vector<float> &weights) {
  if (std::none_of(weights.begin(), weights.end(), [](float w) { return w != 1.0f; })) return {};
  return torch::tensor(weights, torch::kFloat32);
}

/// A task over a training and a held-out Dataset (a DecisionTensors with
/// its targets and size()).
template <class Dataset>
class DatasetCloningTask : public CloningTask {
 public:
  size_t decisions(Split split) const override { return data(split).size(); }
  size_t modules(Split split) const override { return data(split).modules; }

 protected:
  const Dataset &data(Split split) const { return split == Split::Train ? train_ : heldout_; }
  Dataset train_, heldout_;
};

/// UsageError for the config keys of the yes/no kind's vocab preprocessing and
/// of weighing modules by their .text gain, which `problem`'s decisions do not
/// have (decisions among positions, continuous decisions).
void refuseYesNoOnlyKeys(const BCSettings &settings, const std::string &problem);

/// A task over a problem's own decision spec, its inputs squashed and
/// normalized by the training decisions' means and standard deviations
/// (decisions among positions, continuous decisions).
template <class Dataset>
class SpecCloningTask : public DatasetCloningTask<Dataset> {
 protected:
  SpecCloningTask(const Problem &problem, const BCSettings &settings)
      : problem_(problem.name()), spec_(problem.decisionSpec()), flipWeight_(settings.flipWeight) {
    refuseYesNoOnlyKeys(settings, problem_);
  }
  /// (inputs - mean) / (stddev + 1e-6), input by input, as the policies do.
  torch::Tensor normalizedInputs(const std::vector<float> &inputs, at::IntArrayRef shape) const {
    return (torch::tensor(inputs, torch::kFloat32).reshape(shape) - torch::tensor(means_, torch::kFloat32)) /
           (torch::tensor(stddevs_, torch::kFloat32) + 1e-6f);
  }

  std::string problem_;
  trace::DecisionSpec spec_;
  std::vector<float> means_, stddevs_;
  double flipWeight_ = 0;
};

/// Whether a module is held out: chosen by a hash of its name and the seed.
bool isHeldOutModule(const std::string &name, uint64_t seed, double fraction);

/// Reads every module of `reader` into `train` or `heldout` (a
/// RawDecisionWeights with the kind's own vectors), as isHeldOutModule
/// chooses, counting modules; `append(module, raw)` adds its decisions.
/// InputError naming the trace when no training decision was read.
template <class Raw, class Append>
void readHeldOutSplit(const trace::TraceReader &reader, const BCOptions &options, double holdout, Raw &train,
                      Raw &heldout, Append append) {
  reader.forEachModule([&](const trace::ModuleTrace &module) {
    Raw &target = isHeldOutModule(module.name, options.seed, holdout) ? heldout : train;
    ++target.modules;
    append(module, target);
  });
  if (train.weights.empty())
    throw InputError(
        describeInputProblem(options.trace.string(), "", "no training decisions (all modules held out?)"));
}

/// Cross entropy of `logits` against `labels`, the mean over the batch, each
/// decision weighed by `weights` (batch-sized) where it is defined.
torch::Tensor weightedCrossEntropy(const torch::Tensor &logits, const torch::Tensor &labels,
                                   const torch::Tensor &weights);

/// A decision's weight in imitation: 1, or 1 + flipWeight where the recorded
/// action is not the default heuristic's (where exploration changed it).
float flipDecisionWeight(const trace::ModuleTrace &module, size_t decision, double flipWeight);

/// The network BC's settings describe, which a warm start must have.
inline NetworkShape networkShapeOf(const BCSettings &settings) { return {settings.hiddenLayers, settings.activation}; }

/// The task for the problem's kind of decision.
std::unique_ptr<CloningTask> makeCloningTask(const BCOptions &options, const BCSettings &settings,
                                             const trace::TraceReader &reader, const Problem &problem);
/// Yes/no decisions (int64 scalars and two actions), preprocessed with the vocab.
std::unique_ptr<CloningTask> makeYesNoCloningTask(const BCOptions &options, const BCSettings &settings,
                                                  const trace::TraceReader &reader, const Problem &problem);
/// Decisions among positions (mlgo/policy/position_policy.h); no vocab.
std::unique_ptr<CloningTask> makePositionCloningTask(const BCOptions &options, const BCSettings &settings,
                                                     const trace::TraceReader &reader, const Problem &problem);
/// Continuous decisions of scalar features (mlgo/policy/continuous_policy.h),
/// regressed in log2(1 + value); no vocab.
std::unique_ptr<CloningTask> makeContinuousCloningTask(const BCOptions &options, const BCSettings &settings,
                                                       const trace::TraceReader &reader, const Problem &problem);

}  // namespace mlgo
