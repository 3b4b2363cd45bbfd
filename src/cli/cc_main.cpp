// `mlgo cc`'s own entry points. A build runs mlgo cc once per compile and per
// link, so what its start costs is paid hundreds of times: the mlgo
// executable (entry.cpp) loads this library, which links mlgo_core (LLVM and
// clang, as clang-19 itself) and none of the other commands, their CLI11
// tables, protobuf or OpenMPI. The flags and exit codes are the full command
// line's: the cc subcommand and the error mapping are the same code.
#include <CLI/CLI.hpp>

#include "commands.h"
#include "exit_code_mapping.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/exit_codes.h"

namespace {

/// The command line parsed as the full one parses `mlgo cc`: -1 with the cc
/// subcommand ready to run, or the exit code of help or a usage error.
int parseCc(CLI::App &app, mlgo::cli::CommandRunner &runner, int argc, char **argv) {
  app.require_subcommand(1);
  const mlgo::cli::Subcommand &cc = mlgo::cli::kCcSubcommand;
  cc.addFlags(app.add_subcommand(cc.name, cc.summary), runner);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return mlgo::exit_code::kUsage;
  }
  return -1;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int mlgo_cc_main(int argc, char **argv) {
  mlgo::cli::installStderrLogger();
  CLI::App app{"mlgo: train machine-learned compiler optimizations for LLVM 19"};
  mlgo::cli::CommandRunner runner;
  if (const int code = parseCc(app, runner, argc, argv); code >= 0) return code;
  mlgo::installEveryProblem();
  bool failed = false;
  return mlgo::cli::runMapped(runner, failed);
}

/// The same command line after the process that ran mlgo_cc_main for it died
/// by `signal` (entry.cpp): its compiler command, as clang would run it.
extern "C" __attribute__((visibility("default"))) int mlgo_cc_after_death(int argc, char **argv, int signal) {
  mlgo::cli::installStderrLogger();
  CLI::App app{"mlgo: train machine-learned compiler optimizations for LLVM 19"};
  mlgo::cli::CommandRunner runner;
  if (const int code = parseCc(app, runner, argc, argv); code >= 0) return code;
  return mlgo::cli::compileAsClangAfterDeath(app.get_subcommands().at(0)->remaining(), signal);
}
