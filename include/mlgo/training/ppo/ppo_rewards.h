#pragma once
// train-ppo's rewards: what a compile is rewarded by (a size of its object or
// a measure of the problem), the per-module (and per-function) baselines that
// move with the policy's values, and each decision's reward. Part of the PPO
// run (ppo_trainer.cpp); the state here is part of what --resume restores.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/corpus/corpus.h"
#include "mlgo/problems/problem.h"
#include "mlgo/training/ppo/ppo_collection.h"
#include "mlgo/training/ppo/ppo_settings.h"
#include "mlgo/training/shared/reward.h"

namespace mlgo {

/// What the reward measures of a compile: a size of its object, or one of the
/// problem's measures (register allocation: LLVM's regalloc score).
class RewardMeasure {
 public:
  /// Throws UsageError for something `problem` does not measure.
  RewardMeasure(const std::string &name, const Problem &problem);
  const std::string &name() const { return name_; }
  bool isSize() const { return size_.has_value(); }
  /// The value of a compile that succeeded; nullopt when it was not measured.
  std::optional<double> of(const CompileResult &result, const std::map<std::string, double> &measures) const;
  /// The default heuristic's values a trace recorded, into `baselines`.
  void readTraceDefaults(const std::filesystem::path &trace, RewardBaselines &baselines) const;

 private:
  std::string name_;
  std::optional<SizeMetric> size_;
};

/// The rewards of a collection, in plan order, and what the metrics report.
struct IterationRewards {
  /// Per collected module, per decision of its trajectory (none for failed ones).
  std::vector<std::vector<double>> training;
  std::vector<double> vsDefault;  ///< per module that compiled
  std::vector<std::pair<std::string, std::string>> failures;
  double policyTotal = 0, defaultTotal = 0, compileSeconds = 0;
  size_t decisions = 0;
};

class PPORewards {
 public:
  /// Throws UsageError for a reward_metric or reward_scope `problem` lacks.
  PPORewards(const PPOSettings &settings, const Problem &problem);

  const RewardMeasure &measure() const { return measure_; }
  /// Modules with a baseline.
  size_t baselinesKnown() const { return baselines_.size(); }
  /// Whether collection must also compile `module` with the default heuristic.
  bool needsDefault(const std::string &module) const;
  /// Rewards in plan order (the moving averages move in that order). A
  /// module without a value or a baseline is a failure, its trajectory cleared.
  IterationRewards reward(Collection &collection, const Corpus &corpus);

  /// The default's values a trace or baselines.json recorded (--baselines).
  void readTraceDefaults(const std::filesystem::path &baselines);
  /// The baselines into a resume state, and back (`stateFile` names errors).
  void saveTo(nlohmann::json &state) const;
  void restoreFrom(const nlohmann::json &state, const std::string &stateFile);

 private:
  const std::map<std::string, double> &valuesOf(const SegmentMeasures &measures) const;
  void addSegmentDefaults(const std::string &module, const SegmentMeasures &measures);

  const double decay_, delta_;
  const RewardMeasure measure_;
  RewardBaselines baselines_;
  /// reward_scope is the problem's segment (function), not the module.
  const bool perSegment_;
  /// segment_reward module_share: a function's gain as a share of its module's score.
  const bool sharesOfModule_;
  /// The default's values per segment, and the modules whose segments' defaults are in.
  RewardBaselines segmentBaselines_;
  std::set<std::string> segmentDefaultsKnown_;
};

/// The first few failures of an iteration, for a message.
std::string describeFailures(const std::vector<std::pair<std::string, std::string>> &failures);

}  // namespace mlgo
