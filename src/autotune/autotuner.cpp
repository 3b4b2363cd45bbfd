#include "mlgo/autotune/autotuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>

#include "mlgo/autotune/culprit_isolation.h"
#include "mlgo/corpus/corpus.h"
#include "mlgo/distributed/rank_share.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/portable_math.h"
#include "mlgo/support/text_input.h"

namespace mlgo::autotune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json sizesToJson(const SectionSizes &sizes) {
  return {{"text", sizes.text},
          {"data", sizes.data},
          {"rodata", sizes.rodata},
          {"bss", sizes.bss},
          {"text+data", sizes.textPlusData()}};
}

SectionSizes sizesFromJson(const json &sizes) {
  SectionSizes out;
  out.text = sizes["text"].get<uint64_t>();
  out.data = sizes["data"].get<uint64_t>();
  out.rodata = sizes["rodata"].get<uint64_t>();
  out.bss = sizes["bss"].get<uint64_t>();
  return out;
}

/// Lists won by the most modules, most frequent first (ties: the shorter,
/// then the smaller pipeline text, so the choice never depends on threads).
std::vector<std::vector<int>> mostFrequentWinners(const std::vector<ModuleTuning> &modules, const SearchSpace &space,
                                                  size_t count) {
  std::map<std::string, std::pair<size_t, std::vector<int>>> wins;
  for (const ModuleTuning &module : modules)
    if (!module.best.empty()) {
      auto &entry = wins[space.pipeline(module.best)];
      ++entry.first;
      entry.second = module.best;
    }
  std::vector<std::pair<std::string, std::pair<size_t, std::vector<int>>>> ranked(wins.begin(), wins.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) {
    if (a.second.first != b.second.first) return a.second.first > b.second.first;
    if (a.second.second.size() != b.second.second.size()) return a.second.second.size() < b.second.second.size();
    return a.first < b.first;
  });
  std::vector<std::vector<int>> lists;
  for (size_t i = 0; i < ranked.size() && i < count; ++i) lists.push_back(ranked[i].second.second);
  return lists;
}

json culpritsToJson(const std::vector<Culprit> &culprits, const SearchSpace &space) {
  json out = json::array();
  for (const Culprit &culprit : culprits)
    out.push_back({{"pipeline", space.pipeline(culprit.passes)},
                   {"program", culprit.program},
                   {"isolated_from", space.pipeline(culprit.rejectedList)}});
  return out;
}

/// The search and broadcast phases on this rank's modules. Each module's
/// evaluator (its cache of compiled lists) lives on the rank that owns the
/// module, through both phases; rank 0 gets every module's outcome back.
class CorpusSearch {
 public:
  CorpusSearch(const Corpus &corpus, const CompilerDriver &driver, const SearchSpace &space,
               const AutotuneOptions &options, Cluster &cluster)
      : corpus_(corpus),
        driver_(driver),
        space_(space),
        options_(options),
        cluster_(cluster),
        evaluators_(corpus.modules.size()),
        searchedBest_(corpus.modules.size()),
        broadcastReserve_(std::min(options.broadcastLists, options.budget / 10)),
        modulesOfThisRank_(shareOfRank(corpus.modules.size(), cluster.rank(), cluster.size()).size()),
        threads_(resolveThreadCount(driver.options().threads)) {
  }

  /// Phase 1: every module's own search; per module {"ok", "best"}.
  std::vector<json> search() {
    return onEveryRank([&](size_t i) {
      json outcome = searchFor(i);
      std::lock_guard<std::mutex> lock(progressMutex_);
      if (options_.progress) options_.progress(++done_, modulesOfThisRank_);
      return outcome;
    });
  }

  /// The lists every module tries next: those that won most often (rank 0
  /// decides from `report`'s winners and sends them to the other ranks).
  std::vector<std::vector<int>> broadcastLists(const AutotuneReport &report) {
    std::string message;
    if (cluster_.isLeader()) {
      message = json(mostFrequentWinners(report.modules, space_, options_.broadcastLists)).dump();
      sendToAll(cluster_, message);
    } else {
      message = cluster_.receive(0);
    }
    return parseJsonText(message, "a message between ranks").get<std::vector<std::vector<int>>>();
  }

  /// Phase 2: each module keeps any broadcast list that beats its own best;
  /// per module what its evaluator measured.
  std::vector<json> tryLists(const std::vector<std::vector<int>> &lists) {
    return onEveryRank([&](size_t i) { return tryListsFor(i, lists); });
  }

