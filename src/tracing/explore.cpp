#include "mlgo/tracing/explore.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "mlgo/distributed/rank_share.h"
#include "mlgo/driver/compile_worker.h"
#include "mlgo/driver/module_journal.h"
#include "mlgo/policy/decision_steer.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/crc32c.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/text_input.h"
#include "mlgo/support/varint.h"
#include "mlgo/tracing/explore_baseline.h"
#include "mlgo/support/sampling.h"
#include "mlgo/trace/trace_writer.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// Flips per segment: segment key -> decision numbers within the segment.
using FlipSet = std::map<std::string, std::set<size_t>>;

/// What a compile is scored by: the problem's measure (and its values per
/// segment where the problem has them), or the .text size.
class Metric {
 public:
  explicit Metric(const Problem &problem)
      : problem_(problem), name_(exploreMetric(problem)), segmented_(name_ != "text" && !problem.segmentName().empty()) {}
  bool segmented() const { return segmented_; }
  double ofModule(const CompileResult &result, const PipelineHook &hook) const {
    if (!result.ok()) return kUnmeasured;
    if (name_ == "text") return double(result.sizes.text);
    return valueOr(problem_.measures(hook), name_);
  }
  /// Per segment key; empty when the metric has no segments.
  std::map<std::string, double> ofSegments(const CompileResult &result, const PipelineHook &hook) const {
    if (!segmented_ || !result.ok()) return {};
    const SegmentMeasures measures = problem_.segmentMeasures(hook);
    auto found = measures.find(name_);
    return found == measures.end() ? std::map<std::string, double>{} : found->second;
  }
  static constexpr double kUnmeasured = std::numeric_limits<double>::infinity();
  static double valueOr(const std::map<std::string, double> &values, const std::string &key) {
    auto found = values.find(key);
    return found == values.end() ? kUnmeasured : found->second;
  }

 private:
  const Problem &problem_;
  std::string name_;
  bool segmented_;
};

/// One compile: its result, its decisions, and for each what the baseline
/// would flip and how sure it was, split into segments.
struct Steered {
  CompileResult result;
  trace::ModuleTrace record;
  std::vector<double> margins;
  std::vector<char> flippable;
  std::vector<std::pair<std::string, size_t>> segments;  ///< key, first decision
  FlipSet flips;
  double value = Metric::kUnmeasured;
  std::map<std::string, double> segmentValues;
  /// The value of segment `key` (the whole compile's when unsegmented).
  double valueOf(const std::string &key, bool segmented) const {
    return segmented ? Metric::valueOr(segmentValues, key) : value;
  }
  size_t segmentEnd(size_t index) const {
    return index + 1 < segments.size() ? segments[index + 1].second : record.decisions();
  }
};

/// The baseline's decisions with the ones in `flips` changed to the
/// baseline's alternative. Records every decision (features, the default
/// heuristic's action, the action taken) and where each segment begins.
class FlipSteer final : public DecisionSteer {
 public:
  FlipSteer(const ExploreBaseline &baseline, bool segmented, Steered &out)
      : baseline_(baseline), segmented_(segmented), out_(out) {}
  bool wantsDefaultAction() const override { return true; }
  void beginSegment(std::string_view key) override {
    if (segmented_) enter(std::string(key));
  }
  int64_t decide(const int64_t *features, int64_t defaultAction) override {
    if (out_.segments.empty()) enter("");  // one segment: the whole compile
    const ExploreChoice choice = baseline_.choose(features, defaultAction);
    const bool flip = here_ && here_->count(inSegment_) && choice.alternative >= 0;
    ++inSegment_;
    out_.margins.push_back(choice.margin);
    out_.flippable.push_back(choice.alternative >= 0);
    const int64_t action = flip ? choice.alternative : choice.action;
    out_.record.addDecision(features, defaultAction, action);
    return action;
  }

 private:
  void enter(const std::string &key) {
    out_.segments.emplace_back(key, out_.record.decisions());
    auto found = out_.flips.find(key);
    here_ = found == out_.flips.end() ? nullptr : &found->second;
    inSegment_ = 0;
  }
  const ExploreBaseline &baseline_;
  bool segmented_;
  Steered &out_;
  const std::set<size_t> *here_ = nullptr;
  size_t inSegment_ = 0;
};

