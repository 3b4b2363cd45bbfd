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
#include <set>
#include <variant>

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "commands.h"
#include "validators.h"
#include "mlgo/store/build_store.h"
#include "mlgo/launcher/application.h"
#include "mlgo/launcher/cc_options.h"
#include "mlgo/launcher/compile_plan.h"
#include "mlgo/launcher/launch_log.h"
#include "mlgo/launcher/link_baseline.h"
#include "mlgo/launcher/store_link.h"
#include "mlgo/launcher/store_outage.h"
#include "mlgo/launcher/translation_unit.h"
#include "mlgo/launcher/unit_recording.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/byte_size.h"
#include "mlgo/support/data_paths.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

namespace {

namespace fs = std::filesystem;

/// Built and installed beside libmlgo_core.so.
constexpr const char *kPassPluginFile = "mlgo-pass-plugin.so";

/// The options of the table (mlgo/launcher/cc_options.h), the compiler
/// command, and which flags the command line gave.
struct CcFlags : launcher::CcSettings {
  bool printPluginPath = false;
  std::vector<std::string> command;  ///< the compiler and its arguments
  std::set<std::string> given;       ///< flags on the command line
};

/// A variable's value as an option's setting; UsageError naming the
/// variable when it does not fit.
void takeVariable(CcFlags &flags, const launcher::CcOption &option, std::string launcher::CcSettings::*member,
                  const std::string &value) {
  // --predict's variable set to 1 is --predict alone; another value also names the predictor.
  const bool switchValue = value == "0" || value == "1";
  if (switchValue && ccOption(&launcher::CcSettings::predict).variable == std::string(option.variable)) return;
  flags.*member = value;
}
void takeVariable(CcFlags &flags, const launcher::CcOption &, bool launcher::CcSettings::*member, const std::string &value) {
  flags.*member = value != "0";
}
void takeVariable(CcFlags &flags, const launcher::CcOption &option, size_t launcher::CcSettings::*member, const std::string &value) {
  const bool digits = value.size() <= 19 && value.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoull(value) < option.minimum || std::stoull(value) > option.maximum)
    throw UsageError(std::string(option.variable) + ": expected a whole number from " + std::to_string(option.minimum) +
                     " to " + std::to_string(option.maximum) + ", got \"" + value + "\"");
  flags.*member = size_t(std::stoull(value));
}
void takeVariable(CcFlags &flags, const launcher::CcOption &option, double launcher::CcSettings::*member, const std::string &value) {
  char *end = nullptr;
  const double number = std::strtod(value.c_str(), &end);
  const bool ranged = option.maximum > 0;
  const bool fits = *end == '\0' && std::isfinite(number) &&
                    (ranged ? number >= double(option.minimum) && number <= double(option.maximum) : number > 0);
  if (!fits)
    throw UsageError(std::string(option.variable) + ": expected " +
                     (ranged ? "a number from " + std::to_string(option.minimum) + " to " + std::to_string(option.maximum)
                             : std::string("a number of seconds above 0")) +
                     ", got \"" + value + "\"");
  flags.*member = number;
}

