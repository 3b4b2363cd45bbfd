#pragma once
// train-ppo's update: the actor's network and Adam, and the PPO gradient
// steps of a policy iteration on windows of its collected decisions. Runs
// LibTorch on one thread. Part of the PPO run (ppo_trainer.cpp).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "mlgo/policy/sampling_policy.h"
#include "mlgo/training/ppo/ppo_actor.h"
#include "mlgo/training/ppo/ppo_collection.h"
#include "mlgo/training/ppo/ppo_loss.h"
#include "mlgo/training/ppo/ppo_rewards.h"
#include "mlgo/training/ppo/ppo_settings.h"
#include "mlgo/training/shared/torch_network.h"

namespace mlgo {

/// The loss terms and statistics of an iteration's gradient steps, summed.
struct TrainingMetrics {
  double total = 0, policyGradient = 0, entropyRegularization = 0, klPenalty = 0, l2 = 0;
  double entropy = 0, kl = 0, clippedShare = 0;
  int64_t steps = 0;
  /// The means per step, as the metrics record holds them.
  nlohmann::json toJson(double klBeta) const;
};

/// What an iteration's update did.
struct Learning {
  TrainingMetrics metrics;
  double trainingRewardMean = 0;
  double seconds = 0;
};

/// batch_size windows of train_sequence_length consecutive decisions, at
/// start positions drawn from a stream keyed by seed, iteration and step.
torch::Tensor sampleWindows(int64_t decisions, int64_t windows, int64_t length, uint64_t seed, int64_t iteration,
                            int64_t step);

class PPOUpdate {
 public:
  /// Seeds LibTorch, then initializes the actor's network and Adam.
  PPOUpdate(const PPOSettings &settings, std::unique_ptr<PPOActor> actor, uint64_t seed);

  /// The starting policy's weights, its logits divided by `temperature`.
  void warmStart(double temperature);
  /// The iteration's gradient steps on its collection and rewards.
  Learning learn(const Collection &collection, const IterationRewards &rewards, int64_t iteration);
  /// The network as a sampling policy, recording `training` in its metadata.
  std::unique_ptr<SamplingPolicy> policy(const nlohmann::json &training) const;

  double klBeta() const { return klBeta_; }
  void setKlBeta(double klBeta) { klBeta_ = klBeta; }
  /// network.pt and optimizer.pt in `directory`, and back (InputError naming a damaged file).
  void save(const std::filesystem::path &directory);
  void load(const std::filesystem::path &directory);

 private:
  void gradientStep(const PPOBatch &batch, const std::vector<torch::Tensor> &kernels, int64_t iteration, int64_t step,
                    TrainingMetrics &metrics);

  const PPOSettings &settings_;
  const PPOHyperparameters hyper_;
  const uint64_t seed_;
  std::unique_ptr<PPOActor> actor_;
  TorchMlp network_{nullptr};
  std::optional<torch::optim::Adam> optimizer_;
  double klBeta_;
};

}  // namespace mlgo
