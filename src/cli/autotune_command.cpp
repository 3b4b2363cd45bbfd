// mlgo autotune: per-module pass-list search for code size, minimized and
// checked by the correctness gate.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

#include "commands.h"
#include "common_options.h"
#include "pass_list_options.h"
#include "mlgo/autotune/search_budget.h"
#include "mlgo/autotune/pass_predictor.h"
#include "mlgo/autotune/autotuner.h"
#include "mlgo/autotune/dataset.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
#include "progress.h"

namespace mlgo::cli {

namespace {

// Defaults are the library's, so the two cannot drift apart.
const autotune::AutotuneOptions kDefaults;

struct AutotuneFlags {
  std::string corpus;
  std::string output;
  size_t budget = kDefaults.budget;
  std::string metric = sizeMetricName(kDefaults.metric);
  std::string strategy = autotune::strategyName(kDefaults.search.strategy);
  uint64_t seed = 0;
  size_t broadcast = kDefaults.broadcastLists;
  size_t gateFallbacks = kDefaults.gateFallbacks;
  std::string predictor;
  std::string dataset;
  bool listPasses = false;
  PassListFlags passLists;
  DriverFlags driver;
};

int listPasses(const autotune::SearchSpace &space) {
  for (const autotune::PassElement &pass : space.all())
    std::printf("%s\t%s\t%s\t%s\n", pass.included ? "include" : "exclude", pass.level.c_str(), pass.element.c_str(),
                pass.reason.c_str());
  std::fprintf(stderr, "%zu passes, %zu searched\n", space.all().size(), space.passes().size());
  return exit_code::kSuccess;
}

int runAutotune(const AutotuneFlags &flags) {
  const autotune::SearchSpace space = loadSearchSpace(flags.passLists);
  if (flags.listPasses) return listPasses(space);
  if (flags.corpus.empty() || flags.output.empty()) throw UsageError("autotune needs --corpus and --output");
  const bool predicted = flags.strategy == "predicted";
  if (flags.budget < (predicted ? 1 : 2))
    throw UsageError(predicted ? "--budget must be at least 1 (lists of the predictor's ranking)"
                               : "--budget must be at least 2 (the -Oz compile and one candidate)");
  if (!flags.predictor.empty() && !predicted) throw UsageError("--predictor goes with --strategy predicted");
  const auto outputLock = claimOutput(flags.output, "autotune", ExistingOutput::Keep);

  autotune::AutotuneOptions options;
  options.budget = flags.budget;
  options.metric = *parseSizeMetric(flags.metric);
  options.search.strategy = *autotune::parseStrategy(flags.strategy);
  options.search.seed = flags.seed;
  options.broadcastLists = flags.broadcast;
  options.gateFallbacks = flags.gateFallbacks;
  options.progress = ProgressReporter::callback("autotune");
  std::optional<autotune::PassPredictor> predictor;
  if (predicted) {
    const std::filesystem::path directory =
        flags.predictor.empty() ? autotune::defaultPredictorDirectory() : std::filesystem::path(flags.predictor);
    predictor = autotune::PassPredictor::load(directory, space);
    if (!predictor->coreset().excludedLists.empty())
      spdlog::warn("{}: {} of its lists use passes the search space excludes and are left out ({}, ...)",
                   directory.string(), predictor->coreset().excludedLists.size(),
                   predictor->coreset().excludedLists.front());
    options.search.predictor = &*predictor;
    options.search.predictorLists =
        autotune::predictedLists(*predictor, space, (directory / autotune::PassPredictor::kMetadataFile).string());
    // K ranked lists and the -Oz backup; the lists passed the gate when
    // their coreset was swept, so neither broadcasting nor the gate runs.
    options.budget = flags.budget + 1;
    options.broadcastLists = 0;
    spdlog::info("predictor {}: {} lists ranked by the {}, trying the first {} a module", directory.string(),
                 predictor->coreset().lists.size(), autotune::rankingName(predictor->ranking), flags.budget);
  }

  const DriverOptions driverOptions = toDriverOptions(flags.driver);
  const CompileSession session(flags.corpus, driverOptions);
  const Corpus &corpus = session.corpus();
  const CompilerDriver &driver = session.driver();

  std::unique_ptr<IsolatedCompiler> isolated;
  options.compile = candidateCompile(flags.passLists, flags.corpus, flags.driver, driverOptions, isolated);

  // Rank 0 gates the winners and writes the outputs.
  Cluster &cluster = runCluster();
  const std::filesystem::path gateWork = std::filesystem::path(flags.output) / "gate-work";
  const std::unique_ptr<autotune::CorrectnessGate> gate =
      cluster.isLeader() && !predicted ? makeGate(flags.passLists, gateWork.string(), flags.driver) : nullptr;

  const autotune::AutotuneReport report = autotuneCorpus(corpus, driver, space, options, gate.get(), cluster);
  if (!cluster.isLeader()) return exit_code::kSuccess;
  std::error_code ignored;
  std::filesystem::remove_all(gateWork, ignored);
  const nlohmann::json json = autotune::autotuneReportToJson(report, space, options);
  if (json["summary"]["tuned"].get<size_t>() == 0) {
    // Nothing usable: an earlier run's best.json stays as it was.
    for (const autotune::ModuleTuning &tuning : report.modules) spdlog::error("{}: {}", tuning.name, tuning.failure);
    spdlog::error("every module failed; nothing was written to {}", flags.output);
    return exit_code::kFailure;
  }
  writeFileAtomically(std::filesystem::path(flags.output) / "best.json", json.dump(2) + "\n");
  if (!flags.dataset.empty()) autotune::writeDataset(report, corpus, space, options, flags.dataset);

  const nlohmann::json &summary = json["summary"];
  std::printf(
      "%zu modules, %zu improved; geomean %s change vs -Oz %+.2f%% (IR instructions %+.2f%%); %zu compilations (%zu failed "
      "candidates); gate: %zu lists checked, %zu rejected, %zu culprits isolated, %zu fallbacks screened out; mean "
      "list length %.2f; %.1f s\n",
      report.modules.size(), report.improved, flags.metric.c_str(), 100 * report.geomeanChange,
      100 * report.geomeanIrChange, report.compilations,
      report.failedCandidates, report.listsGated, report.listsRejected, report.culprits.size(),
      report.fallbacksScreenedOut, summary["mean_list_length"].get<double>(), report.seconds);
  for (const autotune::ModuleTuning &tuning : report.modules)
    if (!tuning.ok) spdlog::warn("{}: {}", tuning.name, tuning.failure);
  if (gate && gate->verdictsRemembered() > 0)
    spdlog::info("correctness gate: {} verdicts remembered from earlier runs", gate->verdictsRemembered());
  logMemoStats(driverOptions);
  logLostWorkers(isolated);
  return report.modules.size() == summary["tuned"].get<size_t>() ? exit_code::kSuccess : exit_code::kPartialFailure;
}

}  // namespace

void addAutotuneCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<AutotuneFlags>();
  command->add_option("--corpus", flags->corpus, "Corpus directory");
  command->add_option("--output", flags->output, "Directory for best.json");
  command
      ->add_option("--budget", flags->budget,
                   "Compilations per module, every phase included (predicted: ranked lists tried, -Oz besides)")
      ->capture_default_str()
      ->check(wholeNumber(1, autotune::kMaxSearchBudget));
  command->add_option("--metric", flags->metric, "text or text+data")
      ->check(CLI::IsMember({"text", "text+data"}))
      ->capture_default_str();
  command
      ->add_option("--strategy", flags->strategy,
                   "hybrid (local's start, half of the search on random lists, then local edits), local (-Oz "
                   "and known good variants, then local edits), random (LLM Compiler's baseline) or predicted "
                   "(the --budget first lists of a learned predictor's ranking, plus -Oz)")
      ->check(CLI::IsMember({"hybrid", "local", "random", "predicted"}))
      ->capture_default_str();
  command->add_option("--predictor", flags->predictor,
                      "Predictor directory for --strategy predicted (default: the one shipped with mlgo, "
                      "configs/autotune/pass-predictor)");
  command->add_option("--seed", flags->seed, "Seed of the search")->capture_default_str()
      ->check(wholeNumber());
  command->add_option("--broadcast", flags->broadcast, "Most frequent winning lists every module tries")
      ->capture_default_str()
      ->check(wholeNumber());
  command
      ->add_option("--gate-fallbacks", flags->gateFallbacks,
                   "Runners-up a module puts through the gate, in order of size, when the gate rejects its best list "
                   "(those that break a program that failed before are screened out first and do not count)")
      ->capture_default_str()
      ->check(wholeNumber());
  command->add_option("--dataset", flags->dataset, "Also write one JSON line per module: IR, best list, sizes")
      ->check(outputFile());
  command->add_flag("--list-passes", flags->listPasses, "Print the search space with reasons and exit");
  addPassListFlags(*command, flags->passLists);
  addDriverFlags(*command, flags->driver);
  command->callback([flags, &runner] { runner = [flags] { return runAutotune(*flags); }; });
}

}  // namespace mlgo::cli