/// Build systems that cannot pass flags to a launcher set the options'
/// variables instead; a flag on the command line wins over its variable.
void takeEnvironment(CcFlags &flags) {
  for (const launcher::CcOption &option : launcher::kCcOptions) {
    const char *value = option.variable ? std::getenv(option.variable) : nullptr;
    if (!value || !*value || flags.given.count(option.flag)) continue;
    std::visit([&](auto member) { takeVariable(flags, option, member, value); }, option.member);
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
/// policy applies (its directory in --policy's variable, which the plugin reads),
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
  if (!policy) return runRealCompiler(command, compiler);
  const std::vector<std::string> withoutPlugin = command;
  const std::string plugin = passPlugin().string();
  if (isUnit) command.push_back("-fpass-plugin=" + plugin);
  if (plan.links && plan.linksWithLld) command.push_back("-Wl,--load-pass-plugin=" + plugin);
  ::setenv(launcher::ccVariable(&launcher::CcSettings::policy), fs::absolute(flags.policy).c_str(), 1);
  if (!plan.links || plan.linkOutput.empty()) return runRealCompiler(command, compiler);
  // What ships is never larger than the same link without the policy.
  const launcher::StoreLinkOutcome outcome =
      launcher::linkLtoNeverLarger(command, withoutPlugin, compiler, plan.linkOutput);
  if (!flags.log.empty() && outcome.verdict != launcher::StoreLinkVerdict::Failed) {
    nlohmann::json record = launcher::storeLinkRecord(plan.linkOutput, outcome);
    record["lto"] = true;
    launcher::appendLogLine(flags.log, record);
  }
  return outcome.exitCode;
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

/// A link of a build that mlgo cc changes: never larger than its plain link
/// (launcher/store_link.h), logged. The store's objects are its baseline;
/// without a store, the cache of plain objects.
int runCheckedLink(const CcFlags &flags, const std::vector<std::string> &command, const fs::path &compiler,
                   const launcher::CompilePlan &plan, launcher::LinkBaseline &baseline) {
  if (plan.linkOutput.empty()) return runRealCompiler(command, compiler);
  const launcher::StoreLinkOutcome outcome = launcher::linkNeverLarger(command, compiler, plan.linkOutput, baseline);
  if (!flags.log.empty() && outcome.verdict != launcher::StoreLinkVerdict::Failed)
    launcher::appendLogLine(flags.log, launcher::storeLinkRecord(plan.linkOutput, outcome));
  return outcome.exitCode;
}

/// After a link through the store: the next build's exploration price, from
/// the store as this build left it (autotune/store_model.h), and with
/// --store-max-size the store's cleanup. A store that cannot take them is
/// left as it was, with a warning: the link stands.
void maintainStore(const launcher::Application &application, std::optional<uint64_t> maxBytes) {
  try {
    if (application.explore > 0)
      application.store->refreshExplorationPrice(application.explore, application.exploreBudget);
    if (maxBytes && application.store->bytesOnDisk() > *maxBytes) 
      application.store->cleanup(*maxBytes, store::BuildStore::recentUseSince());
  } catch (const store::StoreUnavailable &e) {
    launcher::warnStoreUnavailable(application.store->location(), e.what());
  } catch (const std::exception &e) {
    spdlog::warn("--store: {}", e.what());
  }
}

/// --store-max-size as bytes; UsageError naming the value when it is not a size.
std::optional<uint64_t> storeMaxBytes(const CcFlags &flags) {
  if (flags.storeMaxSize.empty()) return std::nullopt;
  const std::optional<uint64_t> bytes = parseByteSize(flags.storeMaxSize);
  if (!bytes)
    throw UsageError("--store-max-size (or " + std::string(launcher::ccVariable(&launcher::CcSettings::storeMaxSize)) +
                     "): expected a size such as 200K, 64M or 2G, got \"" + flags.storeMaxSize + "\"");
  return bytes;
}

int runCcThroughStore(CcFlags &flags);

/// A store that goes away mid-compile (its server killed, the connection
/// dropped) leaves the command to the real compiler, as given: what mlgo
/// wrote before is overwritten, and a link that ran already ran as given.
int runCcWithStoreFallback(CcFlags &flags) {
  try {
    return runCcThroughStore(flags);
  } catch (const store::StoreUnavailable &e) {
    launcher::warnStoreUnavailable(store::shownLocation(flags.store), e.what());
    return runRealCompiler(flags.command, launcher::findCompiler(flags.command.front()));
  }
}

/// What a warning names for a command: its output, else its compiler.
std::string commandOutput(const std::vector<std::string> &command) {
  for (size_t i = 0; i + 1 < command.size(); ++i)
    if (command[i] == "-o") return command[i + 1];
  return command.front();
}

int runCcThroughStore(CcFlags &flags) {
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
  files.costBound = flags.costBound;
  files.uncheckedLinks = flags.uncheckedLinks;
  files.gatePrograms = flags.gatePrograms;
  const std::optional<uint64_t> maxBytes = storeMaxBytes(flags);
  launcher::Application application = launcher::loadApplication(files, timeoutOf(flags.timeout));
  application.neverLarger = flags.neverLarger;
  application.baseDirectory = flags.baseDir;
  const std::vector<std::string> args(flags.command.begin() + 1, flags.command.end());
  const fs::path compiler = launcher::findCompiler(flags.command.front());
  if (compiler.empty()) throw UsageError("mlgo cc: no compiler " + flags.command.front() + " (not a file, not in PATH)");
  if (application.empty() && flags.linkMaps.empty()) return runRealCompiler(flags.command, compiler);
  // Before anything is written: a log that cannot take lines is a bad flag.
  if (!flags.log.empty()) launcher::checkLogWritable(flags.log);
  if (!files.record.empty()) launcher::checkRecordDirectory(files.record);

  const launcher::CompilePlan plan = launcher::planCompile(flags.command.front(), args);
  const std::vector<std::string> command = withLinkMap(flags.command, plan, flags.linkMaps);
  if (application.empty()) return runRealCompiler(command, compiler);
  switch (plan.kind) {
    case launcher::CommandKind::Other: {
      if (!plan.links) return runRealCompiler(command, compiler);
      if (application.store) {
        launcher::StoreBaseline baseline(*application.store);
        const int linked = runCheckedLink(flags, command, compiler, plan, baseline);
        maintainStore(application, maxBytes);
        return linked;
      }
      if (application.plainObjects) return runCheckedLink(flags, command, compiler, plan, *application.plainObjects);
      return runRealCompiler(command, compiler);
    }
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

namespace {

/// One row of the table as a CLI11 option, its help naming its variable.
void addOption(CLI::App &command, CcFlags &flags, const launcher::CcOption &option) {
  const std::string help = std::string(option.help) + (option.variable ? std::string(" (env ") + option.variable + ")" : "");
  struct Adder {
    CLI::App &command;
    CcFlags &flags;
    const launcher::CcOption &option;
    const std::string &help;
    void operator()(std::string launcher::CcSettings::*member) const { command.add_option(option.flag, flags.*member, help); }
    void operator()(bool launcher::CcSettings::*member) const { command.add_flag(option.flag, flags.*member, help); }
    void operator()(size_t launcher::CcSettings::*member) const {
      command.add_option(option.flag, flags.*member, help)->capture_default_str()->check(
          wholeNumber(option.minimum, option.maximum));
    }
    void operator()(double launcher::CcSettings::*member) const {
      CLI::Option *added = command.add_option(option.flag, flags.*member, help)->capture_default_str();
      if (option.maximum > 0) added->check(CLI::Range(double(option.minimum), double(option.maximum)));
      else added->check(finiteSeconds(false));
    }
  };
  std::visit(Adder{command, flags, option, help}, option.member);
}

}  // namespace

void addCcCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<CcFlags>();
  // Everything from the compiler on is the compiler's.
  command->prefix_command();
  for (const launcher::CcOption &option : launcher::kCcOptions) addOption(*command, *flags, option);
  command->add_flag("--print-plugin-path", flags->printPluginPath,
                    std::string("Print the pass plugin's path: ") + launcher::ccVariable(&launcher::CcSettings::policy) +
                        "=DIR clang-19 -fpass-plugin=PATH compiles with the policy in DIR, no launcher needed");
  command->callback([flags, command, &runner] {
    flags->command = command->remaining();
    for (const launcher::CcOption &option : launcher::kCcOptions)
      if (command->get_option(option.flag)->count() > 0) flags->given.insert(option.flag);
    runner = [flags] { return runCcWithStoreFallback(*flags); };
  });
}

int compileAsClangAfterDeath(const std::vector<std::string> &command, int signal) {
  if (command.empty()) return exit_code::kUsage;
  spdlog::warn("{}: mlgo cc died ({}); compiled as clang would", commandOutput(command), ::strsignal(signal));
  return runRealCompiler(command, launcher::findCompiler(command.front()));
}

}  // namespace mlgo::cli
