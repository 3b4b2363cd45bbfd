#pragma once
// train-ppo's metrics: one record per policy iteration in metrics.jsonl (a
// resumed run's file cut back to its saved iteration) and in a TensorBoard
// event file. Part of the PPO run (ppo_trainer.cpp).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mlgo/distributed/cluster.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/metrics/event_file_writer.h"
#include "mlgo/training/ppo/ppo_collection.h"
#include "mlgo/training/ppo/ppo_rewards.h"
#include "mlgo/training/ppo/ppo_update.h"

namespace mlgo {

/// What an iteration's record says beyond its collection, rewards and update.
struct RunFacts {
  std::string measure;  ///< what the reward measures
  size_t baselinesKnown = 0;
  double klBeta = 0;
  double elapsedSeconds = 0;
  unsigned threads = 0;
  const CompileMemo *memo = nullptr;             ///< cumulative memo statistics, when there is a memo
  const TrajectoryMemo *trajectories = nullptr;  ///< with the memo
  const Cluster *cluster = nullptr;              ///< when collection ran across ranks
};

/// The metrics record of an iteration (keys in docs/formats.md).
nlohmann::json iterationMetrics(int64_t iteration, const Collection &collection, const IterationRewards &rewards,
                                const Learning &learning, const RunFacts &facts);

class PPOMetricsLog {
 public:
  /// A fresh run writes config.json and an empty metrics.jsonl; a resumed one
  /// keeps the records up to `resumedIteration`. A new event file either way:
  /// TensorBoard reads every file of the directory.
  PPOMetricsLog(const std::filesystem::path &output, const nlohmann::json &config,
                std::optional<int64_t> resumedIteration);
  /// Appends the record and its scalars, with the distribution of rewards vs the default.
  void write(const nlohmann::json &metrics, const IterationRewards &rewards, int64_t iteration);

 private:
  std::ofstream metricsFile_;
  std::optional<EventFileWriter> events_;
};

}  // namespace mlgo
