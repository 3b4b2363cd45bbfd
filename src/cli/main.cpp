// The mlgo executable: thin subcommands over the library. Everything a user
// sees on stdout is the result; logs and progress go to stderr.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "exit_code_mapping.h"
#include "run_manifest_flags.h"
#include "training_library_loader.h"
#include "mlgo/distributed/cluster.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/exit_codes.h"

namespace {

/// The table's row of the subcommand the command line chose.
const mlgo::cli::Subcommand &chosenSubcommand(const CLI::App &app) {
  const std::string name = app.get_subcommands().at(0)->get_name();
  for (const mlgo::cli::Subcommand &subcommand : mlgo::cli::subcommands())
    if (name == subcommand.name) return subcommand;
  throw std::logic_error("subcommand " + name + " is not in the table");
}

/// "a, b and c": the subcommands that run across ranks, for the message.
std::string subcommandsAcrossRanks() {
  std::vector<std::string> names;
  for (const mlgo::cli::Subcommand &subcommand : mlgo::cli::subcommands())
    if (subcommand.acrossRanks) names.push_back(subcommand.name);
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return text;
}

}  // namespace

/// The whole command line interface; the mlgo executable (entry.cpp) loads
/// this library and calls it, except for `mlgo cc` (libmlgo_cc.so, cc_main.cpp).
extern "C" __attribute__((visibility("default"))) int mlgo_main(int argc, char **argv) {
  auto logger = mlgo::cli::installStderrLogger();

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
      ->check(mlgo::cli::finiteSeconds(false))
      ->capture_default_str();

  mlgo::cli::CommandRunner runner;
  for (const mlgo::cli::Subcommand &subcommand : mlgo::cli::subcommands())
    subcommand.addFlags(app.add_subcommand(subcommand.name, subcommand.summary), runner);

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
  mlgo::installEveryProblem();
  const mlgo::cli::Subcommand &chosen = chosenSubcommand(app);

  // Compile workers that an autotune rank starts inherit mpirun's
  // environment, but are not ranks.
  std::unique_ptr<mlgo::Cluster> cluster = mlgo::singleProcessCluster();
  if (mlgo::launchedByMpirun() && !app.got_subcommand("compile-worker")) {
    if (!chosen.acrossRanks) {
      spdlog::error("only {} run across ranks; run this command without mpirun", subcommandsAcrossRanks());
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
  // A missing training library fails now, before inputs are read or an
  // output is claimed.
  const int code = mlgo::cli::runMapped(
      [&] {
        if (chosen.needsTraining) mlgo::cli::trainingLibrary();
        return runner();
      },
      failed);
  if (code == mlgo::exit_code::kSuccess || code == mlgo::exit_code::kPartialFailure)
    mlgo::cli::writeManifestOfRun(*app.get_subcommands().at(0), chosen);
  // A rank that failed ends every rank: the others would wait on it.
  if (failed && cluster->distributed()) cluster->abortAll(code);
  mlgo::cli::setRunCluster(nullptr);
  return code;
}