 private:
  /// Runs `body` on each of this rank's modules (one per thread, its
  /// compilations in sequence on that thread); rank 0 gets every module's
  /// outcome back in corpus order.
  std::vector<json> onEveryRank(const std::function<json(size_t)> &body) {
    const std::vector<std::string> outcomes =
        gatherShares(cluster_, corpus_.modules.size(), [&](const std::vector<size_t> &mine) {
          std::vector<std::string> encoded(mine.size());
          // Each thread takes the next module when it is free; a module's
          // search never depends on when it runs.
          const std::vector<size_t> order = largestModulesFirst(corpus_, mine);
          parallelFor(mine.size(), threads_, [&](size_t k) { encoded[order[k]] = body(mine[order[k]]).dump(); });
          return encoded;
        });
    std::vector<json> decoded;
    for (const std::string &outcome : outcomes) decoded.push_back(parseJsonText(outcome, "a message between ranks"));
    return decoded;
  }

  json searchFor(size_t i) {
    const CorpusModule &module = corpus_.modules[i];
    evaluators_[i] = options_.compile ? std::make_unique<ModuleEvaluator>(module, options_.compile, space_,
                                                                          options_.metric, options_.budget)
                                      : std::make_unique<ModuleEvaluator>(module, driver_, space_, options_.metric,
                                                                          options_.budget);
    ModuleEvaluator &evaluator = *evaluators_[i];
    json outcome{{"ok", false}, {"best", json::array()}};
    const std::optional<uint64_t> ozSize = evaluator.size({});
    if (!ozSize) return outcome;
    outcome["ok"] = true;
    // The search leaves the broadcast phase its share of the budget.
    evaluator.setBudget(options_.budget - broadcastReserve_);
    const SearchOutcome found = searchModule(evaluator, space_, options_.search, module.name);
    evaluator.setBudget(options_.budget);
    if (!found.best.empty() && found.bestSize < *ozSize) searchedBest_[i] = found.best;
    outcome["best"] = searchedBest_[i];
    return outcome;
  }

  json tryListsFor(size_t i, const std::vector<std::vector<int>> &lists) {
    ModuleEvaluator &evaluator = *evaluators_[i];
    json outcome{{"compilations", evaluator.used()}, {"failed", evaluator.failed()}};
    if (!evaluator.size({})) return outcome;  // the -Oz compile failed (cached, no new compile)
    const SectionSizes *oz = evaluator.sections({});
    std::vector<int> best = searchedBest_[i];
    bool fromBroadcast = false;
    uint64_t bestSize = *evaluator.size(best);
    for (const std::vector<int> &list : lists) {
      const std::optional<uint64_t> size = evaluator.size(list);
      if (size && (*size < bestSize || (*size == bestSize && !best.empty() && list.size() < best.size()))) {
        best = list;
        fromBroadcast = true;
        bestSize = *size;
      }
    }
    const bool wantsRunnersUp = options_.gateFallbacks > 0 || options_.alternativesKept > 0;
    json runnersUp = json::array();
    for (const std::vector<int> &list : evaluator.runnersUp(best, wantsRunnersUp ? options_.runnerUpPool : 0))
      runnersUp.push_back({{"list", list},
                           {"sizes", sizesToJson(*evaluator.sections(list))},
                           {"ir", evaluator.irInstructions(list)}});
    return json{{"compilations", evaluator.used()},
                {"failed", evaluator.failed()},
                {"oz", sizesToJson(*oz)},
                {"oz_ir", evaluator.irInstructions({})},
                {"best", best},
                {"from_broadcast", fromBroadcast},
                {"best_sizes", sizesToJson(*evaluator.sections(best))},
                {"best_ir", evaluator.irInstructions(best)},
                {"runners_up", runnersUp}};
  }

  const Corpus &corpus_;
  const CompilerDriver &driver_;
  const SearchSpace &space_;
  const AutotuneOptions &options_;
  Cluster &cluster_;
  std::vector<std::unique_ptr<ModuleEvaluator>> evaluators_;
  std::vector<std::vector<int>> searchedBest_;
  const size_t broadcastReserve_;  ///< the broadcast phase spends what the search left, up to this many each
  const size_t modulesOfThisRank_;
  const unsigned threads_;
  std::mutex progressMutex_;
  size_t done_ = 0;
};

