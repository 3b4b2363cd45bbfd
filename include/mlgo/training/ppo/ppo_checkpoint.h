#pragma once
// train-ppo's checkpoint and resume: the state after each policy iteration in
// output/resume (replaced atomically), and the checks a resumed run passes
// before it continues. Part of the PPO run (ppo_trainer.cpp).
#include <cstdint>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "mlgo/policy/sampling_policy.h"
#include "mlgo/training/ppo/ppo_rewards.h"
#include "mlgo/training/ppo/ppo_update.h"

namespace mlgo {

/// The state --resume restores beside the network, Adam and the baselines:
/// exactly what the next iteration depends on.
struct ResumeState {
  int64_t iteration = 0;
  int64_t badIterationsInARow = 0;
};

class ResumeDirectory {
 public:
  explicit ResumeDirectory(const std::filesystem::path &output) : target_(output / "resume") {}
  bool exists() const;
  /// The directory holding the saved state (resume/, or resume.old/ after a kill between two renames).
  std::filesystem::path directory() const;

  /// The state after an iteration: network, Adam, policy, state.json.
  void save(const ResumeState &state, const nlohmann::json &config, uint64_t seed, const PPORewards &rewards,
            const SamplingPolicy &policy, PPOUpdate &update) const;
  /// Restores a saved run into `state`, `rewards` and `update` after checking
  /// that it is this run's: the same seed, and a config that differs at most
  /// in what may change on resume (UsageError; InputError for a damaged state).
  void restore(const nlohmann::json &config, uint64_t seed, ResumeState &state, PPORewards &rewards,
               PPOUpdate &update) const;

 private:
  std::filesystem::path target_;
};

}  // namespace mlgo
