#include "mlgo/training/ppo/ppo_metrics.h"

#include <stdexcept>

#include "mlgo/support/atomic_file.h"
#include "mlgo/metrics/metrics_keys.h"
#include "mlgo/training/shared/reward.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

json iterationMetrics(int64_t iteration, const Collection &collection, const IterationRewards &rewards,
                      const Learning &learning, const RunFacts &facts) {
  const double collectSeconds = collection.seconds;
  const size_t modules = collection.modules.size();
  using namespace metrics_keys;
  json metrics{{kIteration, iteration},
               {kModules, modules},
               {kFailed, rewards.failures.size()},
               {kDecisions, rewards.decisions},
               {kRewardDistribution, summarizeRewards(rewards.vsDefault).toJson()},
               {kTrainingRewardMean, learning.trainingRewardMean},
               {kSize,
                {{kSizeMetric, facts.measure},
                 {kSizePolicy, rewards.policyTotal},
                 {kSizeDefault, rewards.defaultTotal},
                 {kSizeChange, rewards.defaultTotal > 0 ? rewards.policyTotal / rewards.defaultTotal - 1 : 0.0}}},
               {kBaselinesKnown, facts.baselinesKnown},
               {kSeconds,
                {{kCollectSeconds, collectSeconds},
                 {kTrainSeconds, learning.seconds},
                 {kCompileSeconds, rewards.compileSeconds},
                 {kElapsedSeconds, facts.elapsedSeconds}}},
               {kThreads, facts.threads},
               {kDecisionsPerSecond, collectSeconds > 0 ? rewards.decisions / collectSeconds : 0.0},
               {kModulesPerSecond, collectSeconds > 0 ? modules / collectSeconds : 0.0}};
  metrics.update(learning.metrics.toJson(facts.klBeta));
  // Cumulative over the run (this process's compiles; ranks keep their own).
  if (facts.memo) {
    metrics[kMemo] = facts.memo->stats().toJson();
    metrics[kMemo][kTrajectoryBytes] = facts.trajectories->bytes();
  }
  if (facts.cluster)
    metrics[kRanks] = {{kCount, facts.cluster->size()},
                        {kSentBytes, collection.traffic.sentBytes},
                        {kReceivedBytes, collection.traffic.receivedBytes}};
  if (!rewards.failures.empty()) {
    json list = json::array();
    for (const auto &[name, reason] : rewards.failures) list.push_back({{kFailureModule, name}, {kFailureReason, reason}});
    metrics[kFailures] = list;
  }
  return metrics;
}

PPOMetricsLog::PPOMetricsLog(const fs::path &output, const json &config, std::optional<int64_t> resumedIteration) {
  fs::create_directories(output);
  const fs::path metricsPath = output / "metrics.jsonl";
  if (resumedIteration) {
    truncateMetrics(metricsPath, *resumedIteration);
  } else {
    writeFileAtomically(output / "config.json", config.dump(2) + "\n");
    writeFileAtomically(metricsPath, "");
  }
  metricsFile_.open(metricsPath, std::ios::app);
  if (!metricsFile_) throw std::runtime_error("cannot write " + metricsPath.string());
  events_.emplace(output);
}

void PPOMetricsLog::write(const json &metrics, const IterationRewards &rewards, int64_t iteration) {
  metricsFile_ << metrics.dump() << "\n" << std::flush;
  json scalars = metrics;
  scalars.erase(metrics_keys::kIteration);
  events_->addScalars(scalars, iteration);
  events_->addHistogram(metrics_keys::kRewardDistribution, iteration, rewards.vsDefault);
  events_->flush();
}

}  // namespace mlgo
