#pragma once
// `mlgo train-ppo`: ml-compiler-opt's reinforcement-learning loop
// (train_locally.py with ppo_nn_agent.gin), collecting in-process. Each policy
// iteration samples modules, compiles them with the current stochastic policy
// on the driver's pool, rewards every decision of a module with its size (or
// the problem's measure, `reward_metric`) against the module's moving-average
// baseline, and takes PPO gradient steps. Any problem: yes/no decisions and
// choices among positions (ppo_actor.h).
//
// Output directory:
//   config.json     the resolved config
//   metrics.jsonl   one JSON record per policy iteration
//   policy/         the current policy (greedy use: eval, export), every iteration
//   checkpoints/iteration-N/   every checkpoint_every iterations
//   resume/         what --resume needs: network, optimizer, KL coefficient,
//                   reward baselines, iteration (replaced atomically)
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>

#include <nlohmann/json.hpp>

#include "mlgo/corpus/corpus.h"
#include "mlgo/distributed/cluster.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/problems/problem.h"
#include "mlgo/training/shared/config_schema.h"

namespace mlgo {

/// The keys of PPOSettings (ppo_settings.h): ml-compiler-opt's ppo_nn_agent.gin defaults.
ConfigSchema ppoSchema();

struct PPOOptions {
  std::filesystem::path corpus;
  std::filesystem::path vocab;  ///< yes/no decisions only (empty for positions)
  std::optional<std::filesystem::path> warmstart;  ///< a policy (or training output) directory
  /// A default trace directory (its baselines.json) or a baselines.json file:
  /// the default heuristic's sizes. Modules missing there are compiled once.
  std::optional<std::filesystem::path> baselines;
  std::filesystem::path output;
  nlohmann::json config;  ///< resolved with ppoSchema()
  uint64_t seed = 0;
  bool resume = false;
  DriverOptions driver;
  const Problem *problem = &defaultProblem();
  /// Called with every iteration's metrics record (also in metrics.jsonl).
  std::function<void(const nlohmann::json &)> onMetrics;
  /// Called during collection with modules done and total (of this rank).
  CompilerDriver::Progress onCollectProgress;
  /// The ranks of an MPI run (none: this process alone). Rank 0 runs
  /// trainPPO, the others serveCollectionForPPO.
  Cluster *cluster = nullptr;
};

struct PPOSummary {
  int64_t firstIteration = 0;  ///< 1, or the one after the resumed state
  int64_t lastIteration = 0;
  nlohmann::json lastMetrics;
  double seconds = 0;
};

/// Throws UsageError (bad config, output in use without --resume), InputError
/// (corpus, vocab, warm start, baselines, resume state) and RunStopped when
/// too many modules fail for too long (the last good state stays saved for
/// --resume).
PPOSummary trainPPO(const PPOOptions &options);

/// Ranks other than 0: compile rank 0's collection requests with the corpus
/// and driver settings of `options` until rank 0 is done.
void serveCollectionForPPO(const PPOOptions &options, Cluster &cluster);

}  // namespace mlgo
