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

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "commands.h"
#include "validators.h"
#include "mlgo/launcher/application.h"
#include "mlgo/launcher/compile_plan.h"
#include "mlgo/launcher/launch_log.h"
#include "mlgo/launcher/store_link.h"
#include "mlgo/launcher/translation_unit.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/support/atomic_file.h"
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
  bool neverLarger = false;
  std::string choices;
  std::string linkMaps;
  std::string record;
  std::string store;
  size_t explore = 0;
  size_t exploreBudget = 500;
  std::string gatePrograms;
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
  fromEnvironment(flags.choices, "MLGO_CC_CHOICES");
  fromEnvironment(flags.linkMaps, "MLGO_CC_LINK_MAPS");
  fromEnvironment(flags.record, "MLGO_CC_RECORD");
  fromEnvironment(flags.store, "MLGO_CC_STORE");
  fromEnvironment(flags.gatePrograms, "MLGO_CC_GATE_PROGRAMS");
  if (const char *explore = std::getenv("MLGO_CC_EXPLORE"); flags.explore == 0 && explore && *explore) {
    char *end = nullptr;
    const unsigned long long value = std::strtoull(explore, &end, 10);
    if (*end != '\0' || value > 1000)
      throw UsageError(std::string("MLGO_CC_EXPLORE: expected a whole number from 0 to 1000, got \"") + explore + "\"");
    flags.explore = size_t(value);
  }
  if (const char *backup = std::getenv("MLGO_CC_NEVER_LARGER"); backup && *backup && std::string(backup) != "0")
    flags.neverLarger = true;
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

fs::path passPlugin() {
  const fs::path plugin = coreLibraryDirectory() / kPassPluginFile;
  if (!fs::is_regular_file(plugin)) throw std::runtime_error("mlgo's pass plugin is missing: " + plugin.string());
  return plugin;
}

/// Replaces this process by the real compiler running `command`: its exit
/// code, output and diagnostics are the build's. Returns only when it cannot
/// be started.
int runRealCompiler(const std::vector<std::string> &command, const fs::path &found) {
  std::vector<char *> argv;
  for (const std::string &arg : command) argv.push_back(const_cast<char *>(arg.c_str()));
  argv.push_back(nullptr);
  spdlog::default_logger()->flush();
  ::execv(found.c_str(), argv.data());
  throw UsageError("cannot run the compiler " + command.front() + " (" + found.string() +
                   "): " + std::strerror(errno));
}

/// What of `application` cannot reach an LTO compile or link, "" when all
/// of it can: a policy reaches the inliner through mlgo's pass plugin (in
/// the compile's pre-link pipeline and in lld's link-time backends); pass
/// lists replace a pipeline that an LTO build runs at link time.
std::string unappliedInLto(const launcher::CompilePlan &plan, const launcher::Application &application) {
  std::vector<std::string> reasons;
  if (application.policyUnits) {
    if (plan.kind == launcher::CommandKind::LtoCompile)
      reasons.push_back("a choice file is not applied in an LTO build (its choices are per object)");
  } else if (plan.kind == launcher::CommandKind::LtoCompile &&
             (!application.passLists.empty() || application.prediction))
    reasons.push_back("pass lists are not applied in an LTO build (its optimization runs at link time)");
  if (application.policyHooks && plan.links && !plan.linksWithLld)
    reasons.push_back("the policy reaches link-time inlining only through lld (link with -fuse-ld=lld)");
  std::string joined;
  for (const std::string &reason : reasons) joined += (joined.empty() ? "" : "; ") + reason;
  return joined;
}

/// The command to run for a link with --link-maps: the linker also writes
/// its map into DIR, as NAME.map beside NAME.json (the link's directory and
/// output, which the map's relative paths are relative to). NAME is a hash
/// of both, so a relink replaces its own map.
std::vector<std::string> withLinkMap(std::vector<std::string> command, const launcher::CompilePlan &plan,
                                     const std::string &directory) {
  if (directory.empty() || !plan.links || plan.linkOutput.empty()) return command;
  const std::string cwd = fs::current_path().string();
  const std::string name = CompileMemo::hash(cwd + '\0' + plan.linkOutput.string()).substr(0, 16);
  const fs::path maps = fs::absolute(directory);
  fs::create_directories(maps);
  writeFileAtomically(maps / (name + ".json"),
                      nlohmann::json{{"directory", cwd}, {"output", plan.linkOutput.string()}}.dump() + "\n");
  command.push_back("-Wl,-Map=" + (maps / (name + ".map")).string());
  return command;
}

