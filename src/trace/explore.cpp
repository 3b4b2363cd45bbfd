#include "mlgo/trace/explore.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <optional>
#include <set>

#include "mlgo/distributed/rank_share.h"
#include "mlgo/driver/compile_worker.h"
#include "mlgo/driver/module_journal.h"
#include "mlgo/policy/decision_steer.h"
#include "mlgo/policy/trajectory.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/crc32c.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/text_input.h"
#include "mlgo/support/varint.h"
#include "mlgo/trace/sampling.h"
#include "mlgo/trace/trace_writer.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// The baseline's decisions with the decisions numbered in `flips` reversed.
/// Records every decision (features, the default heuristic's action, the
/// action taken) and, for a policy baseline, how sure the policy was.
class FlipSteer final : public DecisionSteer {
 public:
  FlipSteer(const PolicyModel *baseline, const std::set<size_t> &flips, trace::ModuleTrace &record,
            std::vector<double> &margins)
      : baseline_(baseline), flips_(flips), record_(record), margins_(margins) {}
  bool wantsDefaultAction() const override { return true; }
  int64_t decide(const int64_t *features, int64_t defaultAction) override {
    bool action = defaultAction == 1;
    if (baseline_) {
      float logits[2];
      baseline_->logits(features, logits);
      action = logits[1] > logits[0];  // PolicyModel::decide's rule
      margins_.push_back(std::abs(probabilityOfAction1(logits) - 0.5));
    }
    if (flips_.count(record_.decisions())) action = !action;
    record_.addDecision(features, defaultAction, action);
    return action;
  }

 private:
  const PolicyModel *baseline_;
  const std::set<size_t> &flips_;
  trace::ModuleTrace &record_;
  std::vector<double> &margins_;
};

struct Steered {
  CompileResult result;
  trace::ModuleTrace record;
  std::vector<double> margins;  ///< per decision, for a policy baseline
  uint64_t size() const { return result.ok() ? result.sizes.text : UINT64_MAX; }
};

Steered compileSteered(const CompilerDriver &driver, const CorpusModule &module, const Problem &problem,
                       const PolicyModel *baseline, const std::set<size_t> &flips) {
  Steered steered;
  steered.record.name = module.name;
  steered.record.featureCount = problem.featureNames().size();
  FlipSteer steer(baseline, flips, steered.record, steered.margins);
  steered.result = driver.compile({&module, "", {problem.steeringHook(steer)}});
  steered.record.nativeSize = steered.result.sizes.text;
  return steered;
}

/// The decisions to flip one at a time: the policy's least certain, or for
/// the default heuristic `count` spread evenly. Ascending.
std::vector<size_t> flipCandidates(const Steered &baseline, bool byCertainty, size_t count) {
  const size_t decisions = baseline.record.decisions();
  std::vector<size_t> candidates;
  if (decisions <= count) {
    for (size_t k = 0; k < decisions; ++k) candidates.push_back(k);
  } else if (byCertainty) {
    std::vector<size_t> order(decisions);
    for (size_t k = 0; k < decisions; ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return baseline.margins[a] < baseline.margins[b]; });
    candidates.assign(order.begin(), order.begin() + count);
    std::sort(candidates.begin(), candidates.end());
  } else {
    for (size_t i = 0; i < count; ++i) candidates.push_back(i * decisions / count);
  }
  return candidates;
}

}  // namespace

ExploredModule exploreModule(const CompilerDriver &driver, const CorpusModule &module, const Problem &problem,
                             const ExploreSettings &settings) {
  ExploredModule explored;
  size_t compiles = 0;
  auto compile = [&](const PolicyModel *baseline, const std::set<size_t> &flips) {
    ++compiles;
    return compileSteered(driver, module, problem, baseline, flips);
  };
  Steered defaultCompile = compile(nullptr, {});
  explored.compiles = compiles;
  if (!defaultCompile.result.ok()) {
    explored.failure = defaultCompile.result;
    return explored;
  }
  explored.defaultSize = defaultCompile.size();
  Steered baseline = settings.baseline ? compile(settings.baseline, {}) : std::move(defaultCompile);
  if (!baseline.result.ok()) {
    explored.failure = baseline.result;
    explored.failure.message = "the baseline policy's compile failed: " + explored.failure.message;
    explored.compiles = compiles;
    return explored;
  }
  explored.baselineSize = baseline.size();
  explored.decisions = baseline.record.decisions();

  // 2. Single flips, as many candidates as the budget allows.
  std::vector<size_t> candidates = flipCandidates(baseline, settings.baseline != nullptr, settings.flips);
  candidates.resize(std::min(candidates.size(), settings.budget - std::min(settings.budget, compiles)));
  std::vector<std::pair<uint64_t, size_t>> improving;  // (size, decision)
  std::optional<Steered> bestSingle;
  for (size_t k : candidates) {
    Steered flipped = compile(settings.baseline, {k});
    if (flipped.size() >= baseline.size()) continue;
    improving.emplace_back(flipped.size(), k);
    if (!bestSingle || flipped.size() < bestSingle->size()) bestSingle = std::move(flipped);
  }
  explored.flipsTried = candidates.size();
  explored.improvingFlips = improving.size();

  // 3. Greedy combination, best single flip first (ties: the earlier
  //    decision); that one is already compiled.
  std::sort(improving.begin(), improving.end());
  std::set<size_t> kept;
  Steered best = std::move(baseline);
  if (bestSingle) {
    kept.insert(improving.front().second);
    best = std::move(*bestSingle);
  }
  for (size_t i = 1; i < improving.size() && compiles < settings.budget; ++i) {
    std::set<size_t> trial = kept;
    trial.insert(improving[i].second);
    Steered combined = compile(settings.baseline, trial);
    if (combined.size() < best.size()) {
      kept = std::move(trial);
      best = std::move(combined);
    }
  }
  explored.compiles = compiles;
  explored.bestSize = best.size();
  explored.keptFlips.assign(kept.begin(), kept.end());
  explored.best = std::move(best.record);
  return explored;
}