/// Phase 1's winners into the report (rank 0).
void recordSearch(const Corpus &corpus, const std::vector<json> &searched, AutotuneReport &report) {
  for (size_t i = 0; i < searched.size(); ++i) {
    ModuleTuning &tuning = report.modules[i];
    tuning.name = corpus.modules[i].name;
    tuning.ok = searched[i]["ok"].get<bool>();
    if (!tuning.ok) tuning.failure = "the -Oz compile failed";
    tuning.best = searched[i]["best"].get<std::vector<int>>();
  }
}

/// Phase 2's outcomes into the report (rank 0); each module's best sizes.
std::vector<SectionSizes> recordFinished(const std::vector<json> &finished, AutotuneReport &report) {
  std::vector<SectionSizes> bestSizes(report.modules.size());
  for (size_t i = 0; i < finished.size(); ++i) {
    ModuleTuning &tuning = report.modules[i];
    const json &outcome = finished[i];
    tuning.compilations = outcome["compilations"].get<size_t>();
    tuning.failedCandidates = outcome["failed"].get<size_t>();
    report.compilations += tuning.compilations;
    report.failedCandidates += tuning.failedCandidates;
    if (!tuning.ok) continue;
    tuning.ozSizes = sizesFromJson(outcome["oz"]);
    tuning.ozIrInstructions = outcome["oz_ir"].get<uint64_t>();
    tuning.bestIrInstructions = outcome["best_ir"].get<uint64_t>();
    tuning.best = outcome["best"].get<std::vector<int>>();
    tuning.fromBroadcast = outcome["from_broadcast"].get<bool>();
    bestSizes[i] = sizesFromJson(outcome["best_sizes"]);
  }
  return bestSizes;
}

/// The gate checks each distinct list once. A module whose best list is
/// rejected falls back to its runners-up, in order, and keeps -Oz when none
/// passes. Runners-up are mostly near-copies of the rejected list and break
/// the same programs, so each is first run on the programs that have failed
/// so far (a few seconds) and only then, if none breaks, through the whole
/// gate. Each rejection is narrowed down to its culprit for the report.
class GateRound {
 public:
  /// `threads`: single-program runs (culprits, prescreens) asked at once.
  GateRound(PassListGate &gate, const SearchSpace &space, const AutotuneOptions &options, unsigned threads,
            AutotuneReport &report)
      : gate_(gate), space_(space), options_(options), threads_(threads), report_(report) {}

  /// Winners first, in corpus order, then the fallbacks they need.
  void run(const Corpus &corpus, const std::vector<json> &finished, std::vector<SectionSizes> &bestSizes) {
    for (const ModuleTuning &tuning : report_.modules)
      if (!tuning.best.empty()) verdictOf(tuning.best);
    for (size_t i = 0; i < report_.modules.size(); ++i)
      if (!report_.modules[i].best.empty())
        gateModule(report_.modules[i], isCxxModule(corpus.modules[i]), finished[i], bestSizes[i]);
    if (options_.alternativesKept > 0)
      for (size_t i = 0; i < report_.modules.size(); ++i)
        keepAlternatives(report_.modules[i], isCxxModule(corpus.modules[i]), finished[i]);
  }

 private:
  /// The module's smallest runners-up besides its best that the gate
  /// accepts for it (each first prescreened as fallbacks are).
  void keepAlternatives(ModuleTuning &tuning, bool cxxModule, const json &finished) {
    if (tuning.best.empty()) return;  // nothing passed: the runners-up were its fallbacks
    const std::string bestPipeline = space_.pipeline(tuning.best);
    for (const json &runnerUp : finished.value("runners_up", json::array())) {
      if (tuning.alternatives.size() == options_.alternativesKept) return;
      const auto list = runnerUp["list"].get<std::vector<int>>();
      const std::string pipeline = space_.pipeline(list);
      if (pipeline == bestPipeline) continue;
      if (!verdicts_.count(pipeline) && prescreen(pipeline, cxxModule)) continue;
      const GateVerdict &verdict = verdictOf(list);
      if (!verdict.acceptsFor(cxxModule)) continue;
      tuning.alternatives.push_back({list, sizesFromJson(runnerUp["sizes"]), runnerUp["ir"].get<uint64_t>(),
                                     verdict.passed ? "passed" : "passed for C"});
    }
  }