/// An LTO compile or link: the real compiler with mlgo's pass plugin where a
/// policy applies (its directory in MLGO_CC_POLICY, which the plugin reads),
/// one warning and a log line for what cannot be applied.
int runLto(const CcFlags &flags, std::vector<std::string> command, const fs::path &compiler,
           const launcher::CompilePlan &plan, const launcher::Application &application) {
  const std::string unapplied = unappliedInLto(plan, application);
  const bool isUnit = plan.kind == launcher::CommandKind::LtoCompile;
  const bool policy = application.policyHooks && !application.policyUnits &&
                      (isUnit ? plan.optimizes() : plan.linksWithLld);
  if (!unapplied.empty())
    spdlog::warn("{}: {}", isUnit ? plan.source.string() : std::string("link"), unapplied);
  if (isUnit && !flags.log.empty()) {
    nlohmann::json record = launcher::planRecord(plan, application, unapplied);
    record["lto"] = true;
    if (!policy) record["applied"].erase("policy");
    launcher::appendLogLine(flags.log, record);
  }
  if (policy) {
    const std::string plugin = passPlugin().string();
    if (isUnit) command.push_back("-fpass-plugin=" + plugin);
    if (plan.links && plan.linksWithLld) command.push_back("-Wl,--load-pass-plugin=" + plugin);
    ::setenv("MLGO_CC_POLICY", fs::absolute(flags.policy).c_str(), 1);
  }
  return runRealCompiler(command, compiler);
}

/// A unit mlgo does not compile in-process: the real compiler compiles it
/// as it is, with one warning where what was given is not applied. Logged
/// only: an -O0 unit, left as clang compiles it on purpose; and a command
/// that compiles and links at once, as configure's probes do (libtool reads
/// any output on stderr there as a flag the compiler does not take).
int runUnapplied(const CcFlags &flags, const std::vector<std::string> &command, const fs::path &compiler,
                 const launcher::CompilePlan &plan, const launcher::Application &application) {
  const bool unoptimized = plan.inProcess() && !plan.optimizes();
  const std::string reason = unoptimized ? "-O0: left as clang compiles it" : plan.plainReason;
  if (!unoptimized && !plan.links) spdlog::warn("{}: {}; compiled plainly", plan.source.string(), reason);
  if (!flags.log.empty()) {
    nlohmann::json record = launcher::planRecord(plan, application, reason);
    if (unoptimized) record["unoptimized"] = true;
    launcher::appendLogLine(flags.log, record);
  }
  return runRealCompiler(command, compiler);
}

/// A link of a build with a store: never larger than its plain link
/// (launcher/store_link.h), logged.
int runStoreLink(const CcFlags &flags, const std::vector<std::string> &command, const fs::path &compiler,
                 const launcher::CompilePlan &plan, autotune::BuildStore &store) {
  if (plan.linkOutput.empty()) return runRealCompiler(command, compiler);
  const launcher::StoreLinkOutcome outcome = launcher::linkThroughStore(command, compiler, plan.linkOutput, store);
  if (!flags.log.empty() && outcome.verdict != launcher::StoreLinkVerdict::Failed)
    launcher::appendLogLine(flags.log, launcher::storeLinkRecord(plan.linkOutput, outcome));
  return outcome.exitCode;
}

