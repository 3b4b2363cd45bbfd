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

}  // namespace

AutotuneReport autotuneCorpus(const Corpus &corpus, const CompilerDriver &driver, const SearchSpace &space,
                              const AutotuneOptions &options, PassListGate *gate, Cluster &cluster) {
  const auto start = std::chrono::steady_clock::now();
  AutotuneReport report;
  report.modules.resize(corpus.modules.size());
  // Each module's evaluator (its cache of compiled lists) lives on the rank
  // that owns the module, through both phases.
  std::vector<std::unique_ptr<ModuleEvaluator>> evaluators(corpus.modules.size());
  std::vector<std::vector<int>> searchedBest(corpus.modules.size());
  // The broadcast phase spends what the search left, up to this many each.
  const size_t broadcastReserve = std::min(options.broadcastLists, options.budget / 10);
  std::mutex progressMutex;
  size_t done = 0;
  const size_t modulesOfThisRank = shareOfRank(corpus.modules.size(), cluster.rank(), cluster.size()).size();
  const unsigned threads = resolveThreadCount(driver.options().threads);
  // Runs `body` on each of this rank's modules (one per thread, its
  // compilations in sequence on that thread); rank 0 gets every module's
  // encoded outcome back in corpus order.
  auto onEveryRank = [&](const std::function<json(size_t)> &body) {
    const std::vector<std::string> outcomes =
        gatherShares(cluster, corpus.modules.size(), [&](const std::vector<size_t> &mine) {
          std::vector<std::string> encoded(mine.size());
          parallelFor(mine.size(), threads, [&](size_t k) { encoded[k] = body(mine[k]).dump(); });
          return encoded;
        });
    std::vector<json> decoded;
    for (const std::string &outcome : outcomes) decoded.push_back(json::parse(outcome));
    return decoded;
  };

  // Phase 1: every module's own search.
  const std::vector<json> searched = onEveryRank([&](size_t i) {
    const CorpusModule &module = corpus.modules[i];
    evaluators[i] = options.compile ? std::make_unique<ModuleEvaluator>(module, options.compile, space,
                                                                         options.metric, options.budget)
                                    : std::make_unique<ModuleEvaluator>(module, driver, space, options.metric,
                                                                         options.budget);
    ModuleEvaluator &evaluator = *evaluators[i];
    json outcome{{"ok", false}, {"best", json::array()}};
    const std::optional<uint64_t> ozSize = evaluator.size({});
    if (ozSize) {
      outcome["ok"] = true;
      // The search leaves the broadcast phase its share of the budget.
      evaluator.setBudget(options.budget - broadcastReserve);
      const SearchOutcome found = searchModule(evaluator, space, options.search, module.name);
      evaluator.setBudget(options.budget);
      if (!found.best.empty() && found.bestSize < *ozSize) searchedBest[i] = found.best;
      outcome["best"] = searchedBest[i];
    }
    std::lock_guard<std::mutex> lock(progressMutex);
    if (options.progress) options.progress(++done, modulesOfThisRank);
    return outcome;
  });
  std::string broadcastMessage;
  if (cluster.isLeader()) {
    for (size_t i = 0; i < searched.size(); ++i) {
      ModuleTuning &tuning = report.modules[i];
      tuning.name = corpus.modules[i].name;
      tuning.ok = searched[i]["ok"].get<bool>();
      if (!tuning.ok) tuning.failure = "the -Oz compile failed";
      tuning.best = searched[i]["best"].get<std::vector<int>>();
    }
    // Broadcasting: every module tries the lists that won most often and
    // keeps any that beats its own best.
    broadcastMessage = json(mostFrequentWinners(report.modules, space, options.broadcastLists)).dump();
    sendToAll(cluster, broadcastMessage);
  } else {
    broadcastMessage = cluster.receive(0);
  }
  const auto broadcast = json::parse(broadcastMessage).get<std::vector<std::vector<int>>>();

  // Phase 2: broadcasting, then what each module's evaluator measured.
  const std::vector<json> finished = onEveryRank([&](size_t i) {
    ModuleEvaluator &evaluator = *evaluators[i];
    json outcome{{"compilations", evaluator.used()}, {"failed", evaluator.failed()}};
    if (!evaluator.size({})) return outcome;  // the -Oz compile failed (cached, no new compile)
    const SectionSizes *oz = evaluator.sections({});
    std::vector<int> best = searchedBest[i];
    bool fromBroadcast = false;
    uint64_t bestSize = *evaluator.size(best);
    for (const std::vector<int> &list : broadcast) {
      const std::optional<uint64_t> size = evaluator.size(list);
      if (size && (*size < bestSize || (*size == bestSize && !best.empty() && list.size() < best.size()))) {
        best = list;
        fromBroadcast = true;
        bestSize = *size;
      }
    }
    json runnersUp = json::array();
    for (const std::vector<int> &list : evaluator.runnersUp(best, options.gateFallbacks ? options.runnerUpPool : 0))
      runnersUp.push_back({{"list", list}, {"sizes", sizesToJson(*evaluator.sections(list))}});
    return json{{"compilations", evaluator.used()},
                {"failed", evaluator.failed()},
                {"oz", sizesToJson(*oz)},
                {"best", best},
                {"from_broadcast", fromBroadcast},
                {"best_sizes", sizesToJson(*evaluator.sections(best))},
                {"runners_up", runnersUp}};
  });
  if (!cluster.isLeader()) return report;
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
    tuning.best = outcome["best"].get<std::vector<int>>();
    tuning.fromBroadcast = outcome["from_broadcast"].get<bool>();
    bestSizes[i] = sizesFromJson(outcome["best_sizes"]);
  }

  // The gate checks each distinct list once. A module whose best list is
  // rejected falls back to its runners-up, in order, and keeps -Oz when none
  // passes. Runners-up are mostly near-copies of the rejected list and break
  // the same programs, so each is first run on the programs that have failed
  // so far (a few seconds) and only then, if none breaks, through the whole
  // gate. Each rejection is narrowed down to its culprit for the report.
  if (gate) {
    std::map<std::string, GateVerdict> verdicts;
    std::vector<std::string> failedPrograms;  // most recent failure first
    auto noteFailure = [&](const std::string &program) {
      if (program.empty()) return;
      failedPrograms.erase(std::remove(failedPrograms.begin(), failedPrograms.end(), program), failedPrograms.end());
      failedPrograms.insert(failedPrograms.begin(), program);
    };
    auto verdictOf = [&](const std::vector<int> &list) -> const GateVerdict & {
      auto [found, isNew] = verdicts.emplace(space.pipeline(list), GateVerdict{});
      if (!isNew) return found->second;
      found->second = gate->check(found->first);
      ++report.listsGated;
      if (found->second.passed) return found->second;
      ++report.listsRejected;
      report.listsFailingOnlyCxxLinks += found->second.cxxLinkOnly;
      const std::string program = found->second.program;
      if (program.empty()) return found->second;
      noteFailure(program);
      const bool linkFailure = found->second.cxxLinkOnly;
      const std::vector<int> passes = isolateCulprit(
          list,
          [&](const std::vector<int> &part) {
            ++report.culpritChecks;
            return gate->breaks(space.pipeline(part), program, linkFailure);
          },
          options.culpritChecks);
      report.culprits.push_back({passes, program, list});
      return found->second;
    };
    // The first program that has failed before and breaks under `pipeline`
    // for a module of this language.
    auto prescreen = [&](const std::string &pipeline, bool cxxModule) -> std::optional<std::string> {
      for (const std::string &program : failedPrograms) {
        ++report.prescreenRuns;
        if (gate->breaks(pipeline, program, cxxModule)) return program;
      }
      return std::nullopt;
    };
    // Winners first, in corpus order, then the fallbacks they need.
    for (const ModuleTuning &tuning : report.modules)
      if (!tuning.best.empty()) verdictOf(tuning.best);
    for (size_t i = 0; i < report.modules.size(); ++i) {
      ModuleTuning &tuning = report.modules[i];
      if (tuning.best.empty()) continue;
      const bool cxxModule = isCxxModule(corpus.modules[i]);
      const GateVerdict &verdict = verdictOf(tuning.best);
      tuning.gatePassed = verdict.acceptsFor(cxxModule);
      if (verdict.acceptsFor(cxxModule)) {
        if (!verdict.passed) {
          tuning.gateFailure = verdict.failure;
          ++report.cModulesKeepingCxxLinkFailures;
        }
        continue;
      }
      tuning.gateFailure = verdict.failure + " (list " + space.describe(tuning.best) + ")";
      noteFailure(verdict.program);  // this module's near-copies most likely break it too
      tuning.best.clear();
      size_t gated = 0;
      for (const json &runnerUp : finished[i].value("runners_up", json::array())) {
        if (gated == options.gateFallbacks) break;
        const auto list = runnerUp["list"].get<std::vector<int>>();
        const std::string pipeline = space.pipeline(list);
        if (!verdicts.count(pipeline)) {
          if (const std::optional<std::string> broken = prescreen(pipeline, cxxModule)) {
            ++report.fallbacksScreenedOut;
            // Every module's verdict only when it is a miscompile: a C++
            // module's prescreen also counts link failures, which do not
            // reject the list for C modules.
            if (!cxxModule)
              verdicts.emplace(pipeline, GateVerdict{false, *broken + ": broke in the prescreen", *broken, false});
            continue;
          }
          ++gated;
        }
        if (!verdictOf(list).acceptsFor(cxxModule)) continue;
        tuning.best = list;
        tuning.gatePassed = true;
        tuning.gateFallback = true;
        tuning.fromBroadcast = false;
        bestSizes[i] = sizesFromJson(runnerUp["sizes"]);
        break;
      }
    }
  }

  double logSum = 0;
  size_t tuned = 0;
  for (size_t i = 0; i < report.modules.size(); ++i) {
    ModuleTuning &tuning = report.modules[i];
    if (!tuning.ok) continue;
    tuning.bestSizes = tuning.best.empty() ? tuning.ozSizes : bestSizes[i];
    const double oz = double(measure(tuning.ozSizes, options.metric));
    const double best = double(measure(tuning.bestSizes, options.metric));
    // As mlgo eval does: a module with no code or data counts as unchanged.
    if (oz > 0 && best > 0) logSum += std::log(best / oz);
    ++tuned;
    report.improved += best < oz;
  }
  report.geomeanChange = tuned ? std::exp(logSum / double(tuned)) - 1 : 0;
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
      entry["best"] = sizesToJson(tuning.bestSizes);
      // A module with no code or data under -Oz counts as unchanged (as in the geomean).
      const uint64_t oz = measure(tuning.ozSizes, options.metric);
      entry["change"] = oz > 0 ? double(measure(tuning.bestSizes, options.metric)) / double(oz) - 1 : 0.0;
      if (tuning.gatePassed)
        entry["gate"] = !*tuning.gatePassed ? "rejected: " + tuning.gateFailure
                        : tuning.gateFallback ? "passed (a runner-up: the best list was rejected: " + tuning.gateFailure + ")"
                        : !tuning.gateFailure.empty()
                            ? "passed for C (only C++ programs fail, to link: " + tuning.gateFailure + ")"
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

std::map<std::string, std::string> readPassLists(const fs::path &bestJson) {
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
    if (pipeline != "-Oz") lists[module["name"].get<std::string>()] = pipeline;
  }
  return lists;
}

}  // namespace mlgo::autotune