  void gateModule(ModuleTuning &tuning, bool cxxModule, const json &finished, SectionSizes &bestSizes) {
    const GateVerdict &verdict = verdictOf(tuning.best);
    tuning.gatePassed = verdict.acceptsFor(cxxModule);
    if (verdict.acceptsFor(cxxModule)) {
      if (!verdict.passed) {
        tuning.gateFailure = verdict.failure;
        ++report_.cModulesKeepingCxxLinkFailures;
      }
      return;
    }
    tuning.gateFailure = verdict.failure + " (list " + space_.describe(tuning.best) + ")";
    noteFailure(verdict.program);  // this module's near-copies most likely break it too
    tuning.best.clear();
    size_t gated = 0;
    for (const json &runnerUp : finished.value("runners_up", json::array())) {
      if (gated == options_.gateFallbacks) break;
      const auto list = runnerUp["list"].get<std::vector<int>>();
      const std::string pipeline = space_.pipeline(list);
      if (!verdicts_.count(pipeline)) {
        if (const std::optional<std::string> broken = prescreen(pipeline, cxxModule)) {
          ++report_.fallbacksScreenedOut;
          // Every module's verdict only when it is a miscompile: a C++
          // module's prescreen also counts link failures, which do not
          // reject the list for C modules.
          if (!cxxModule)
            verdicts_.emplace(pipeline, GateVerdict{false, *broken + ": broke in the prescreen", *broken, false});
          continue;
        }
        ++gated;
      }
      if (!verdictOf(list).acceptsFor(cxxModule)) continue;
      tuning.best = list;
      tuning.gatePassed = true;
      tuning.gateFallback = true;
      tuning.fromBroadcast = false;
      tuning.bestIrInstructions = runnerUp["ir"].get<uint64_t>();
      bestSizes = sizesFromJson(runnerUp["sizes"]);
      return;
    }
  }

  const GateVerdict &verdictOf(const std::vector<int> &list) {
    auto [found, isNew] = verdicts_.emplace(space_.pipeline(list), GateVerdict{});
    if (!isNew) return found->second;
    found->second = gate_.check(found->first);
    ++report_.listsGated;
    if (found->second.passed) return found->second;
    ++report_.listsRejected;
    report_.listsFailingOnlyCxxLinks += found->second.cxxLinkOnly;
    const std::string program = found->second.program;
    if (program.empty()) return found->second;
    noteFailure(program);
    const bool linkFailure = found->second.cxxLinkOnly;
    const CulpritSearch culprit = isolateCulprit(
        list,
        [&](const std::vector<std::vector<int>> &parts) {
          return breaksEach(parts.size(),
                            [&](size_t k) { return gate_.breaks(space_.pipeline(parts[k]), program, linkFailure); });
        },
        options_.culpritChecks, threads_);
    report_.culpritChecks += culprit.checks;
    report_.culprits.push_back({culprit.passes, program, list});
    return found->second;
  }

  /// The first program that has failed before and breaks under `pipeline`
  /// for a module of this language. Programs run `threads_` at a time; the
  /// runs counted are those up to the first that breaks, as if one by one.
  std::optional<std::string> prescreen(const std::string &pipeline, bool cxxModule) {
    for (size_t first = 0; first < failedPrograms_.size(); first += threads_) {
      const size_t count = std::min<size_t>(threads_, failedPrograms_.size() - first);
      const std::vector<bool> broken = breaksEach(
          count, [&](size_t k) { return gate_.breaks(pipeline, failedPrograms_[first + k], cxxModule); });
      for (size_t k = 0; k < count; ++k) {
        ++report_.prescreenRuns;
        if (broken[k]) return failedPrograms_[first + k];
      }
    }
    return std::nullopt;
  }

  /// `breaks(k)` for k below `count`, `threads_` at a time.
  std::vector<bool> breaksEach(size_t count, const std::function<bool(size_t)> &breaks) const {
    std::vector<char> answers(count);
    parallelFor(count, threads_, [&](size_t k) { answers[k] = breaks(k); });
    return std::vector<bool>(answers.begin(), answers.end());
  }

  void noteFailure(const std::string &program) {
    if (program.empty()) return;
    failedPrograms_.erase(std::remove(failedPrograms_.begin(), failedPrograms_.end(), program), failedPrograms_.end());
    failedPrograms_.insert(failedPrograms_.begin(), program);
  }

  PassListGate &gate_;
  const SearchSpace &space_;
  const AutotuneOptions &options_;
  const unsigned threads_;
  AutotuneReport &report_;
  std::map<std::string, GateVerdict> verdicts_;
  std::vector<std::string> failedPrograms_;  ///< most recent failure first
};