/// The decisions of segment `index` to flip one at a time (numbers within
/// the segment, ascending): the least certain flippable ones, or `count`
/// spread evenly over them when nothing ranks them.
std::vector<size_t> flipCandidates(const Steered &baseline, size_t index, bool ranked, size_t count) {
  const size_t begin = baseline.segments[index].second, end = baseline.segmentEnd(index);
  std::vector<size_t> flippable;
  for (size_t k = begin; k < end; ++k)
    if (baseline.flippable[k]) flippable.push_back(k - begin);
  if (flippable.size() <= count) return flippable;
  std::vector<size_t> candidates;
  if (ranked) {
    std::stable_sort(flippable.begin(), flippable.end(), [&](size_t a, size_t b) {
      return baseline.margins[begin + a] < baseline.margins[begin + b];
    });
    candidates.assign(flippable.begin(), flippable.begin() + count);
    std::sort(candidates.begin(), candidates.end());
  } else {
    for (size_t i = 0; i < count; ++i) candidates.push_back(flippable[i * flippable.size() / count]);
  }
  return candidates;
}

/// The default heuristic's decisions, none of them flippable: the reward
/// baseline's compile when the explored baseline is a policy.
class DefaultActions final : public ExploreBaseline {
 public:
  bool ranked() const override { return false; }
  bool takesDefault() const override { return true; }
  ExploreChoice choose(const int64_t *, int64_t defaultAction) const override { return {defaultAction, -1, 0.0}; }
  std::string fingerprint() const override { return ""; }
};

/// Improving single flips of a segment: (the segment's value, decision).
using Improving = std::map<std::string, std::vector<std::pair<double, size_t>>>;

/// One module's search (steps 1-3 of explore.h), one compile at a time.
class ModuleSearch {
 public:
  ModuleSearch(const CompilerDriver &driver, const CorpusModule &module, const Problem &problem,
               const ExploreSettings &settings, const ExploreBaseline &baseline)
      : driver_(driver), module_(module), problem_(problem), settings_(settings), baseline_(baseline),
        metric_(problem) {}

  ExploredModule run() {
    ExploredModule explored;
    if (!compileBaselines(explored)) return explored;
    for (const auto &segment : base_.segments) keys_.push_back(segment.first);
    // Segments searched within the same compiles need one compile more at
    // the end to record their combined trajectory.
    reserve_ = keys_.size() > 1 ? 1 : 0;
    Improving improving = trySingleFlips(explored);
    combineImprovingFlips(improving);
    Steered best = bestCompile();
    explored.segments = keys_.size();
    explored.compiles = compiles_;
    explored.bestValue = best.value;
    explored.keptFlips = decisionNumbers(best);
    explored.best = std::move(best.record);
    return explored;
  }

 private:
  Steered compile(const ExploreBaseline &baseline, const FlipSet &flips) {
    ++compiles_;
    Steered steered;
    steered.flips = flips;
    steered.record.name = module_.name;
    const trace::DecisionSpec &spec = problem_.decisionSpec();
    steered.record.featureCount = spec.decisionWords();
    steered.record.spec = recordedSpec(spec);  // as the problem's own traces
    FlipSteer steer(baseline, metric_.segmented(), steered);
    const std::shared_ptr<PipelineHook> hook = problem_.steeringHook(steer);
    steered.result = driver_.compile({&module_, "", {hook}});
    steered.record.nativeSize = steered.result.sizes.text;
    steered.value = metric_.ofModule(steered.result, *hook);
    steered.segmentValues = metric_.ofSegments(steered.result, *hook);
    return steered;
  }

  bool withinBudget() const { return compiles_ + reserve_ < settings_.budget; }
  double baseValue(const std::string &key) const { return base_.valueOf(key, metric_.segmented()); }

  /// 1. The default's compile and the baseline's (one compile when the
  /// baseline takes the default's decisions). False when one failed.
  bool compileBaselines(ExploredModule &explored) {
    const DefaultActions defaultActions;
    const ExploreBaseline &reward = baseline_.takesDefault() ? baseline_ : defaultActions;
    Steered defaultCompile = compile(reward, {});
    explored.compiles = compiles_;
    if (!defaultCompile.result.ok()) {
      explored.failure = defaultCompile.result;
      return false;
    }
    explored.defaultValue = defaultCompile.value;
    explored.defaultText = defaultCompile.result.sizes.text;
    base_ = baseline_.takesDefault() ? std::move(defaultCompile) : compile(baseline_, {});
    explored.compiles = compiles_;
    if (!base_.result.ok()) {
      explored.failure = base_.result;
      explored.failure.message = "the baseline policy's compile failed: " + explored.failure.message;
      return false;
    }
    explored.baselineValue = base_.value;
    explored.decisions = base_.record.decisions();
    return true;
  }