int runCc(CcFlags flags) {
  if (flags.printPluginPath) {
    std::printf("%s\n", passPlugin().c_str());
    return exit_code::kSuccess;
  }
  if (flags.command.empty()) throw UsageError("mlgo cc: give the compiler and its arguments, e.g. mlgo cc clang-19 -c x.c");
  takeEnvironment(flags);
  launcher::ApplicationFiles files;
  files.policy = flags.policy;
  files.passLists = flags.passLists;
  files.predict = flags.predict;
  files.predictor = flags.predictor;
  files.predictedLists = flags.predictedLists;
  files.choices = flags.choices;
  files.record = flags.record.empty() ? fs::path() : fs::absolute(flags.record);
  files.store = flags.store;
  files.explore = flags.explore;
  files.exploreBudget = flags.exploreBudget;
  files.gatePrograms = flags.gatePrograms;
  launcher::Application application = launcher::loadApplication(files, timeoutOf(flags.timeout));
  application.neverLarger = flags.neverLarger;
  const std::vector<std::string> args(flags.command.begin() + 1, flags.command.end());
  const fs::path compiler = launcher::findCompiler(flags.command.front());
  if (compiler.empty()) throw UsageError("mlgo cc: no compiler " + flags.command.front() + " (not a file, not in PATH)");
  if (application.empty() && flags.linkMaps.empty()) return runRealCompiler(flags.command, compiler);
  // Before anything is written: a log that cannot take lines is a bad flag.
  if (!flags.log.empty()) launcher::checkLogWritable(flags.log);

  const launcher::CompilePlan plan = launcher::planCompile(flags.command.front(), args);
  const std::vector<std::string> command = withLinkMap(flags.command, plan, flags.linkMaps);
  if (application.empty()) return runRealCompiler(command, compiler);
  switch (plan.kind) {
    case launcher::CommandKind::Other:
      return plan.links && application.store ? runStoreLink(flags, command, compiler, plan, *application.store)
                                             : runRealCompiler(command, compiler);
    case launcher::CommandKind::Unapplied: return runUnapplied(flags, command, compiler, plan, application);
    case launcher::CommandKind::LtoCompile:
    case launcher::CommandKind::LtoLink: return runLto(flags, command, compiler, plan, application);
    case launcher::CommandKind::Compile: break;
  }
  // A unit a choice file leaves plain compiles in-process too, at its
  // recorded level: clang's object byte for byte (tested), without starting
  // a second compiler after this one.
  if (!plan.optimizes()) return runUnapplied(flags, command, compiler, plan, application);
  // clang fails on an object directory that does not exist; so does the build.
  if (plan.object.has_parent_path() && !fs::is_directory(plan.object.parent_path()))
    return runRealCompiler(command, compiler);
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
  return runRealCompiler(command, compiler);
}

}  // namespace

const Subcommand kCcSubcommand{"cc",
                                "Compiler launcher: build with a policy or tuned pass lists (mlgo cc [options] "
                                "clang-19 ARGS...; everything else runs the real compiler)",
                                addCcCommand, false, false};

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
  command->add_flag("--never-larger", flags->neverLarger,
                    "Also compile each unit plainly at its recorded level and keep the smaller object (.text+data): "
                    "a policy or list never makes a unit larger (env MLGO_CC_NEVER_LARGER=1)");
  command->add_option("--choices", flags->choices,
                      "A choice file of mlgo compare-builds: each unit compiled the way it names (plainly, with its "
                      "policy or a pass list); alone, without --policy, --pass-lists or --predict (env MLGO_CC_CHOICES)");
  command->add_option("--link-maps", flags->linkMaps,
                      "Links also write their linker map into this directory, NAME.map beside NAME.json (the link's "
                      "directory and output): what compare-builds attributes linked bytes with (env MLGO_CC_LINK_MAPS)");
  command->add_option("--record", flags->record,
                      "Also write every unit compiled in-process into this corpus directory, as extract-ir lays one "
                      "out (env MLGO_CC_RECORD)");
  command->add_option("--store", flags->store,
                      "The project's store (an SQLite file, made when missing): every list a unit compiled, with "
                      "sizes and gate verdicts; a unit it has decided compiles once with its choice (env "
                      "MLGO_CC_STORE)");
  command->add_option("--explore", flags->explore,
                      "With --store: each compile of a unit also tries up to N lists the store lacks for it, the "
                      "ranked ones first, then autotune's search (env MLGO_CC_EXPLORE)")
      ->check(wholeNumber(0, 1000));
  command->add_option("--explore-budget", flags->exploreBudget,
                      "The budget of the autotune search --explore replays: after B/N builds a unit has tried what "
                      "mlgo autotune --budget B tries on its module, and is decided")
      ->capture_default_str()
      ->check(wholeNumber(1, 100000));
  command->add_option("--gate-programs", flags->gatePrograms,
                      "The correctness gate's programs for --store (default: the shipped ones; env "
                      "MLGO_CC_GATE_PROGRAMS)");
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