/// Without a gate: each module's smallest runners-up, unchecked.
void keepUngatedAlternatives(const std::vector<json> &finished, size_t kept, AutotuneReport &report) {
  for (size_t i = 0; i < finished.size(); ++i)
    for (const json &runnerUp : finished[i].value("runners_up", json::array())) {
      if (report.modules[i].alternatives.size() == kept) break;
      report.modules[i].alternatives.push_back({runnerUp["list"].get<std::vector<int>>(),
                                                sizesFromJson(runnerUp["sizes"]), runnerUp["ir"].get<uint64_t>(),
                                                "unchecked"});
    }
}

/// Each module's final sizes, and the geometric mean of the change.
void summarize(AutotuneReport &report, const std::vector<SectionSizes> &bestSizes, SizeMetric metric) {
  double logSum = 0, irLogSum = 0;
  size_t tuned = 0;
  for (size_t i = 0; i < report.modules.size(); ++i) {
    ModuleTuning &tuning = report.modules[i];
    if (!tuning.ok) continue;
    tuning.bestSizes = tuning.best.empty() ? tuning.ozSizes : bestSizes[i];
    if (tuning.best.empty()) tuning.bestIrInstructions = tuning.ozIrInstructions;
    const double oz = double(measure(tuning.ozSizes, metric));
    const double best = double(measure(tuning.bestSizes, metric));
    // As mlgo eval does: a module with no code or data counts as unchanged.
    if (oz > 0 && best > 0) logSum += portable::log(best / oz);
    if (tuning.ozIrInstructions > 0 && tuning.bestIrInstructions > 0)
      irLogSum += portable::log(double(tuning.bestIrInstructions) / double(tuning.ozIrInstructions));
    ++tuned;
    report.improved += best < oz;
  }
  report.geomeanChange = tuned ? portable::exp(logSum / double(tuned)) - 1 : 0;
  report.geomeanIrChange = tuned ? portable::exp(irLogSum / double(tuned)) - 1 : 0;
}

}  // namespace

