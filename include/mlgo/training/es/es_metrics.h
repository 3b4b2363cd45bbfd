#pragma once
// train-es's metrics: one record per iteration in metrics.jsonl (a resumed
// run's file cut back to its saved iteration). Part of the ES run
// (es_trainer.cpp); the command adds the TensorBoard events.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mlgo/distributed/cluster.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/training/es/es_evaluation.h"
#include "mlgo/training/shared/trajectory_memo.h"

namespace mlgo {

/// The metrics record of an iteration (keys in docs/formats.md). `memo` and
/// `trajectories` are null without the compile memo, `cluster` on one process.
nlohmann::json esIterationMetrics(int64_t iteration, const ESScores &scores, const std::string &measure,
                                  double elapsedSeconds, const CompileMemo *memo, const TrajectoryMemo *trajectories,
                                  const Cluster *cluster);

class ESMetricsLog {
 public:
  /// A fresh run writes config.json and an empty metrics.jsonl; a resumed
  /// one keeps the records up to `resumedIteration`.
  ESMetricsLog(const std::filesystem::path &output, const nlohmann::json &config,
               std::optional<int64_t> resumedIteration);
  void write(const nlohmann::json &metrics);

 private:
  std::filesystem::path path_;
  std::ofstream file_;
};

}  // namespace mlgo
