#include "mlgo/training/es/es_metrics.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "mlgo/support/atomic_file.h"
#include "mlgo/metrics/metrics_keys.h"
#include "mlgo/training/shared/reward.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

json esIterationMetrics(int64_t iteration, const ESScores &scores, const std::string &measure, double elapsedSeconds,
                        const CompileMemo *memo, const TrajectoryMemo *trajectories, const Cluster *cluster) {
  const auto [worst, best] = std::minmax_element(scores.fitness.begin(), scores.fitness.end());
  const double mean =
      std::accumulate(scores.fitness.begin(), scores.fitness.end(), 0.0) / double(scores.fitness.size());
  const ESFitness &policy = scores.policy;
  using namespace metrics_keys;
  json metrics{{kIteration, iteration},
               {kModules, scores.modules},
               {kCandidates, scores.fitness.size()},
               {kFitness, {{kMean, mean}, {kFitnessBest, *best}, {kFitnessWorst, *worst}}},
               {kPolicyReward, policy.meanReward},
               {kSize,
                {{kSizeMetric, measure},
                 {kSizePolicy, policy.policyMeasure},
                 {kSizeDefault, policy.defaultMeasure},
                 {kSizeChange, policy.defaultMeasure > 0 ? policy.policyMeasure / policy.defaultMeasure - 1 : 0.0}}},
               {kCompiles, scores.compiles},
               {kReplayed, scores.replayed},
               {kFailed, scores.failed},
               {kSeconds, {{kCollectSeconds, scores.seconds}, {kElapsedSeconds, elapsedSeconds}}}};
  if (memo) {
    metrics[kMemo] = memo->stats().toJson();
    metrics[kMemo][kTrajectoryBytes] = trajectories->bytes();
  }
  if (cluster) metrics[kRanks] = {{kCount, cluster->size()}};
  return metrics;
}

ESMetricsLog::ESMetricsLog(const fs::path &output, const json &config, std::optional<int64_t> resumedIteration)
    : path_(output / "metrics.jsonl") {
  if (resumedIteration) {
    truncateMetrics(path_, *resumedIteration);
  } else {
    writeFileAtomically(output / "config.json", config.dump(2) + "\n");
    writeFileAtomically(path_, "");
  }
}

void ESMetricsLog::write(const json &metrics) {
  if (!file_.is_open()) {
    file_.open(path_, std::ios::app);
    if (!file_) throw std::runtime_error("cannot write " + path_.string());
  }
  file_ << metrics.dump() << "\n" << std::flush;
}

}  // namespace mlgo
