// The mlgo executable: thin subcommands over the library. Everything a user
// sees on stdout is the result; logs and progress go to stderr.
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/distributed/cluster.h"
#include "mlgo/problems/inlining/inlining_hook.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/output_directory.h"

namespace {

/// Runs the chosen command and maps library errors to the documented exit
/// codes; `failed` tells an error from a command that returned its code.
int runMapped(const mlgo::cli::CommandRunner &runner, bool &failed) {
  failed = true;
  try {
    const int code = runner();
    failed = false;
    return code;
  } catch (const mlgo::UsageError &e) {
    spdlog::error("{}", e.what());
    return mlgo::exit_code::kUsage;
  } catch (const mlgo::RunStopped &e) {
    spdlog::error("{}", e.what());
    return mlgo::exit_code::kStopped;
  } catch (const mlgo::RankLost &e) {
    spdlog::error("{}", e.what());
    return mlgo::exit_code::kRankLost;
  } catch (const mlgo::OutputInUse &e) {
    spdlog::error("{}", e.what());
    return mlgo::exit_code::kOutputInUse;
  } catch (const mlgo::InputError &e) {
    spdlog::error("{}", e.what());
    return mlgo::exit_code::kBadInput;
  } catch (const std::exception &e) {
    spdlog::error("{}", e.what());
    return mlgo::exit_code::kFailure;
  }
}

/// The subcommands that divide their work among the ranks of an mpirun.
bool runsAcrossRanks(const CLI::App &app) {
  for (const CLI::App *command : app.get_subcommands())
    for (const char *name : {"default-trace", "autotune", "train-ppo"})
      if (command->get_name() == name) return true;
  return false;
}

}  // namespace

int main(int argc, char **argv) {
  auto logger = spdlog::stderr_color_mt("mlgo");
  logger->set_pattern("mlgo: %^%l%$: %v");
  spdlog::set_default_logger(logger);

  CLI::App app{"mlgo: train machine-learned compiler optimizations for LLVM 19"};
  app.set_version_flag("--version", std::string("mlgo ") + MLGO_VERSION);
  app.require_subcommand(1);
  std::string logLevel = "info";
  app.add_option("--log-level", logLevel, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  double rankTimeout = 120;
  app.add_option("--rank-timeout", rankTimeout,
                 "Under mpirun: seconds a rank may stay silent (no result, no heartbeat) before the run ends")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();

  mlgo::cli::CommandRunner runner;
  mlgo::cli::addExtractIRCommand(app, runner);
  mlgo::cli::addCombineCorpusCommand(app, runner);
  mlgo::cli::addEvalCommand(app, runner);
  mlgo::cli::addDefaultTraceCommand(app, runner);
  mlgo::cli::addTraceInfoCommand(app, runner);
  mlgo::cli::addGenVocabCommand(app, runner);
  mlgo::cli::addTrainBCCommand(app, runner);
  mlgo::cli::addTrainPPOCommand(app, runner);
  mlgo::cli::addExportCommand(app, runner);
  mlgo::cli::addServeCommand(app, runner);
  mlgo::cli::addAutotuneCommand(app, runner);
  mlgo::cli::addReportCommand(app, runner);
  mlgo::cli::addCompileWorkerCommand(app, runner);
  mlgo::cli::addMllvmOptionsCommand(app, runner);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return mlgo::exit_code::kUsage;
  }
  spdlog::set_level(spdlog::level::from_str(logLevel));
  mlgo::inlining::installInliningAdvisor();

  // Compile workers that an autotune rank starts inherit mpirun's
  // environment, but are not ranks.
  std::unique_ptr<mlgo::Cluster> cluster = mlgo::singleProcessCluster();
  if (mlgo::launchedByMpirun() && !app.got_subcommand("compile-worker")) {
    if (!runsAcrossRanks(app)) {
      spdlog::error("only default-trace, autotune and train-ppo run across ranks; run this command without mpirun");
      return mlgo::exit_code::kUsage;
    }
    try {
      cluster = mlgo::joinCluster(rankTimeout);
    } catch (const std::exception &e) {
      spdlog::error("{}", e.what());
      return mlgo::exit_code::kUsage;
    }
    logger->set_pattern("mlgo[rank " + std::to_string(cluster->rank()) + "]: %^%l%$: %v");
  }
  mlgo::cli::setRunCluster(cluster.get());
  bool failed = false;
  const int code = runMapped(runner, failed);
  // A rank that failed ends every rank: the others would wait on it.
  if (failed && cluster->distributed()) cluster->abortAll(code);
  mlgo::cli::setRunCluster(nullptr);
  return code;
}