namespace {

constexpr const char *kJournal = ".explore-journal";

json settingsJson(const ExploreOptions &options, const Problem &problem) {
  json settings{{"problem", problem.name()},
                {"baseline", options.baselineName},
                {"flips", options.settings.flips},
                {"budget", options.settings.budget}};
  // A policy changed at the same path must not resume an exploration made with the old one.
  if (options.settings.baseline) settings["baseline_crc32c"] = crc32c(options.settings.baseline->serialize());
  return settings;
}

std::string encodeExplored(const ExploredModule &explored) {
  std::string bytes;
  putBytes(bytes, encodeCompileReply(explored.failure));
  for (uint64_t value : {explored.defaultSize, explored.baselineSize, explored.bestSize, uint64_t(explored.decisions),
                         uint64_t(explored.compiles), uint64_t(explored.flipsTried),
                         uint64_t(explored.improvingFlips)})
    putVarint(bytes, value);
  putVarint(bytes, explored.keptFlips.size());
  for (size_t k : explored.keptFlips) putVarint(bytes, k);
  putBytes(bytes, explored.ok() ? trace::encodeModule(explored.best) : std::string());
  return bytes;
}

ExploredModule decodeExplored(std::string_view bytes, size_t featureCount) {
  ByteReader reader(bytes);
  ExploredModule explored;
  explored.failure = decodeCompileReply(std::string(reader.bytes()));
  explored.defaultSize = reader.varint();
  explored.baselineSize = reader.varint();
  explored.bestSize = reader.varint();
  explored.decisions = reader.varint();
  explored.compiles = reader.varint();
  explored.flipsTried = reader.varint();
  explored.improvingFlips = reader.varint();
  explored.keptFlips.resize(reader.varint());
  for (size_t &k : explored.keptFlips) k = reader.varint();
  const std::string_view record = reader.bytes();
  if (explored.ok()) explored.best = trace::decodeModule(record, featureCount);
  return explored;
}

json moduleFigures(const std::string &name, const ExploredModule &explored) {
  return {{"name", name},
          {"default_size", explored.defaultSize},
          {"baseline_size", explored.baselineSize},
          {"best_size", explored.bestSize},
          {"decisions", explored.decisions},
          {"compiles", explored.compiles},
          {"flips_tried", explored.flipsTried},
          {"improving_flips", explored.improvingFlips},
          {"flips_kept", explored.keptFlips}};
}

}  // namespace

ExploreSummary runExplore(const Corpus &corpus, const CompilerDriver &driver, const Problem &problem,
                          const ExploreOptions &options, const CompilerDriver::Progress &progress, Cluster &cluster) {
  const ExploreSettings &settings = options.settings;
  if (settings.budget < 2) throw UsageError("--budget must allow the baseline compile and one flip (at least 2)");
  if (settings.baseline && settings.baseline->problem() != problem.name())
    throw UsageError("the baseline policy is for " + settings.baseline->problem() + ", not " + problem.name());
  if (options.shards == 0) throw UsageError("--shards must be at least 1");
  const auto start = std::chrono::steady_clock::now();
  const size_t featureCount = problem.featureNames().size();
  const json settingsRecord = settingsJson(options, problem);
  // Only rank 0 writes; in a single process the journal makes a run resumable.
  std::optional<ModuleJournal> journal;
  if (cluster.isLeader() && !cluster.distributed())
    journal.emplace(options.output / kJournal, settingsRecord, options.resume, "an exploration");

  ExploreSummary summary;
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
  for (size_t slot = 0; slot < outcomes.size(); ++slot) explored[slot] = decodeExplored(outcomes[slot], featureCount);

  const json header = trace::traceHeader(problem.name(), problem.decisionSpec());
  trace::TraceWriter writer(options.output, problem.name(), header, options.shards);
  json sizes = json::object(), figures = json::array(), failures = json::array();
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
    summary.improved += module.bestSize < module.baselineSize;
    summary.defaultSize += module.defaultSize;
    summary.baselineSize += module.baselineSize;
    summary.bestSize += module.bestSize;
    decisions += module.best.decisions();
    sizes[name] = module.defaultSize;
    figures.push_back(moduleFigures(name, module));
    module.best.position = slot;
    writer.submit(slot, trace::encodeModule(module.best));
  }
  writeFileAtomically(options.output / "exploration.json",
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
                          {"text_default", summary.defaultSize},
                          {"text_baseline", summary.baselineSize},
                          {"text_explored", summary.bestSize},
                          {"mlgo_version", MLGO_VERSION}});
  writer.finish(description, json{{"metric", "text"}, {"policy", "default"}, {"sizes", sizes}});
  if (journal) journal->remove();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace mlgo
