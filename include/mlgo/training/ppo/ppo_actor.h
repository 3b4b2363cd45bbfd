#pragma once
// What train-ppo's loop needs to know of a problem's kind of decision: the
// collected decisions as tensors, the distributions the network gives them,
// and the policy the network becomes. The loop (ppo_trainer.cpp) is the same
// for yes/no decisions (inlining: a YesNoPolicy), decisions among positions
// (register allocation's eviction: a PositionPolicy) and continuous decisions
// (its priority: a ContinuousPolicy sampled with a Gaussian around its
// output), as train-bc's is (cloning_task.h). Include
// only from training code.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "mlgo/policy/sampling_policy.h"
#include "mlgo/training/shared/collector.h"
#include "mlgo/training/ppo/ppo_loss.h"
#include "mlgo/training/ppo/ppo_settings.h"
#include "mlgo/training/shared/torch_network.h"
#include "mlgo/training/shared/warm_start.h"

namespace mlgo {

class Problem;

/// One policy iteration's training data: every decision of every module that
/// compiled, with its reward (its module's, or its function's).
struct PPOBatch {
  torch::Tensor inputs;     ///< decisions x the actor's inputs per decision, float
  torch::Tensor mask;       ///< choices: decisions x actions, bool: the actions a decision allows
  torch::Tensor actions;    ///< choices: decisions, int64
  torch::Tensor oldLogits;  ///< choices: decisions x actions, the collecting policy's; forbidden: kForbiddenLogit
  torch::Tensor outputs;    ///< real values: decisions, float: the sampled outputs
  torch::Tensor oldMeans;   ///< real values: decisions, float: the collecting policy's means
  double oldLogStd = 0;     ///< real values: the collecting policy's log standard deviation
  torch::Tensor rewards;    ///< decisions, float
  int64_t size() const { return rewards.defined() ? rewards.size(0) : 0; }
};

class PPOActor {
 public:
  virtual ~PPOActor() = default;
  virtual int64_t networkInputs() const = 0;
  virtual int64_t networkOutputs() const = 0;
  /// The starting policy's weights into `network`; nothing without one.
  virtual void loadStartingWeights(TorchMlp &network) const = 0;
  /// The new (the network's) and the collecting policy's distributions of
  /// the batch's decisions `rows`, as the loss needs them.
  virtual DistributionTerms distributions(TorchMlp &network, const PPOBatch &batch,
                                          const torch::Tensor &rows) const = 0;
  /// Scales a warm start's exploration by `temperature` (above 1: more)
  /// without changing its greedy decisions.
  virtual void applyTemperature(TorchMlp &network, double temperature) const = 0;
  /// The network as the policy collection samples from and train-ppo saves.
  virtual std::unique_ptr<SamplingPolicy> policy(const TorchMlp &network, Activation activation,
                                                 const nlohmann::json &training) const = 0;
  /// The decisions of the modules that compiled with their rewards:
  /// rewards[i][d] for decision d of collected[i].
  PPOBatch makeBatch(const std::vector<CollectedModule> &collected,
                     const std::vector<std::vector<double>> &rewards) const;

 protected:
  /// `actions`: of a choice; 0 for a real value.
  PPOActor(size_t actions, size_t inputsPerDecision) : actions_(actions), inputsPerDecision_(inputsPerDecision) {}
  /// The network's inputs of one decision and, for a choice, the actions it
  /// allows (`mask` is null for a real value).
  virtual void decisionInputs(const int64_t *features, float *inputs, uint8_t *mask) const = 0;

 private:
  size_t actions_, inputsPerDecision_;
};

/// The network PPO's settings describe, which a starting policy must have.
inline NetworkShape networkShapeOf(const PPOSettings &settings) { return {settings.hiddenLayers, settings.activation}; }

/// Scales the last layer: the logits scale, argmax stays, entropy grows.
void scaleLogits(TorchMlp &network, double temperature);

/// The starting policy of an actor whose network's preprocessing comes with
/// it (input statistics, not a vocab): throws UsageError when there is none,
/// or when the config asks for vocab preprocessing.
const std::filesystem::path &requireStatisticsStart(const Problem &problem,
                                                    const std::optional<std::filesystem::path> &startingPolicy,
                                                    const PPOSettings &settings);

/// The actor for `problem`'s decisions. `startingPolicy`: a policy directory
/// to start from (a warm start, or a resumed run's policy), checked against
/// the problem and the config's hidden_layers and activation. Yes/no
/// decisions without one preprocess with `vocab` (with_sqrt,
/// passthrough_features); decisions among positions need one (it holds the
/// input statistics). Throws UsageError and InputError naming the file.
std::unique_ptr<PPOActor> makePPOActor(const Problem &problem,
                                       const std::optional<std::filesystem::path> &startingPolicy,
                                       const std::filesystem::path &vocab, const PPOSettings &settings);

/// The three kinds (makePPOActor asks the kind's bundle,
/// mlgo/training/learning_kinds.h); only yes/no decisions read `vocab`.
std::unique_ptr<PPOActor> makeYesNoPPOActor(const Problem &problem,
                                            const std::optional<std::filesystem::path> &startingPolicy,
                                            const std::filesystem::path &vocab, const PPOSettings &settings);
std::unique_ptr<PPOActor> makePositionPPOActor(const Problem &problem,
                                               const std::optional<std::filesystem::path> &startingPolicy,
                                               const std::filesystem::path &vocab, const PPOSettings &settings);
std::unique_ptr<PPOActor> makeContinuousPPOActor(const Problem &problem,
                                                 const std::optional<std::filesystem::path> &startingPolicy,
                                                 const std::filesystem::path &vocab, const PPOSettings &settings);

}  // namespace mlgo
