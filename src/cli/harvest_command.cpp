// mlgo harvest: grows the pass-list pool over a corpus, saving it as modules
// finish, continuing where an earlier harvest stopped.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

#include "commands.h"
#include "common_options.h"
#include "pass_list_options.h"
#include "mlgo/autotune/search_budget.h"
#include "mlgo/autotune/harvest.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/temporary_directory.h"
#include "progress.h"

namespace mlgo::cli {

namespace {

// Defaults are the library's, so the two cannot drift apart.
const autotune::HarvestOptions kDefaults;

struct HarvestFlags {
  std::string corpus, pool;
  size_t budget = kDefaults.tuning.budget;
  size_t listsKept = kDefaults.listsKept;
  size_t chunk = kDefaults.chunk;
  size_t limit = 0;
  uint64_t seed = 0;
  std::string strategy = autotune::strategyName(kDefaults.tuning.search.strategy);
  std::string metric = sizeMetricName(kDefaults.tuning.metric);
  size_t gateFallbacks = kDefaults.tuning.gateFallbacks;
  PassListFlags passLists;
  DriverFlags driver;
};

int runHarvest(const HarvestFlags &flags) {
  const autotune::SearchSpace space = loadSearchSpace(flags.passLists);
  // One harvest per pool: two would each rewrite the same project files.
  const auto poolLock = claimOutput(flags.pool, "harvest", ExistingOutput::Keep);
  autotune::PassPool pool = autotune::PassPool::load(flags.pool, space);

  autotune::HarvestOptions options;
  options.tuning.budget = flags.budget;
  options.tuning.metric = *parseSizeMetric(flags.metric);
  options.tuning.search.strategy = *autotune::parseStrategy(flags.strategy);
  options.tuning.search.seed = flags.seed;
  options.tuning.gateFallbacks = flags.gateFallbacks;
  options.listsKept = flags.listsKept;
  options.chunk = flags.chunk;
  options.limit = flags.limit;
  options.progress = ProgressReporter::callback("harvest");

  const DriverOptions driverOptions = toDriverOptions(flags.driver);
  const CompileSession session(flags.corpus, driverOptions);
  std::unique_ptr<IsolatedCompiler> isolated;
  options.tuning.compile = candidateCompile(flags.passLists, flags.corpus, flags.driver, driverOptions, isolated);
  // The gate's scratch files stay out of the pool, which lives in a
  // repository; a killed harvest's are removed by the next one.
  const RunTemporaryDirectory gateWork("mlgo-harvest-gate");
  const std::unique_ptr<autotune::CorrectnessGate> gate =
      makeGate(flags.passLists, gateWork.path().string(), flags.driver);

  const autotune::HarvestReport report =
      autotune::harvestCorpus(session.corpus(), session.driver(), space, options, gate.get(), pool);
  std::printf("%zu modules: %zu already in the pool, %zu harvested (%zu whose -Oz compile failed), %zu left for a "
              "later run, %zu unreadable; %zu compilations, %zu gate checks (%zu verdicts remembered); %.1f s; "
              "pool %s\n",
              report.modules, report.known, report.harvested, report.failed, report.remaining, report.unreadable,
              report.compilations, gate ? gate->listsChecked() : size_t(0),
              gate ? gate->verdictsRemembered() : size_t(0), report.seconds, flags.pool.c_str());
  logMemoStats(driverOptions);
  logLostWorkers(isolated);
  return report.failed + report.unreadable > 0 ? exit_code::kPartialFailure : exit_code::kSuccess;
}

}  // namespace

void addHarvestCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<HarvestFlags>();
  command->add_option("--corpus", flags->corpus, "Corpus directory")->required();
  command->add_option("--pool", flags->pool, "Pool directory (mlgo's own: configs/autotune/pool)")->required();
  command->add_option("--budget", flags->budget, "Compilations per module searched")
      ->capture_default_str()
      ->check(wholeNumber(2, autotune::kMaxSearchBudget));
  command->add_option("--keep", flags->listsKept, "Lists kept per module: the best and runners-up the gate accepts")
      ->capture_default_str()
      ->check(wholeNumber(1));
  command->add_option("--chunk", flags->chunk, "Modules finished between two saves of the pool")
      ->capture_default_str()
      ->check(wholeNumber(1));
  command->add_option("--limit", flags->limit, "At most this many modules searched in this run (0: all)")
      ->capture_default_str()
      ->check(wholeNumber());
  command->add_option("--seed", flags->seed, "Seed of the search")->capture_default_str()->check(wholeNumber());
  command->add_option("--strategy", flags->strategy, "hybrid, local or random (as autotune's)")
      ->check(CLI::IsMember({"hybrid", "local", "random"}))
      ->capture_default_str();
  command->add_option("--metric", flags->metric, "text or text+data")
      ->check(CLI::IsMember({"text", "text+data"}))
      ->capture_default_str();
  command->add_option("--gate-fallbacks", flags->gateFallbacks, "Runners-up gated when a module's best is rejected")
      ->capture_default_str()
      ->check(wholeNumber());
  addPassListFlags(*command, flags->passLists);
  addDriverFlags(*command, flags->driver);
  command->callback([flags, &runner] { runner = [flags] { return runHarvest(*flags); }; });
}

}  // namespace mlgo::cli
