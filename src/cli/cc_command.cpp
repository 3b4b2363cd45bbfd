// mlgo cc: a compiler launcher. `mlgo cc [options] COMPILER ARGS...` compiles
// a C or C++ source to an object in-process with what it is given (a policy,
// tuned pass lists), and runs the real compiler for everything else and for
// every translation unit where applying fails.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/launcher/application.h"
#include "mlgo/launcher/compile_plan.h"
#include "mlgo/launcher/launch_log.h"
#include "mlgo/launcher/translation_unit.h"
#include "mlgo/support/data_paths.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

namespace {

namespace fs = std::filesystem;

/// Built and installed beside libmlgo_core.so.
constexpr const char *kPassPluginFile = "mlgo-pass-plugin.so";

struct CcFlags {
  std::string policy;
  std::string passLists;
  std::string log;
  bool predict = false;
  std::string predictor;
  size_t predictedLists = 1;
  double timeout = 600;
  bool printPluginPath = false;
  std::vector<std::string> command;  ///< the compiler and its arguments
};

/// Build systems that cannot pass flags to a launcher set these instead; a
/// flag wins over its variable.
void takeEnvironment(CcFlags &flags) {
  auto fromEnvironment = [](std::string &value, const char *variable) {
    const char *set = std::getenv(variable);
    if (value.empty() && set && *set) value = set;
  };
  fromEnvironment(flags.policy, "MLGO_CC_POLICY");
  fromEnvironment(flags.passLists, "MLGO_CC_PASS_LISTS");
  fromEnvironment(flags.log, "MLGO_CC_LOG");
  // MLGO_CC_PREDICT=1: the shipped predictor; another value names one.
  std::string predict;
  fromEnvironment(predict, "MLGO_CC_PREDICT");
  if (!flags.predict && flags.predictor.empty() && !predict.empty() && predict != "0") {
    flags.predict = true;
    if (predict != "1") flags.predictor = predict;
  }
  if (!flags.predictor.empty()) flags.predict = true;
}

/// Whole milliseconds, at least one: a positive timeout never means "none".
std::chrono::milliseconds timeoutOf(double seconds) {
  return std::chrono::milliseconds(std::max<int64_t>(1, int64_t(std::ceil(seconds * 1000))));
}

/// Replaces this process by the real compiler: its exit code, output and
/// diagnostics are the build's. Returns only when it cannot be started.
int runRealCompiler(const CcFlags &flags, const fs::path &found) {
  std::vector<char *> argv;
  for (const std::string &arg : flags.command) argv.push_back(const_cast<char *>(arg.c_str()));
  argv.push_back(nullptr);
  spdlog::default_logger()->flush();
  ::execv(found.c_str(), argv.data());
  throw UsageError("cannot run the compiler " + flags.command.front() + " (" + found.string() +
                   "): " + std::strerror(errno));
}

int runCc(CcFlags flags) {
  if (flags.printPluginPath) {
    const fs::path plugin = coreLibraryDirectory() / kPassPluginFile;
    if (!fs::is_regular_file(plugin)) throw std::runtime_error("mlgo's pass plugin is missing: " + plugin.string());
    std::printf("%s\n", plugin.c_str());
    return exit_code::kSuccess;
  }
  if (flags.command.empty()) throw UsageError("mlgo cc: give the compiler and its arguments, e.g. mlgo cc clang-19 -c x.c");
  takeEnvironment(flags);
  const launcher::Application application = launcher::loadApplication(
      {flags.policy, flags.passLists, flags.predict, flags.predictor, flags.predictedLists}, timeoutOf(flags.timeout));
  const std::vector<std::string> args(flags.command.begin() + 1, flags.command.end());
  const fs::path compiler = launcher::findCompiler(flags.command.front());
  if (compiler.empty()) throw UsageError("mlgo cc: no compiler " + flags.command.front() + " (not a file, not in PATH)");
  if (application.empty()) return runRealCompiler(flags, compiler);

  const launcher::CompilePlan plan = launcher::planCompile(flags.command.front(), args);
  if (!plan.inProcess()) return runRealCompiler(flags, compiler);
  const launcher::TranslationUnitOutcome outcome =
      launcher::compileTranslationUnit(plan, application, fs::current_path());
  if (!flags.log.empty()) launcher::appendLogLine(flags.log, launcher::logRecord(plan, application, outcome));
  if (outcome.compiled) {
    std::fputs(outcome.diagnostics.c_str(), stderr);
    return exit_code::kSuccess;
  }
  // The real compiler prints its own diagnostics: ours are not repeated.
  if (outcome.fallback != "clang's frontend reported errors")
    spdlog::warn("{}: {}; compiled plainly", plan.source.string(), outcome.fallback);
  return runRealCompiler(flags, compiler);
}

}  // namespace

void addCcCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<CcFlags>();
  // Everything from the compiler on is the compiler's.
  command->prefix_command();
  command->add_option("--policy", flags->policy,
                      "Trained policy directory to compile with (its problem is read from it; env MLGO_CC_POLICY)");
  command->add_option("--pass-lists", flags->passLists,
                      "autotune's best.json (or predict-passes --json): each translation unit gets its module's "
                      "list, matched by object name (env MLGO_CC_PASS_LISTS)");
  command->add_flag("--predict", flags->predict,
                    "Units without a tuned list: compile the predictor's first lists beside the recorded level and "
                    "keep the smallest object (env MLGO_CC_PREDICT=1)");
  command->add_option("--predictor", flags->predictor,
                      "Predictor directory for --predict (default: the one shipped with mlgo; env MLGO_CC_PREDICT=DIR)");
  command->add_option("--predicted-lists", flags->predictedLists, "How many of the predictor's lists a unit tries")
      ->capture_default_str()
      ->check(wholeNumber(1, 1000));
  command->add_option("--log", flags->log,
                      "Append one JSON line per translation unit: what was applied, sizes, fallbacks (env MLGO_CC_LOG)");
  command->add_flag("--print-plugin-path", flags->printPluginPath,
                    "Print the pass plugin's path: MLGO_CC_POLICY=DIR clang-19 -fpass-plugin=PATH compiles with "
                    "the policy in DIR, no launcher needed");
  command->add_option("--timeout", flags->timeout,
                      "Seconds of CPU time one translation unit may take in-process before it is compiled plainly")
      ->capture_default_str()
      ->check(finiteSeconds(false));
  command->callback([flags, command, &runner] {
    flags->command = command->remaining();
    runner = [flags] { return runCc(*flags); };
  });
}

}  // namespace mlgo::cli
