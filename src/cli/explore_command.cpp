// mlgo explore: per-module search over a problem's decisions around a
// baseline, written as a trace of the best trajectories (for imitation).
#include <cstdio>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/autotune/search_budget.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/errors.h"
#include "mlgo/tracing/explore.h"
#include "mlgo/tracing/explore_baseline.h"
#include "progress.h"

namespace mlgo::cli {

namespace {

struct ExploreFlags {
  std::string corpus;
  std::string output;
  std::string problem;  ///< empty: chosenProblem decides
  std::string policy;
  bool aroundDefault = false;
  size_t flips = ExploreSettings{}.flips;
  size_t budget = ExploreSettings{}.budget;
  size_t shards = 8;
  bool resume = false;
  bool force = false;
  DriverFlags driver;
};

double percent(double value, double base) { return base ? 100.0 * (value / base - 1) : 0.0; }

int runExploreCommand(const ExploreFlags &flags) {
  const Problem &problem = chosenProblem(flags.problem);
  if (flags.aroundDefault && flags.policy.empty())
    throw UsageError("--around-default needs --policy: the policy that ranks the default's decisions");
  const std::unique_ptr<ExploreBaseline> baseline =
      flags.policy.empty() ? defaultExploreBaseline(problem)
                           : loadExploreBaseline(problem, flags.policy, flags.aroundDefault);
  const auto outputLock =
      claimOutput(flags.output, "explore",
                  resumableOutput(flags.force, flags.resume),
                  "pass --resume to finish that exploration or --force to start over");
  const CompileSession session(flags.corpus, toDriverOptions(flags.driver));
  const Corpus &corpus = session.corpus();
  const CompilerDriver &driver = session.driver();
  ExploreOptions options;
  options.output = flags.output;
  options.settings.baseline = baseline.get();
  options.settings.flips = flags.flips;
  options.settings.budget = flags.budget;
  options.baselineName = flags.policy.empty() ? "default" : flags.policy;
  options.shards = flags.shards;
  options.resume = flags.resume;

  Cluster &cluster = runCluster();
  const ExploreSummary summary =
      runExplore(corpus, driver, problem, options, ProgressReporter::callback("explore"), cluster);
  if (!cluster.isLeader()) return exit_code::kSuccess;  // rank 0 reports and writes
  logMemoStats(driver.options());
  for (const auto &[module, message] : summary.failures) spdlog::warn("left out {}: {}", module, message);
  std::printf("explored %zu of %zu modules (%zu from an earlier run), %zu failed, %zu improved; %s: default %.0f, "
              "baseline %.0f (%+.2f%%), explored %.0f (%+.2f%% vs default); %zu compiles in %s; %.1f s\n",
              summary.explored, summary.modules, summary.resumed, summary.failures.size(), summary.improved,
              summary.metric == "text" ? ".text" : summary.metric.c_str(), summary.defaultValue,
              summary.baselineValue, percent(summary.baselineValue, summary.defaultValue), summary.bestValue,
              percent(summary.bestValue, summary.defaultValue), summary.compiles, flags.output.c_str(),
              summary.seconds);
  if (summary.explored == 0) return exit_code::kFailure;
  return summary.failures.empty() ? exit_code::kSuccess : exit_code::kPartialFailure;
}

}  // namespace

void addExploreCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<ExploreFlags>();
  command->add_option("--corpus", flags->corpus, "Corpus directory")->required();
  command->add_option("--output", flags->output, "Trace directory to write")->required();
  addProblemOption(*command, flags->problem, "Optimization problem whose decisions are explored");
  command->add_option("--policy", flags->policy,
                      "Policy directory whose greedy decisions are the baseline (default: the default heuristic)");
  command->add_flag("--around-default", flags->aroundDefault,
                    "Keep the default heuristic's decisions as the baseline; --policy only ranks which to flip and "
                    "to what (how decisions among positions, such as regalloc's, are explored around the default)");
  command->add_option("--flips", flags->flips,
                      "Decisions flipped one at a time per module, or per function for regalloc (the least certain)")
      ->capture_default_str()
      ->check(wholeNumber(1));
  command->add_option("--budget", flags->budget, "Compiles per module, the baseline's included")
      ->capture_default_str()
      ->check(wholeNumber(2, autotune::kMaxSearchBudget));
  command->add_option("--shards", flags->shards, "Number of trace files (fixed so files never depend on --threads)")
      ->capture_default_str()
      ->check(wholeNumber(1, kMaxTraceShards));
  CLI::Option *resume = command->add_flag("--resume", flags->resume, "Finish an interrupted exploration in --output");
  command->add_flag("--force", flags->force, "Replace what an earlier run left in --output")->excludes(resume);
  addDriverFlags(*command, flags->driver);
  command->callback([flags, &runner] { runner = [flags] { return runExploreCommand(*flags); }; });
}

}  // namespace mlgo::cli
