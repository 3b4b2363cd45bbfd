#pragma once
// ml-compiler-opt's size reward (compiler_opt/rl/compilation_runner.py):
//   reward = 1 - (policy_size + delta) / (baseline + delta)
// given to every decision of the module (discount 0). For training the
// baseline is a per-module moving average of the policy's own sizes, started
// at the default heuristic's size; for reporting it is the default size.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/driver/compile_result.h"
#include "mlgo/policy/trajectory.h"

namespace mlgo {

struct Corpus;
class Problem;

inline constexpr double kRewardDelta = 0.01;  ///< ml-compiler-opt's _DELTA

double sizeReward(double policySize, double baselineSize, double delta = kRewardDelta);

/// Per-module baselines: the default heuristic's size and the moving average.
class RewardBaselines {
 public:
  struct Entry {
    double defaultSize = 0;
    double movingAverage = 0;
  };

  explicit RewardBaselines(double decay = 0.8, double delta = kRewardDelta) : decay_(decay), delta_(delta) {}

  bool has(const std::string &module) const { return entries_.count(module) != 0; }
  /// Starts a module: default size and moving average both `size`. Keeps an
  /// existing entry (the moving average must survive).
  void addDefault(const std::string &module, double size);
  const Entry &at(const std::string &module) const;

  struct Rewards {
    double training = 0;    ///< against the moving average (before this update)
    double vsDefault = 0;   ///< against the default heuristic's size
  };
  /// The rewards of a compile of `module` that measured `size`, then folds the
  /// size into the moving average: avg = avg * decay + size * (1 - decay).
  Rewards observe(const std::string &module, double size);

  size_t size() const { return entries_.size(); }
  /// Exact round trip (doubles are written with 17 significant digits).
  nlohmann::json toJson() const;
  /// Throws InputError naming `file` and `entry` (and the module) when an
  /// entry is not an object of two finite numbers.
  static RewardBaselines fromJson(const nlohmann::json &json, double decay, double delta, const std::string &file,
                                  const std::string &entry);

 private:
  double decay_, delta_;
  std::map<std::string, Entry> entries_;
};

/// The key of one reward segment of a module (register allocation: a
/// function) among RewardBaselines' keys.
std::string segmentBaselineKey(const std::string &module, const std::string &segment);

/// The training reward of every decision of a compile of `module` whose
/// decisions fall in reward segments (ml-compiler-opt's per-function reward
/// for register allocation): each decision gets its segment's reward against
/// the segment's moving average in `baselines` (keyed by segmentBaselineKey),
/// measured as `values` (segment -> value) say; then each segment's average
/// is updated once. Decisions before the first segment, and those of a segment
/// without a value or a baseline, get `moduleReward`.
/// With `moduleScale` (the module's moving average + delta), a segment's
/// reward is instead its change, average - value, divided by it: the share of
/// the module's measure the segment gained, so that the segments' rewards add
/// up to about the module's and a hot function counts as much as it weighs.
std::vector<double> segmentRewards(const Trajectory &trajectory, const std::string &module,
                                   const std::map<std::string, double> &values, RewardBaselines &baselines,
                                   double moduleReward, std::optional<double> moduleScale = std::nullopt);

/// Mean and the percentiles ml-compiler-opt logs as reward_distribution
/// (numpy.percentile, linear interpolation).
struct RewardDistribution {
  double mean = 0, p10 = 0, p25 = 0, p50 = 0, p75 = 0, p90 = 0;
  size_t count = 0;
  nlohmann::json toJson() const;
};
RewardDistribution summarizeRewards(std::vector<double> rewards);

/// Refuses baselines (`given`: a trace directory or its baselines.json) that
/// were not measured on `corpus`'s modules for `problem`: the trace's
/// description (beside the file) names another problem, or a module's
/// recorded fingerprint (CompilerDriver::moduleFingerprint) differs from the
/// corpus module of that name, e.g. the same sources built with other flags.
/// A trace from before fingerprints must name the same corpus directory.
/// Throws InputError naming the file and entry.
void checkBaselinesFit(const std::filesystem::path &given, const Problem &problem, const Corpus &corpus);

/// Adds the default heuristic's sizes a trace recorded (`given`: a trace
/// directory or its baselines.json) to `baselines`. Throws InputError naming
/// the file and entry for another metric or a malformed size.
void readTraceBaselines(const std::filesystem::path &given, SizeMetric metric, RewardBaselines &baselines);

/// Adds the default heuristic's values of a problem's measure (e.g.
/// "regalloc_score") a trace recorded under "measures" to `baselines`.
/// Throws InputError naming the file and entry when the measure is missing
/// or a value is not a finite number >= 0.
void readTraceMeasures(const std::filesystem::path &given, const std::string &measure, RewardBaselines &baselines);

/// Keeps the metrics.jsonl lines of iterations up to `iteration`: a run
/// killed after writing a record but before saving its state redoes that
/// iteration when resumed.
void truncateMetrics(const std::filesystem::path &path, int64_t iteration);

}  // namespace mlgo
