// mlgo default-trace: record the default heuristic's decisions over a corpus.
#include <cstdio>
#include <iostream>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/tracing/default_trace.h"
#include "progress.h"

namespace mlgo::cli {

namespace {

struct DefaultTraceFlags {
  std::string corpus;
  std::string output;
  std::string problem;  ///< empty: chosenProblem decides
  double samplingRate = 1.0;
  std::string moduleFilter;
  uint64_t seed = 0;
  size_t shards = 8;
  bool force = false;
  DriverFlags driver;
};

int runDefaultTraceCommand(const DefaultTraceFlags &flags) {
  const Problem &problem = chosenProblem(flags.problem);
  const auto outputLock = claimOutput(flags.output, "default-trace", freshOutput(flags.force));
  const CompileSession session(flags.corpus, toDriverOptions(flags.driver));
  const CompilerDriver &driver = session.driver();
  DefaultTraceOptions options;
  options.output = flags.output;
  options.samplingRate = flags.samplingRate;
  if (!flags.moduleFilter.empty()) options.moduleFilter = flags.moduleFilter;
  options.seed = flags.seed;
  options.shards = flags.shards;

  Cluster &cluster = runCluster();
  DefaultTraceSummary summary =
      runDefaultTrace(session.corpus(), driver, problem, options, ProgressReporter::callback("default-trace"), cluster);
  if (!cluster.isLeader()) return exit_code::kSuccess;  // rank 0 reports and writes
  logMemoStats(driver.options());
  for (const TracedFailure &failure : summary.failures)
    spdlog::warn("left out {}: {}: {}", failure.module, failureKindName(failure.failure), failure.message);
  std::printf("traced %zu of %zu sampled modules (%zu in the corpus), %zu failed; %llu decisions, %llu bytes "
              "(%.1f bytes per decision) in %s; %.1f s\n",
              summary.traced, summary.sampled, summary.corpusModules, summary.failures.size(),
              (unsigned long long)summary.decisions, (unsigned long long)summary.traceBytes,
              summary.decisions ? double(summary.recordBytes) / summary.decisions : 0.0, flags.output.c_str(),
              summary.seconds);
  if (summary.traced == 0) return exit_code::kFailure;
  return summary.failures.empty() ? exit_code::kSuccess : exit_code::kPartialFailure;
}

}  // namespace

void addDefaultTraceCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<DefaultTraceFlags>();
  command->add_option("--corpus", flags->corpus, "Corpus directory")->required();
  command->add_option("--output", flags->output, "Trace directory to write")->required();
  addProblemOption(*command, flags->problem, "Optimization problem whose decisions are traced");
  command->add_option("--sampling-rate", flags->samplingRate, "Share of modules to trace, in (0, 1]")
      ->capture_default_str();
  command->add_option("--module-filter", flags->moduleFilter, "Only modules whose name matches this regex");
  command->add_option("--seed", flags->seed, "Seed of the module sampling")->capture_default_str()
      ->check(wholeNumber());
  command->add_option("--shards", flags->shards, "Number of trace files (fixed so files never depend on --threads)")
      ->capture_default_str()
      ->check(wholeNumber(1, kMaxTraceShards));
  command->add_flag("--force", flags->force, "Replace what an earlier run left in --output");
  addDriverFlags(*command, flags->driver);
  command->callback([flags, &runner] { runner = [flags] { return runDefaultTraceCommand(*flags); }; });
}

}  // namespace mlgo::cli