AutotuneReport autotuneCorpus(const Corpus &corpus, const CompilerDriver &driver, const SearchSpace &space,
                              const AutotuneOptions &options, PassListGate *gate, Cluster &cluster) {
  const auto start = std::chrono::steady_clock::now();
  AutotuneReport report;
  report.modules.resize(corpus.modules.size());
  CorpusSearch search(corpus, driver, space, options, cluster);
  const std::vector<json> searched = search.search();
  if (cluster.isLeader()) recordSearch(corpus, searched, report);
  const std::vector<json> finished = search.tryLists(search.broadcastLists(report));
  if (!cluster.isLeader()) return report;
  std::vector<SectionSizes> bestSizes = recordFinished(finished, report);
  if (gate)
    GateRound(*gate, space, options, resolveThreadCount(driver.options().threads), report)
        .run(corpus, finished, bestSizes);
  else keepUngatedAlternatives(finished, options.alternativesKept, report);
  summarize(report, bestSizes, options.metric);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

AutotuneReport autotuneCorpus(const Corpus &corpus, const CompilerDriver &driver, const SearchSpace &space,
                              const AutotuneOptions &options, PassListGate *gate) {
  const std::unique_ptr<Cluster> single = singleProcessCluster();
  return autotuneCorpus(corpus, driver, space, options, gate, *single);
}

json autotuneReportToJson(const AutotuneReport &report, const SearchSpace &space, const AutotuneOptions &options) {
  json modules = json::array();
  std::map<size_t, size_t> lengths;
  size_t tuned = 0;
  for (const ModuleTuning &tuning : report.modules) {
    json entry{{"name", tuning.name}, {"status", tuning.ok ? "ok" : "failed"}};
    if (!tuning.ok) {
      entry["failure"] = tuning.failure;
    } else {
      ++tuned;
      ++lengths[tuning.best.size()];
      json passes = json::array();
      for (int pass : tuning.best) passes.push_back(space.passes()[pass].element);
      entry["passes"] = passes;
      entry["pipeline"] = tuning.best.empty() ? "-Oz" : space.pipeline(tuning.best);
      entry["from_broadcast"] = tuning.fromBroadcast;
      entry["oz"] = sizesToJson(tuning.ozSizes);
      entry["oz"]["ir_instructions"] = tuning.ozIrInstructions;
      entry["best"] = sizesToJson(tuning.bestSizes);
      entry["best"]["ir_instructions"] = tuning.bestIrInstructions;
      // A module with no code or data under -Oz counts as unchanged (as in the geomean).
      const uint64_t oz = measure(tuning.ozSizes, options.metric);
      entry["change"] = oz > 0 ? double(measure(tuning.bestSizes, options.metric)) / double(oz) - 1 : 0.0;
      if (tuning.gatePassed)
        entry["gate"] =
            !*tuning.gatePassed   ? "rejected: " + tuning.gateFailure
            : tuning.gateFallback ? "passed (a runner-up: the best list was rejected: " + tuning.gateFailure + ")"
            : !tuning.gateFailure.empty() ? "passed for C (only C++ programs fail, to link: " + tuning.gateFailure + ")"
                                          : std::string("passed");
    }
    entry["compilations"] = tuning.compilations;
    entry["failed_candidates"] = tuning.failedCandidates;
    modules.push_back(entry);
  }
  json lengthDistribution = json::object();
  double lengthSum = 0;
  size_t lists = 0;
  for (const auto &[length, count] : lengths) {
    lengthDistribution[std::to_string(length)] = count;
    if (length > 0) {
      lengthSum += double(length * count);
      lists += count;
    }
  }
  return {{"format", "mlgo-autotune"},
          {"version", 1},
          {"metric", sizeMetricName(options.metric)},
          {"strategy", strategyName(options.search.strategy)},
          {"budget", options.budget},
          {"seed", options.search.seed},
          {"summary",
           {{"modules", report.modules.size()},
            {"tuned", tuned},
            {"improved", report.improved},
            {"improved_share", tuned ? double(report.improved) / double(tuned) : 0.0},
            {"geomean_change", report.geomeanChange},
            {"geomean_ir_instructions_change", report.geomeanIrChange},
            {"compilations", report.compilations},
            {"failed_candidates", report.failedCandidates},
            {"lists_gated", report.listsGated},
            {"lists_rejected", report.listsRejected},
            {"lists_rejected_miscompile", report.listsRejected - report.listsFailingOnlyCxxLinks},
            {"lists_rejected_cxx_link_only", report.listsFailingOnlyCxxLinks},
            {"c_modules_keeping_cxx_link_failures", report.cModulesKeepingCxxLinkFailures},
            {"culprits", culpritsToJson(report.culprits, space)},
            {"culprit_checks", report.culpritChecks},
            {"fallbacks_screened_out", report.fallbacksScreenedOut},
            {"prescreen_runs", report.prescreenRuns},
            {"list_lengths", lengthDistribution},
            {"mean_list_length", lists ? lengthSum / double(lists) : 0.0}}},
          {"modules", modules}};
}

std::map<std::string, std::string> readPassLists(const fs::path &bestJson, const SearchSpace &space) {
  const json best = readJsonFile(bestJson);
  const std::string format = best.is_object() ? best.value("format", "") : "";
  if ((format != "mlgo-autotune" && format != "mlgo-predicted-passes") || !best.contains("modules") ||
      !best["modules"].is_array())
    throw InputError(describeInputProblem(bestJson.string(), "",
                                          "neither a best.json of mlgo autotune nor a predict-passes --json file"));
  std::map<std::string, std::string> lists;
  for (size_t i = 0; i < best["modules"].size(); ++i) {
    const json &module = best["modules"][i];
    const std::string where = "modules[" + std::to_string(i) + "]";
    if (!module.contains("name") || !module["name"].is_string())
      throw InputError(describeInputProblem(bestJson.string(), where, "no module name"));
    if (!module.contains("pipeline")) continue;  // a module whose -Oz compile failed
    if (!module["pipeline"].is_string())
      throw InputError(describeInputProblem(bestJson.string(), where + ".pipeline", "not a string"));
    const std::string pipeline = module["pipeline"].get<std::string>();
    if (pipeline == "-Oz") continue;
    if (!module.contains("passes") || !module["passes"].is_array() ||
        !std::all_of(module["passes"].begin(), module["passes"].end(), [](const json &p) { return p.is_string(); }))
      throw InputError(describeInputProblem(bestJson.string(), where + ".passes", "not a list of pass names"));
    lists[module["name"].get<std::string>()] = space.checkedPipeline(
        module["passes"].get<std::vector<std::string>>(), pipeline, bestJson.string(), where);
  }
  return lists;
}

}  // namespace mlgo::autotune
