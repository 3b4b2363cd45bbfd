#pragma once
// train-ppo's collection: each policy iteration's sample of modules compiled
// with the current stochastic policy, on this process's driver threads or
// across the ranks of an mpirun. Part of the PPO run (ppo_trainer.cpp).
#include <cstdint>
#include <optional>
#include <vector>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/policy/sampling_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/training/shared/collector.h"
#include "mlgo/training/ppo/distributed_collection.h"
#include "mlgo/training/ppo/ppo_settings.h"
#include "mlgo/training/ppo/ppo_trainer.h"
#include "mlgo/training/shared/trajectory_memo.h"

namespace mlgo {

class PPORewards;

/// One policy iteration's collection: the modules compiled with the policy.
struct Collection {
  std::vector<CollectedModule> modules;
  CollectionTraffic traffic;
  double seconds = 0;
};

class PPOCollection {
 public:
  PPOCollection(const PPOOptions &options, const PPOSettings &settings, const CompilerDriver &driver,
                const Corpus &corpus);

  /// Samples the iteration's modules (by seed and iteration) and compiles
  /// them with `policy`, and with the default where `rewards` has no baseline yet.
  Collection collect(int64_t iteration, const SamplingPolicy &policy, const PPORewards &rewards);
  /// Tells the other ranks that collection is over (nothing on one process).
  void finish();

  bool distributed() const { return distributed_; }
  /// Trajectories compiled so far (with the compile memo), replayed where later samples repeat them.
  const TrajectoryMemo *trajectories() const { return trajectories_ ? &*trajectories_ : nullptr; }

 private:
  const PPOOptions &options_;
  const CompilerDriver &driver_;
  const Corpus &corpus_;
  const bool distributed_;
  const size_t modulesPerIteration_;
  std::optional<TrajectoryMemo> trajectories_;
};

}  // namespace mlgo
