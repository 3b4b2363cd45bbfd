// mlgo sweep-passes: every module of a corpus under every list of a pool,
// with module features and gate verdicts: the data of a pass-list predictor.
#include <cstdio>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/autotune/pass_sweep.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
#include "pass_list_options.h"
#include "progress.h"

namespace mlgo::cli {

namespace {

struct SweepFlags {
  std::string corpus, output;
  std::vector<std::string> lists;
  bool resume = false, force = false;
  PassListFlags passLists;
  DriverFlags driver;
};

int runSweep(const SweepFlags &flags) {
  const autotune::SearchSpace space = loadSearchSpace(flags.passLists);
  autotune::SweepOptions options;
  options.lists =
      autotune::readPassListPools(std::vector<std::filesystem::path>(flags.lists.begin(), flags.lists.end()), space);
  options.output = flags.output;
  options.resume = flags.resume;
  options.progress = ProgressReporter::callback("sweep-passes");
  const auto outputLock =
      claimOutput(flags.output, "sweep-passes",
                  resumableOutput(flags.force, flags.resume),
                  "pass --resume to finish that sweep or --force to start over");
  const DriverOptions driverOptions = toDriverOptions(flags.driver);
  const CompileSession session(flags.corpus, driverOptions);
  const Corpus &corpus = session.corpus();
  const CompilerDriver &driver = session.driver();
  std::unique_ptr<IsolatedCompiler> workers;
  options.compile = candidateCompile(flags.passLists, flags.corpus, flags.driver, driverOptions, workers);
  Cluster &cluster = runCluster();
  const std::string gateWork = (std::filesystem::path(flags.output) / autotune::kGateWorkDirectory).string();
  const std::unique_ptr<autotune::CorrectnessGate> gate =
      cluster.isLeader() ? makeGate(flags.passLists, gateWork, flags.driver) : nullptr;
  options.gate = gate.get();
  spdlog::info("sweeping {} lists over {} modules", options.lists.size(), corpus.modules.size());

  const autotune::SweepSummary summary = autotune::sweepPassLists(corpus, driver, options, cluster);
  if (!cluster.isLeader()) return exit_code::kSuccess;
  std::error_code ignored;
  std::filesystem::remove_all(gateWork, ignored);
  std::printf("swept %zu lists over %zu of %zu modules (%zu from an earlier run); %zu compiles, %zu failed; gate: "
              "%zu lists rejected (%zu only for C++ link failures); %s/%s; %.1f s\n",
              options.lists.size(), summary.swept, summary.modules, summary.resumed, summary.compiles,
              summary.failedCompiles, summary.listsRejected, summary.listsCxxLinkOnly, flags.output.c_str(),
              autotune::SweepTable::kFile, summary.seconds);
  logMemoStats(driverOptions);
  logLostWorkers(workers);
  if (summary.swept == 0) {
    spdlog::error("every module failed; nothing was written to {}", flags.output);
    return exit_code::kFailure;
  }
  return summary.swept == summary.modules ? exit_code::kSuccess : exit_code::kPartialFailure;
}

}  // namespace

void addSweepPassesCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<SweepFlags>();
  command->add_option("--corpus", flags->corpus, "Corpus directory")->required();
  command
      ->add_option("--lists", flags->lists,
                   "The pool: a harvested pool's directory, autotune's best.json, a coreset file, a project's store "
                   "(mlgo cc --store: the lists its builds found), or a text file of one list per line (search-space elements separated by spaces); repeatable: each list once, in "
                   "order")
      ->required();
  command->add_option("--output", flags->output, "Directory for sweep.json")->required();
  CLI::Option *resume = command->add_flag("--resume", flags->resume, "Finish an interrupted sweep in --output");
  command->add_flag("--force", flags->force, "Replace what an earlier run left in --output")->excludes(resume);
  addPassListFlags(*command, flags->passLists);
  addDriverFlags(*command, flags->driver);
  command->callback([flags, &runner] { runner = [flags] { return runSweep(*flags); }; });
}

}  // namespace mlgo::cli
