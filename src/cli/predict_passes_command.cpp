// mlgo predict-passes: a predictor's ranked pass lists for each module of a
// corpus, without compiling anything.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/autotune/module_features.h"
#include "mlgo/autotune/pass_predictor.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/parallel_for.h"

namespace mlgo::cli {

namespace {

struct PredictFlags {
  std::string corpus, predictor, json;
  std::vector<std::string> modules;
  size_t top = 5;
  unsigned threads = 0;
};

int runPredict(const PredictFlags &flags) {
  const std::filesystem::path directory =
      flags.predictor.empty() ? autotune::defaultPredictorDirectory() : std::filesystem::path(flags.predictor);
  const autotune::PassPredictor predictor =
      autotune::PassPredictor::load(directory, autotune::SearchSpace::load(autotune::defaultSearchSpaceFile()));
  if (!predictor.coreset().excludedLists.empty())
    spdlog::warn("{}: {} of its lists use passes the search space excludes and are left out ({}, ...)",
                 directory.string(), predictor.coreset().excludedLists.size(),
                 predictor.coreset().excludedLists.front());
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
    std::printf("%s\n", modules[i]->name.c_str());
    nlohmann::json ranked = nlohmann::json::array();
    for (size_t r = 0; r < rankings[i].size() && r < flags.top; ++r) {
      const autotune::CoresetList &list = lists[rankings[i][r]];
      std::string names;
      for (const std::string &pass : list.passes) names += (names.empty() ? "" : " ") + pass;
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
    writeFileAtomically(flags.json, nlohmann::json{{"format", "mlgo-predicted-passes"},
                                                   {"version", 1},
                                                   {"predictor", directory.string()},
                                                   {"ranking", autotune::rankingName(predictor.ranking)},
                                                   {"modules", entries}}
                                            .dump(2) +
                                        "\n");
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
  command->add_option("--threads", flags->threads, "Threads computing features (0: one per core)")
      ->check(wholeNumber());
  command->callback([flags, &runner] { runner = [flags] { return runPredict(*flags); }; });
}

}  // namespace mlgo::cli