  /// 2. Round r flips the r-th candidate of every segment at once; a flip
  /// improves when its segment's value drops below the baseline's. Each
  /// segment keeps its best single flip.
  Improving trySingleFlips(ExploredModule &explored) {
    std::vector<std::vector<size_t>> candidates;
    size_t rounds = 0;
    for (size_t s = 0; s < keys_.size(); ++s) {
      candidates.push_back(flipCandidates(base_, s, baseline_.ranked(), settings_.flips));
      rounds = std::max(rounds, candidates.back().size());
    }
    Improving improving;
    for (size_t r = 0; r < rounds && withinBudget(); ++r) {
      FlipSet flips;
      for (size_t s = 0; s < keys_.size(); ++s)
        if (r < candidates[s].size()) flips[keys_[s]] = {candidates[s][r]};
      Steered flipped = compile(baseline_, flips);
      explored.flipsTried += flips.size();
      for (const auto &[key, decisions] : flips) {
        const double value = flipped.valueOf(key, metric_.segmented());
        if (!(value < baseValue(key))) continue;
        std::vector<std::pair<double, size_t>> &found = improving[key];
        if (found.empty() || value < std::min_element(found.begin(), found.end())->first) kept_[key] = decisions;
        found.emplace_back(value, *decisions.begin());
        ++explored.improvingFlips;
      }
      keepIfCurrent(std::move(flipped));
    }
    for (auto &[key, found] : improving) std::sort(found.begin(), found.end());
    return improving;
  }

  /// 3. Adds each segment's improving flips greedily, best first (its best
  /// one is kept already), one more per segment and compile, keeping each
  /// only while the segment's value keeps dropping.
  void combineImprovingFlips(const Improving &improving) {
    std::map<std::string, double> bestValue;
    for (const auto &[key, found] : improving) bestValue[key] = found.front().first;
    for (size_t i = 1; withinBudget(); ++i) {
      FlipSet trial = kept_;
      std::vector<std::string> tried;
      for (const auto &[key, found] : improving)
        if (i < found.size()) {
          trial[key].insert(found[i].second);
          tried.push_back(key);
        }
      if (tried.empty()) break;
      Steered combined = compile(baseline_, trial);
      for (const std::string &key : tried) {
        const double value = combined.valueOf(key, metric_.segmented());
        if (value < bestValue[key]) {
          kept_[key] = trial[key];
          bestValue[key] = value;
        }
      }
      keepIfCurrent(std::move(combined));
    }
  }

  /// Remembers a compile whose flips are exactly the kept ones: the best
  /// trajectory so far, unless a later compile's flips are kept instead.
  void keepIfCurrent(Steered &&steered) {
    if (steered.flips == kept_) current_ = std::move(steered);
  }

  /// The compile of the kept flips: the baseline's, one already made, or
  /// (segments combined) one more.
  Steered bestCompile() {
    if (kept_.empty()) return std::move(base_);
    if (current_ && current_->flips == kept_) return std::move(*current_);
    return compile(baseline_, kept_);
  }

  /// The kept flips as decision numbers of `best`, ascending.
  std::vector<size_t> decisionNumbers(const Steered &best) const {
    std::vector<size_t> numbers;
    for (const auto &[key, begin] : best.segments) {
      auto kept = kept_.find(key);
      if (kept == kept_.end()) continue;
      for (size_t k : kept->second) numbers.push_back(begin + k);
    }
    std::sort(numbers.begin(), numbers.end());
    return numbers;
  }

  const CompilerDriver &driver_;
  const CorpusModule &module_;
  const Problem &problem_;
  const ExploreSettings &settings_;
  const ExploreBaseline &baseline_;
  Metric metric_;
  size_t compiles_ = 0, reserve_ = 0;
  Steered base_;
  std::vector<std::string> keys_;
  FlipSet kept_;
  std::optional<Steered> current_;
};

}  // namespace

std::string exploreMetric(const Problem &problem) {
  const std::vector<std::string> measures = problem.measureNames();
  return measures.size() == 1 ? measures.front() : "text";
}

ExploredModule exploreModule(const CompilerDriver &driver, const CorpusModule &module, const Problem &problem,
                             const ExploreSettings &settings) {
  std::unique_ptr<ExploreBaseline> defaultOnly;
  if (!settings.baseline) defaultOnly = defaultExploreBaseline(problem);
  const ExploreBaseline &baseline = settings.baseline ? *settings.baseline : *defaultOnly;
  return ModuleSearch(driver, module, problem, settings, baseline).run();
}

