#include "mlgo/training/ppo/ppo_rewards.h"

#include <algorithm>

#include "mlgo/support/errors.h"

namespace mlgo {

using nlohmann::json;

RewardMeasure::RewardMeasure(const std::string &name, const Problem &problem)
    : name_(name), size_(parseSizeMetric(name)) {
  const std::vector<std::string> measures = problem.measureNames();
  if (size_ || std::find(measures.begin(), measures.end(), name) != measures.end()) return;
  std::string known = "text, text+data";
  for (const std::string &measure : measures) known += ", " + measure;
  throw UsageError("reward_metric: \"" + name + "\" is not something " + problem.name() + " measures (" + known + ")");
}

std::optional<double> RewardMeasure::of(const CompileResult &result,
                                        const std::map<std::string, double> &measures) const {
  if (size_) return double(measure(result.sizes, *size_));
  auto found = measures.find(name_);
  if (found == measures.end()) return std::nullopt;
  return found->second;
}

void RewardMeasure::readTraceDefaults(const std::filesystem::path &trace, RewardBaselines &baselines) const {
  if (size_)
    readTraceBaselines(trace, *size_, baselines);
  else
    readTraceMeasures(trace, name_, baselines);
}

namespace {

/// Whether reward_scope asks for rewards per segment; throws UsageError when
/// the problem or the reward measure has no segments.
bool rewardsPerSegment(const PPOSettings &settings, const Problem &problem, const RewardMeasure &measure) {
  if (settings.rewardScope == "module") return false;
  const std::string segment = problem.segmentName();
  if (segment.empty() || settings.rewardScope != segment)
    throw UsageError("reward_scope: \"" + settings.rewardScope + "\" is not a scope " + problem.name() +
                     " rewards (module" + (segment.empty() ? std::string() : ", " + segment) + ")");
  if (measure.isSize())
    throw UsageError("reward_scope \"" + segment + "\" needs a reward_metric " + problem.name() + " measures per " +
                     segment + ", not the object's size \"" + measure.name() + "\"");
  return true;
}

/// Why a compile gave no reward: its failure, or that it did not measure what
/// the reward measures.
std::string describeFailure(const CompileResult &result, const std::string &measure) {
  if (result.ok()) return "compiled, but no " + measure + " was measured";
  return std::string(failureKindName(result.failure)) + ": " + result.message;
}

}  // namespace

PPORewards::PPORewards(const PPOSettings &settings, const Problem &problem)
    : decay_(settings.decay),
      delta_(settings.delta),
      measure_(settings.rewardMetric, problem),
      baselines_(decay_, delta_),
      perSegment_(rewardsPerSegment(settings, problem, measure_)),
      sharesOfModule_(settings.segmentReward == "module_share"),
      segmentBaselines_(decay_, delta_) {}

bool PPORewards::needsDefault(const std::string &module) const {
  return !baselines_.has(module) || (perSegment_ && !segmentDefaultsKnown_.count(module));
}

IterationRewards PPORewards::reward(Collection &collection, const Corpus &corpus) {
  IterationRewards rewards;
  rewards.training.resize(collection.modules.size());
  for (size_t i = 0; i < collection.modules.size(); ++i) {
    CollectedModule &module = collection.modules[i];
    const std::string &name = corpus.modules[module.module].name;
    rewards.compileSeconds += module.result.seconds + (module.defaultResult ? module.defaultResult->seconds : 0.0);
    if (module.defaultResult) {
      const CompileResult &byDefault = *module.defaultResult;
      const std::optional<double> defaultValue =
          byDefault.ok() ? measure_.of(byDefault, module.defaultMeasures) : std::nullopt;
      if (defaultValue) {
        baselines_.addDefault(name, *defaultValue);
        if (perSegment_) addSegmentDefaults(name, module.defaultSegmentMeasures);
      } else {
        rewards.failures.emplace_back(name, "default heuristic: " + describeFailure(byDefault, measure_.name()));
        // Without a baseline its decisions cannot be rewarded.
        module.result.failure = module.defaultResult->failure;
        module.trajectory.clear();
        continue;
      }
    }
    const std::optional<double> value = module.result.ok() ? measure_.of(module.result, module.measures) : std::nullopt;
    if (!value) {
      rewards.failures.emplace_back(name, describeFailure(module.result, measure_.name()));
      module.trajectory.clear();
      continue;
    }
    rewards.policyTotal += *value;
    rewards.defaultTotal += baselines_.at(name).defaultSize;
    // module_share divides by the module's average before this compile moves it.
    const double moduleScale = baselines_.at(name).movingAverage + delta_;
    const RewardBaselines::Rewards reward = baselines_.observe(name, *value);
    rewards.training[i] =
        perSegment_ ? segmentRewards(module.trajectory, name, valuesOf(module.segmentMeasures), segmentBaselines_,
                                     reward.training, sharesOfModule_ ? std::optional(moduleScale) : std::nullopt)
                    : std::vector<double>(module.trajectory.decisions(), reward.training);
    rewards.vsDefault.push_back(reward.vsDefault);
    rewards.decisions += module.trajectory.decisions();
  }
  return rewards;
}

void PPORewards::readTraceDefaults(const std::filesystem::path &baselines) {
  measure_.readTraceDefaults(baselines, baselines_);
}

void PPORewards::saveTo(json &state) const {
  state["baselines"] = baselines_.toJson();
  state["segment_baselines"] = segmentBaselines_.toJson();
  state["segment_defaults_known"] = segmentDefaultsKnown_;
}

void PPORewards::restoreFrom(const json &state, const std::string &stateFile) {
  baselines_ = RewardBaselines::fromJson(state["baselines"], decay_, delta_, stateFile, "baselines");
  // Runs saved before rewards per segment have neither key.
  segmentBaselines_ = RewardBaselines::fromJson(state.value("segment_baselines", json::object()), decay_, delta_,
                                                stateFile, "segment_baselines");
  segmentDefaultsKnown_ = state.value("segment_defaults_known", std::set<std::string>());
}

/// The segment values of the reward's measure.
const std::map<std::string, double> &PPORewards::valuesOf(const SegmentMeasures &measures) const {
  static const std::map<std::string, double> none;
  auto found = measures.find(measure_.name());
  return found == measures.end() ? none : found->second;
}

void PPORewards::addSegmentDefaults(const std::string &module, const SegmentMeasures &measures) {
  for (const auto &[segment, value] : valuesOf(measures))
    segmentBaselines_.addDefault(segmentBaselineKey(module, segment), value);
  segmentDefaultsKnown_.insert(module);
}

std::string describeFailures(const std::vector<std::pair<std::string, std::string>> &failures) {
  std::string text;
  for (size_t i = 0; i < failures.size() && i < 3; ++i)
    text += (i ? "; " : "") + failures[i].first + ": " + failures[i].second;
  if (failures.size() > 3) text += "; and " + std::to_string(failures.size() - 3) + " more";
  return text;
}

}  // namespace mlgo
