#include "mlgo/training/shared/reward.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "mlgo/trace/trace_format.h"
#include "mlgo/metrics/metrics_keys.h"
#include "mlgo/vocab/quantiles.h"

namespace mlgo {

double sizeReward(double policySize, double baselineSize, double delta) {
  return 1.0 - (policySize + delta) / (baselineSize + delta);
}

void RewardBaselines::addDefault(const std::string &module, double size) {
  entries_.emplace(module, Entry{size, size});
}

const RewardBaselines::Entry &RewardBaselines::at(const std::string &module) const {
  auto found = entries_.find(module);
  if (found == entries_.end()) throw std::logic_error("no reward baseline for module " + module);
  return found->second;
}

RewardBaselines::Rewards RewardBaselines::observe(const std::string &module, double size) {
  auto found = entries_.find(module);
  if (found == entries_.end()) throw std::logic_error("no reward baseline for module " + module);
  Entry &entry = found->second;
  Rewards rewards{sizeReward(size, entry.movingAverage, delta_), sizeReward(size, entry.defaultSize, delta_)};
  entry.movingAverage = entry.movingAverage * decay_ + size * (1 - decay_);
  return rewards;
}

nlohmann::json RewardBaselines::toJson() const {
  nlohmann::json modules = nlohmann::json::object();
  for (const auto &[name, entry] : entries_)
    modules[name] = {{"default", entry.defaultSize}, {"moving_average", entry.movingAverage}};
  return modules;
}

RewardBaselines RewardBaselines::fromJson(const nlohmann::json &json, double decay, double delta,
                                          const std::string &file, const std::string &entry) {
  if (!json.is_object()) throw InputError(describeInputProblem(file, entry, "not an object of module baselines"));
  RewardBaselines baselines(decay, delta);
  for (const auto &[name, value] : json.items()) {
    auto number = [&](const char *key) {
      if (!value.is_object() || !value.contains(key) || !value[key].is_number() ||
          !std::isfinite(value[key].get<double>()))
        throw InputError(
            describeInputProblem(file, entry + "." + name, std::string("no finite number \"") + key + "\""));
      return value[key].get<double>();
    };
    baselines.entries_[name] = {number("default"), number("moving_average")};
  }
  return baselines;
}

std::string segmentBaselineKey(const std::string &module, const std::string &segment) {
  return module + "|" + segment;
}

std::vector<double> segmentRewards(const Trajectory &trajectory, const std::string &module,
                                   const std::map<std::string, double> &values, RewardBaselines &baselines,
                                   double moduleReward, std::optional<double> moduleScale) {
  std::vector<double> rewards(trajectory.decisions(), moduleReward);
  // Per segment key: its reward, computed (and its average moved) at its first
  // segment only; none without a value or a baseline.
  std::map<std::string_view, std::optional<double>> rewardOfSegment;
  for (size_t s = 0; s < trajectory.segments.size(); ++s) {
    const Trajectory::Segment &segment = trajectory.segments[s];
    auto [reward, first] = rewardOfSegment.try_emplace(segment.key);
    if (first) {
      const std::string key = segmentBaselineKey(module, segment.key);
      auto value = values.find(segment.key);
      if (value != values.end() && baselines.has(key)) {
        const double average = baselines.at(key).movingAverage;
        const double relative = baselines.observe(key, value->second).training;
        reward->second = moduleScale ? (average - value->second) / *moduleScale : relative;
      }
    }
    if (!reward->second) continue;
    const size_t end = s + 1 < trajectory.segments.size() ? trajectory.segments[s + 1].firstDecision : rewards.size();
    for (size_t d = segment.firstDecision; d < end && d < rewards.size(); ++d) rewards[d] = *reward->second;
  }
  return rewards;
}

nlohmann::json RewardDistribution::toJson() const {
  using namespace metrics_keys;
  return {{kMean, mean}, {kP10, p10}, {kP25, p25}, {kP50, p50}, {kP75, p75}, {kP90, p90}, {kCount, count}};
}

RewardDistribution summarizeRewards(std::vector<double> rewards) {
  RewardDistribution distribution;
  distribution.count = rewards.size();
  if (rewards.empty()) return distribution;
  std::sort(rewards.begin(), rewards.end());
  distribution.mean = std::accumulate(rewards.begin(), rewards.end(), 0.0) / rewards.size();
  distribution.p10 = quantileOfSorted(rewards, 0.10);
  distribution.p25 = quantileOfSorted(rewards, 0.25);
  distribution.p50 = quantileOfSorted(rewards, 0.50);
  distribution.p75 = quantileOfSorted(rewards, 0.75);
  distribution.p90 = quantileOfSorted(rewards, 0.90);
  return distribution;
}

namespace {

std::filesystem::path baselinesFile(const std::filesystem::path &given) {
  return std::filesystem::is_directory(given) ? given / trace::kBaselinesFile : given;
}

/// Whether the file records any module's value: an empty one (a served
/// trace's) fits every corpus.
bool recordsModules(const nlohmann::json &file) {
  if (file.contains("sizes") && file["sizes"].is_object() && !file["sizes"].empty()) return true;
  if (!file.contains("measures") || !file["measures"].is_object()) return false;
  for (const auto &[measure, values] : file["measures"].items())
    if (values.is_object() && !values.empty()) return true;
  return false;
}

void checkFingerprints(const std::string &where, const nlohmann::json &fingerprints, const Corpus &corpus) {
  if (!fingerprints.is_object()) throw InputError(describeInputProblem(where, "fingerprints", "not an object"));
  for (const CorpusModule &module : corpus.modules) {
    auto recorded = fingerprints.find(module.name);
    if (recorded == fingerprints.end()) continue;
    if (!recorded->is_string())
      throw InputError(describeInputProblem(where, "fingerprints." + module.name, "not a string"));
    const std::string current = CompilerDriver::moduleFingerprint(module);
    if (!current.empty() && *recorded != current)
      throw InputError(describeInputProblem(
          where, "fingerprints." + module.name,
          "measured on another build of " + module.name + " than the one in " + corpus.directory.string() +
              " (its bitcode or command line differ, e.g. another -O level): trace this corpus with "
              "mlgo default-trace and pass that trace"));
  }
}

void checkRecordedCorpus(const std::filesystem::path &descriptionPath, const nlohmann::json &description,
                         const Corpus &corpus) {
  const std::string recorded = description.value("corpus", "");
  std::error_code ignored;
  if (!recorded.empty() && std::filesystem::weakly_canonical(recorded, ignored) ==
                               std::filesystem::weakly_canonical(corpus.directory, ignored))
    return;
  throw InputError(describeInputProblem(
      descriptionPath.string(), "corpus",
      "the baselines were measured on \"" + recorded + "\", not on " + corpus.directory.string() +
          ", and this trace predates module fingerprints, so mlgo cannot tell whether the modules agree: trace " +
          corpus.directory.string() + " with mlgo default-trace and pass that trace"));
}

}  // namespace

void checkBaselinesFit(const std::filesystem::path &given, const Problem &problem, const Corpus &corpus) {
  const std::filesystem::path path = baselinesFile(given);
  const nlohmann::json file = readJsonFile(path);
  if (!file.is_object()) throw InputError(describeInputProblem(path.string(), "", "not a JSON object"));
  const std::filesystem::path descriptionPath = path.parent_path() / trace::kDescriptionFile;
  std::optional<nlohmann::json> description;
  if (std::filesystem::exists(descriptionPath)) {
    description = readJsonFile(descriptionPath);
    const std::string traced = description->is_object() ? description->value("problem", "") : "";
    if (traced != problem.name())
      throw InputError(describeInputProblem(descriptionPath.string(), "problem",
                                            "the baselines are the default's for \"" + traced +
                                                "\", not for " + problem.name()));
  }
  if (file.contains("fingerprints"))
    checkFingerprints(path.string(), file["fingerprints"], corpus);
  else if (description && recordsModules(file))
    checkRecordedCorpus(descriptionPath, *description, corpus);
}

void readTraceBaselines(const std::filesystem::path &given, SizeMetric metric, RewardBaselines &baselines) {
  const std::filesystem::path path = baselinesFile(given);
  const nlohmann::json file = readJsonFile(path);
  const std::string recorded = file.value("metric", "");
  if (recorded != sizeMetricName(metric))
    throw InputError(describeInputProblem(path.string(), "metric",
                                          "baselines measure \"" + recorded + "\" but the reward uses \"" +
                                              sizeMetricName(metric) + "\""));
  if (!file.contains("sizes") || !file["sizes"].is_object())
    throw InputError(describeInputProblem(path.string(), "sizes", "missing or not an object"));
  for (const auto &[name, size] : file["sizes"].items()) {
    if (!size.is_number() || size.get<double>() < 0)
      throw InputError(describeInputProblem(path.string(), "sizes." + name, "not a size in bytes"));
    baselines.addDefault(name, size.get<double>());
  }
}

void readTraceMeasures(const std::filesystem::path &given, const std::string &measure, RewardBaselines &baselines) {
  const std::filesystem::path path = baselinesFile(given);
  const nlohmann::json file = readJsonFile(path);
  const std::string entry = "measures." + measure;
  if (!file.contains("measures") || !file["measures"].is_object() || !file["measures"].contains(measure) ||
      !file["measures"][measure].is_object())
    throw InputError(describeInputProblem(path.string(), entry, "missing: not a default trace of this problem"));
  for (const auto &[name, value] : file["measures"][measure].items()) {
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
      throw InputError(describeInputProblem(path.string(), entry + "." + name, "not a finite number >= 0"));
    baselines.addDefault(name, value.get<double>());
  }
}

void truncateMetrics(const std::filesystem::path &path, int64_t iteration) {
  if (!std::filesystem::exists(path)) return;
  std::string kept;
  forEachLine(readFile(path), [&](size_t, std::string_view line) {
    if (line.empty()) return;
    const nlohmann::json record = parseJsonOrDiscarded(line);
    if (!record.is_discarded() && record.value("iteration", int64_t(0)) <= iteration) kept += std::string(line) + "\n";
  });
  writeFileAtomically(path, kept);
}

}  // namespace mlgo