namespace {

constexpr const char *kJournal = ".explore-journal";
constexpr const char *kExplorationFile = "exploration.json";

json settingsJson(const ExploreOptions &options, const Problem &problem) {
  const ExploreBaseline *baseline = options.settings.baseline;
  json settings{{"problem", problem.name()},
                {"baseline", options.baselineName},
                {"flips", options.settings.flips},
                {"budget", options.settings.budget},
                {"metric", exploreMetric(problem)}};
  if (baseline && baseline->ranked()) {
    settings["around_default"] = baseline->takesDefault();
    // A policy changed at the same path must not resume an exploration made with the old one.
    settings["baseline_crc32c"] = crc32c(baseline->fingerprint());
  }
  return settings;
}

std::string encodeExplored(const ExploredModule &explored) {
  std::string bytes;
  putBytes(bytes, encodeCompileReply(explored.failure));
  for (double value : {explored.defaultValue, explored.baselineValue, explored.bestValue}) putDouble(bytes, value);
  for (uint64_t value : {explored.defaultText, uint64_t(explored.decisions), uint64_t(explored.segments),
                         uint64_t(explored.compiles), uint64_t(explored.flipsTried), uint64_t(explored.improvingFlips)})
    putVarint(bytes, value);
  putVarint(bytes, explored.keptFlips.size());
  for (size_t k : explored.keptFlips) putVarint(bytes, k);
  putBytes(bytes, explored.ok() ? trace::encodeModule(explored.best) : std::string());
  return bytes;
}

ExploredModule decodeExplored(std::string_view bytes, const trace::DecisionSpec &spec) {
  ByteReader reader(bytes);
  ExploredModule explored;
  explored.failure = decodeCompileReply(std::string(reader.bytes()));
  explored.defaultValue = reader.float64();
  explored.baselineValue = reader.float64();
  explored.bestValue = reader.float64();
  explored.defaultText = reader.varint();
  explored.decisions = reader.varint();
  explored.segments = reader.varint();
  explored.compiles = reader.varint();
  explored.flipsTried = reader.varint();
  explored.improvingFlips = reader.varint();
  explored.keptFlips.resize(reader.varint());
  for (size_t &k : explored.keptFlips) k = reader.varint();
  const std::string_view record = reader.bytes();
  if (explored.ok()) explored.best = trace::decodeModule(record, spec);
  return explored;
}

/// A value of the metric as JSON: sizes as the whole numbers they are.
json metricValue(const std::string &metric, double value) {
  return metric == "text" ? json(uint64_t(value)) : json(value);
}

/// The key of a module's value in exploration.json: "size" for .text, else the metric's name.
std::string valueKey(const std::string &metric) { return metric == "text" ? "size" : metric; }

json moduleFigures(const std::string &name, const std::string &metric, const ExploredModule &explored) {
  const std::string key = valueKey(metric);
  json figures{{"name", name},
               {"default_" + key, metricValue(metric, explored.defaultValue)},
               {"baseline_" + key, metricValue(metric, explored.baselineValue)},
               {"best_" + key, metricValue(metric, explored.bestValue)},
               {"decisions", explored.decisions}};
  if (explored.segments > 1) figures["segments"] = explored.segments;
  figures.update(json{
          {"compiles", explored.compiles},
          {"flips_tried", explored.flipsTried},
          {"improving_flips", explored.improvingFlips},
          {"flips_kept", explored.keptFlips}});
  return figures;
}

}  // namespace

