// mlgo predict-passes: a predictor's ranked pass lists for each module of a
// corpus, without compiling anything.
#include <cstdio>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/autotune/module_features.h"
#include "mlgo/autotune/pass_predictor.h"
#include "mlgo/autotune/ranking_evaluation.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/parallel_for.h"

namespace mlgo::cli {

namespace {

struct PredictFlags {
  std::string corpus, predictor, json, sweep;
  std::vector<std::string> modules;
  size_t top = 5;
  unsigned threads = 0;
};

/// The budgets reported with --sweep: a few up to --top, and --top.
std::vector<size_t> reportedBudgets(size_t top) {
  std::vector<size_t> budgets;
  for (size_t budget : {1, 2, 3, 5, 10, 20, 50, 100})
    if (budget < top) budgets.push_back(budget);
  budgets.push_back(top);
  return budgets;
}

/// --sweep: how the rankings do on the sweep's rows of the ranked modules,
/// beside the coreset's own order and each module's best coreset list.
void printSweepFigures(const PredictFlags &flags, const autotune::SweepTable &table,
                       const autotune::PassPredictor &predictor, const std::vector<const CorpusModule *> &modules,
                       const std::vector<std::vector<size_t>> &rankings, const std::vector<std::string> &failures) {
  const autotune::Coreset &coreset = predictor.coreset();
  std::vector<size_t> rows;
  std::vector<std::vector<size_t>> ranked, coresetOrder;
  for (size_t m = 0; m < table.modules.size(); ++m)
    for (size_t i = 0; i < modules.size(); ++i)
      if (failures[i].empty() && modules[i]->name == table.modules[m].name) {
        rows.push_back(m);
        ranked.push_back(rankings[i]);
        coresetOrder.push_back(coreset.orderFor(table.modules[m].cxx));
      }
  if (rows.empty())
    throw InputError(
        describeInputProblem(table.file, "modules", "holds none of the ranked modules of " + flags.corpus));
  const std::vector<size_t> budgets = reportedBudgets(flags.top);
  const auto byPredictor = autotune::evaluateRanking(table, coreset, rows, ranked, budgets);
  const auto byCoreset = autotune::evaluateRanking(table, coreset, rows, coresetOrder, budgets);
  const auto best = autotune::evaluateRanking(table, coreset, rows, coresetOrder, {coreset.lists.size()});
  std::printf(
      "%zu of %zu ranked modules in %s; geomean %s vs -Oz when each compiles its first K lists and -Oz "
      "(IR instructions of what it keeps)\n",
      rows.size(), modules.size(), table.file.c_str(), sizeMetricName(coreset.metric));
  const std::string predictorColumn = "predictor (" + std::string(autotune::rankingName(predictor.ranking)) + ")";
  std::printf("%4s  %-28s  %s\n", "K", predictorColumn.c_str(), "coreset order");
  for (size_t b = 0; b < budgets.size(); ++b)
    std::printf("%4zu  %+7.2f%% (IR %+7.2f%%)        %+7.2f%% (IR %+7.2f%%)\n", budgets[b],
                100 * byPredictor[b].geomeanChange, 100 * byPredictor[b].irInstructionChange,
                100 * byCoreset[b].geomeanChange, 100 * byCoreset[b].irInstructionChange);
  std::printf("each module's best of the %zu coreset lists: %+.2f%% (IR %+.2f%%)\n", coreset.lists.size(),
              100 * best[0].geomeanChange, 100 * best[0].irInstructionChange);
}

int runPredict(const PredictFlags &flags) {
  const std::filesystem::path directory =
      flags.predictor.empty() ? autotune::defaultPredictorDirectory() : std::filesystem::path(flags.predictor);
  const autotune::PassPredictor predictor =
      autotune::PassPredictor::load(directory, autotune::SearchSpace::load(autotune::defaultSearchSpaceFile()));
  if (!predictor.coreset().excludedLists.empty())
    spdlog::warn("{}: {} of its lists use passes the search space excludes and are left out ({}, ...)",
                 directory.string(), predictor.coreset().excludedLists.size(),
                 predictor.coreset().excludedLists.front());
  // Before any work: a sweep that cannot be read, or lacks a coreset list, is refused.
  std::optional<autotune::SweepTable> sweep;
  if (!flags.sweep.empty()) {
    sweep = autotune::SweepTable::read(flags.sweep);
    autotune::coresetColumns(*sweep, predictor.coreset());
  }
  // On stderr: stdout is the rankings.
  spdlog::info("predictor {}: its {} lists ranked by the {}", directory.string(), predictor.coreset().lists.size(),
               autotune::rankingName(predictor.ranking));
  const Corpus corpus = Corpus::load(flags.corpus);
  std::vector<const CorpusModule *> modules;
  for (const std::string &name : flags.modules) {
    const CorpusModule *found = nullptr;
    for (const CorpusModule &module : corpus.modules)
      if (module.name == name) found = &module;
    if (!found) throw UsageError("--module " + name + ": not a module of " + flags.corpus);
    modules.push_back(found);
  }
  if (flags.modules.empty())
    for (const CorpusModule &module : corpus.modules) modules.push_back(&module);

  // Features on the pool; output in corpus order whatever --threads.
  std::vector<std::vector<size_t>> rankings(modules.size());
  std::vector<std::string> failures(modules.size());
  parallelFor(modules.size(), resolveThreadCount(flags.threads), [&](size_t i) {
    try {
      rankings[i] = predictor.rank(autotune::moduleFeatures(*modules[i]), isCxxModule(*modules[i]));
    } catch (const InputError &e) {
      failures[i] = e.what();
    }
  });
  const std::vector<autotune::CoresetList> &lists = predictor.coreset().lists;
  nlohmann::json entries = nlohmann::json::array();
  size_t failed = 0;
  for (size_t i = 0; i < modules.size(); ++i) {
    nlohmann::json entry{{"name", modules[i]->name}};
    if (!failures[i].empty()) {
      ++failed;
      std::fprintf(stderr, "%s\n", failures[i].c_str());
      entry["status"] = "failed";
      entry["failure"] = failures[i];
      entries.push_back(entry);
      continue;
    }
    if (flags.sweep.empty()) std::printf("%s\n", modules[i]->name.c_str());
    nlohmann::json ranked = nlohmann::json::array();
    for (size_t r = 0; r < rankings[i].size() && r < flags.top; ++r) {
      const autotune::CoresetList &list = lists[rankings[i][r]];
      std::string names;
      for (const std::string &pass : list.passes) names += (names.empty() ? "" : " ") + pass;
      if (flags.sweep.empty())
        std::printf("  %zu. %s\n     -passes='%s'\n", r + 1, names.c_str(), list.pipeline.c_str());
      ranked.push_back({{"passes", list.passes}, {"pipeline", list.pipeline}});
    }
    entry["status"] = "ok";
    if (!ranked.empty()) {
      // The first-ranked list, where eval --pass-lists reads it.
      entry["passes"] = ranked[0]["passes"];
      entry["pipeline"] = ranked[0]["pipeline"];
    }
    entry["ranked"] = ranked;
    entries.push_back(entry);
  }
  if (failed == modules.size()) {
    // Nothing usable: an earlier run's rankings stay as they were.
    spdlog::error("no module of {} could be ranked{}", flags.corpus,
                  flags.json.empty() ? "" : "; nothing was written to " + flags.json);
    return exit_code::kFailure;
  }
  if (!flags.json.empty())
    writeOutputFile(flags.json, nlohmann::json{{"format", "mlgo-predicted-passes"},
                                                   {"version", 1},
                                                   {"predictor", directory.string()},
                                                   {"ranking", autotune::rankingName(predictor.ranking)},
                                                   {"modules", entries}}
                                            .dump(2) +
                                        "\n");
  if (sweep) printSweepFigures(flags, *sweep, predictor, modules, rankings, failures);
  return failed == 0 ? exit_code::kSuccess : exit_code::kPartialFailure;
}

}  // namespace

void addPredictPassesCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<PredictFlags>();
  command->add_option("--corpus", flags->corpus, "Corpus directory")->required();
  command->add_option("--module", flags->modules, "Only this module (repeatable; default: every module)");
  command->add_option("--predictor", flags->predictor,
                      "Predictor directory (default: the one shipped with mlgo, configs/autotune/pass-predictor)");
  command->add_option("--top", flags->top, "Lists printed per module")->capture_default_str()->check(wholeNumber(1));
  command
      ->add_option("--json", flags->json,
                   "Also write the rankings as JSON (eval --pass-lists takes it: each module's first list)")
      ->check(outputFile());
  command
      ->add_option("--sweep", flags->sweep,
                   "A sweep of these modules (sweep-passes over the predictor's coreset): instead of the rankings, "
                   "print the geomean size change vs -Oz when each module compiles its first K ranked lists "
                   "and -Oz, for K up to --top, beside the coreset's own order and each module's best list")
      ->check(CLI::ExistingPath);
  command->add_option("--threads", flags->threads, "Threads computing features (0: one per core)")
      ->check(wholeNumber());
  command->callback([flags, &runner] { runner = [flags] { return runPredict(*flags); }; });
}

}  // namespace mlgo::cli
