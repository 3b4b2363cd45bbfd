// mlgo explore: per-module search over a problem's decisions around a
// baseline, written as a trace of the best trajectories (for imitation).
#include <cstdio>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/trace/explore.h"
#include "progress.h"

namespace mlgo::cli {

namespace {

struct ExploreFlags {
  std::string corpus;
  std::string output;
  std::string problem = "inlining";
  std::string policy;
  size_t flips = ExploreSettings{}.flips;
  size_t budget = ExploreSettings{}.budget;
  size_t shards = 8;
  bool resume = false;
  bool force = false;
  DriverFlags driver;
};

double percent(uint64_t size, uint64_t base) { return base ? 100.0 * (double(size) / double(base) - 1) : 0.0; }

int runExploreCommand(const ExploreFlags &flags) {
  const Problem &problem = findProblem(flags.problem);
  requireScalarBinaryDecisions(problem, "explore");
  std::optional<PolicyModel> baseline;
  if (!flags.policy.empty()) baseline = PolicyModel::load(flags.policy, problem.name(), problem.featureNames());
  const auto outputLock =
      claimOutput(flags.output, "explore",
                  resumableOutput(flags.force, flags.resume),
                  "pass --resume to finish that exploration or --force to start over");
  const CompileSession session(flags.corpus, toDriverOptions(flags.driver));
  const Corpus &corpus = session.corpus();
  const CompilerDriver &driver = session.driver();
  ExploreOptions options;
  options.output = flags.output;
  options.settings.baseline = baseline ? &*baseline : nullptr;
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
  std::printf("explored %zu of %zu modules (%zu from an earlier run), %zu failed, %zu improved; .text: default %llu, "
              "baseline %llu (%+.2f%%), explored %llu (%+.2f%% vs default); %zu compiles in %s; %.1f s\n",
              summary.explored, summary.modules, summary.resumed, summary.failures.size(), summary.improved,
              (unsigned long long)summary.defaultSize, (unsigned long long)summary.baselineSize,
              percent(summary.baselineSize, summary.defaultSize), (unsigned long long)summary.bestSize,
              percent(summary.bestSize, summary.defaultSize), summary.compiles, flags.output.c_str(), summary.seconds);
  if (summary.explored == 0) return exit_code::kFailure;
  return summary.failures.empty() ? exit_code::kSuccess : exit_code::kPartialFailure;
}

}  // namespace

void addExploreCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<ExploreFlags>();
  command->add_option("--corpus", flags->corpus, "Corpus directory")->required();
  command->add_option("--output", flags->output, "Trace directory to write")->required();
  command->add_option("--problem", flags->problem, "Optimization problem")->capture_default_str();
  command->add_option("--policy", flags->policy,
                      "Policy directory whose greedy decisions are the baseline (default: the default heuristic)");
  command->add_option("--flips", flags->flips, "Decisions flipped one at a time per module (the least certain)")
      ->capture_default_str()
      ->check(wholeNumber(1));
  command->add_option("--budget", flags->budget, "Compiles per module, the baseline's included")
      ->capture_default_str()
      ->check(wholeNumber(2));
  command->add_option("--shards", flags->shards, "Number of trace files (fixed so files never depend on --threads)")
      ->capture_default_str()
      ->check(wholeNumber(1));
  CLI::Option *resume = command->add_flag("--resume", flags->resume, "Finish an interrupted exploration in --output");
  command->add_flag("--force", flags->force, "Replace what an earlier run left in --output")->excludes(resume);
  addDriverFlags(*command, flags->driver);
  command->callback([flags, &runner] { runner = [flags] { return runExploreCommand(*flags); }; });
}

}  // namespace mlgo::cli