ExploreSummary runExplore(const Corpus &corpus, const CompilerDriver &driver, const Problem &problem,
                          const ExploreOptions &options, const CompilerDriver::Progress &progress, Cluster &cluster) {
  const ExploreSettings &settings = options.settings;
  if (settings.budget < 2) throw UsageError("--budget must allow the baseline compile and one flip (at least 2)");
  if (!settings.baseline) defaultExploreBaseline(problem);  // throws for a problem it cannot explore
  if (options.shards == 0) throw UsageError("--shards must be at least 1");
  const auto start = std::chrono::steady_clock::now();
  const std::string metric = exploreMetric(problem);
  const json settingsRecord = settingsJson(options, problem);
  // Only rank 0 writes; in a single process the journal makes a run resumable.
  std::optional<ModuleJournal> journal;
  if (cluster.isLeader() && !cluster.distributed())
    journal.emplace(options.output / kJournal, settingsRecord, options.resume, "an exploration");

  ExploreSummary summary;
  summary.metric = metric;
  summary.modules = corpus.modules.size();
  std::vector<ExploredModule> explored(corpus.modules.size());
  std::vector<char> fromJournal(corpus.modules.size(), 0);  // written by several threads
  std::mutex progressMutex;
  size_t done = 0;
  auto exploreSlot = [&](size_t slot, size_t total) {
    const CorpusModule &module = corpus.modules[slot];
    std::string bytes;
    if (std::optional<std::string> kept = journal ? journal->find(module) : std::nullopt) {
      bytes = std::move(*kept);
      fromJournal[slot] = true;
    } else {
      bytes = encodeExplored(exploreModule(driver, module, problem, settings));
      if (journal) journal->keep(module, bytes);
    }
    if (progress) {
      std::lock_guard<std::mutex> lock(progressMutex);
      progress(++done, total);
    }
    return bytes;
  };
  const unsigned threads = resolveThreadCount(driver.options().threads);
  const std::vector<std::string> outcomes =
      gatherShares(cluster, corpus.modules.size(), [&](const std::vector<size_t> &slots) {
        std::vector<std::string> encoded(slots.size());
        parallelFor(slots.size(), threads, [&](size_t k) { encoded[k] = exploreSlot(slots[k], slots.size()); });
        return encoded;
      });
  if (!cluster.isLeader()) {
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return summary;
  }
  for (size_t slot = 0; slot < outcomes.size(); ++slot) explored[slot] = decodeExplored(outcomes[slot], problem.decisionSpec());

  const json header = trace::traceHeader(problem.name(), problem.decisionSpec());
  trace::TraceWriter writer(options.output, problem.name(), header, options.shards);
  json sizes = json::object(), fingerprints = json::object(), defaultValues = json::object(), figures = json::array(), failures = json::array();
  uint64_t decisions = 0;
  for (size_t slot = 0; slot < explored.size(); ++slot) {
    ExploredModule &module = explored[slot];
    const std::string &name = corpus.modules[slot].name;
    summary.compiles += module.compiles;
    summary.resumed += fromJournal[slot];
    if (!module.ok()) {
      summary.failures.emplace_back(name, failureKindName(module.failure.failure) + std::string(": ") +
                                              module.failure.message);
      failures.push_back({{"name", name},
                          {"failure", failureKindName(module.failure.failure)},
                          {"message", module.failure.message}});
      writer.submit(slot, std::nullopt);
      continue;
    }
    ++summary.explored;
    summary.improved += module.bestValue < module.baselineValue;
    summary.defaultValue += module.defaultValue;
    summary.baselineValue += module.baselineValue;
    summary.bestValue += module.bestValue;
    decisions += module.best.decisions();
    sizes[name] = module.defaultText;
    fingerprints[name] = CompilerDriver::moduleFingerprint(corpus.modules[slot]);
    defaultValues[name] = module.defaultValue;
    figures.push_back(moduleFigures(name, metric, module));
    module.best.position = slot;
    writer.submit(slot, trace::encodeModule(module.best));
  }
  writeFileAtomically(options.output / kExplorationFile,
                      json{{"settings", settingsRecord}, {"modules", figures}}.dump(1) + "\n");
  json description = header;
  description.update(json{{"policy", "explored"},
                          {"exploration", settingsRecord},
                          {"corpus", corpus.directory.string()},
                          {"corpus_modules", corpus.modules.size()},
                          {"modules_traced", summary.explored},
                          {"modules_improved", summary.improved},
                          {"modules_failed", failures},
                          {"decisions", decisions},
                          {"record_bytes", writer.recordBytes()},
                          {metric + "_default", metricValue(metric, summary.defaultValue)},
                          {metric + "_baseline", metricValue(metric, summary.baselineValue)},
                          {metric + "_explored", metricValue(metric, summary.bestValue)},
                          {"mlgo_version", MLGO_VERSION}});
  // As a default trace's: the default's sizes, and its measure where that is what was minimized.
  json baselines{{"metric", "text"}, {"policy", "default"}, {"sizes", sizes}, {"fingerprints", fingerprints}};
  if (metric != "text") baselines["measures"] = json{{metric, defaultValues}};
  writer.finish(description, baselines);
  if (journal) journal->remove();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

std::vector<std::string> exploreDirectoryEntries() {
  std::vector<std::string> entries = trace::traceDirectoryEntries();
  entries.insert(entries.end(), {kExplorationFile, kJournal});
  return entries;
}

}  // namespace mlgo
