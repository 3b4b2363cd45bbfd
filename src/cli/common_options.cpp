#include "common_options.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>

#include "mlgo/autotune/pass_predictor.h"
#include "mlgo/autotune/pass_sweep.h"
#include "mlgo/builds/build_comparison.h"
#include "mlgo/policy/policy_directory.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/data_paths.h"
#include "mlgo/support/errors.h"
#include "mlgo/tracing/explore.h"
#include "mlgo/trace/trace_format.h"
#include "mlgo/training/shared/training_run_entries.h"

#include <spdlog/spdlog.h>

namespace mlgo::cli {

namespace {
Cluster *currentCluster = nullptr;
}  // namespace

Cluster &runCluster() {
  static const std::unique_ptr<Cluster> single = singleProcessCluster();
  return currentCluster ? *currentCluster : *single;
}

void setRunCluster(Cluster *cluster) { currentCluster = cluster; }

void addDriverFlags(CLI::App &command, DriverFlags &flags) {
  command.add_option("--threads", flags.threads, "Compile threads (0: one per core)")
      ->capture_default_str()
      ->check(wholeNumber());
  command
      .add_option("--timeout", flags.timeoutSeconds,
                  "Seconds of CPU time one module may compile before it is skipped (0: no limit)")
      ->capture_default_str()
      ->check(finiteSeconds(true));
  command.add_flag("--no-memo", flags.noMemo, "Compile everything, even what this run compiled before");
  command.add_option("--memo-mb", flags.memoMegabytes, "Memory bound of the compile memo, in MB (0: no memory memo)")
      ->capture_default_str()
      ->check(wholeNumber());
  command.add_option("--cache-dir", flags.cacheDirectory,
                     "Keep compile results in this directory for later runs (safe to share between runs)");
  command.add_option("--verify-cache", flags.verifyCache,
                     "Recompile the first N reused results and stop with an error if one differs")
      ->capture_default_str()
      ->check(wholeNumber());
  // Test-only: proves a crash or a hang in one module never ends a run.
  command.add_option("--inject-fault", flags.injectFault)->group("");
}

void logMemoStats(const DriverOptions &options) {
  if (options.memo) spdlog::info("{}", options.memo->stats().describe());
}

DriverOptions toDriverOptions(const DriverFlags &flags) {
  DriverOptions options;
  options.threads = flags.threads;
  options.timeout = std::chrono::milliseconds(static_cast<long long>(flags.timeoutSeconds * 1000));
  if (!flags.injectFault.empty()) {
    const auto colon = flags.injectFault.find(':');
    const std::string kind = flags.injectFault.substr(0, colon);
    const std::string module = colon == std::string::npos ? "" : flags.injectFault.substr(colon + 1);
    std::map<std::string, std::string *> faults{{"crash", &options.faults.crashModule},
                                                {"hang", &options.faults.hangModule},
                                                {"heap", &options.faults.heapCorruptionModule},
                                                {"poison", &options.faults.poisonModule}};
    if (module.empty() || !faults.count(kind))
      throw UsageError("--inject-fault takes crash:MODULE, hang:MODULE, heap:MODULE or poison:MODULE");
    *faults[kind] = module;
  }
  if (!flags.noMemo) {
    MemoOptions memo;
    memo.maxBytes = flags.memoMegabytes << 20;
    if (!flags.cacheDirectory.empty()) memo.directory = flags.cacheDirectory;
    memo.verify = flags.verifyCache;
    options.memo = std::make_shared<CompileMemo>(memo);
  } else if (!flags.cacheDirectory.empty() || flags.verifyCache > 0) {
    throw UsageError("--no-memo excludes --cache-dir and --verify-cache");
  }
  return options;
}

namespace {

/// What each command's runs write into their output: what --force may remove.
std::vector<std::string> entriesWrittenBy(const std::string &command) {
  if (command == "default-trace") return trace::traceDirectoryEntries();
  if (command == "explore") return exploreDirectoryEntries();
  if (command == "train-bc" || command == "train-ppo" || command == "train-es") return trainingRunEntries();
  if (command == "sweep-passes") return autotune::sweepDirectoryEntries();
  if (command == "train-pass-predictor") return autotune::PassPredictor::directoryEntries();
  if (command == "compare-builds") return builds::compareBuildsEntries();
  return {};
}

}  // namespace

std::optional<OutputDirectoryLock> claimOutput(const std::string &directory, const std::string &command,
                                               ExistingOutput existing, const std::string &howToContinue) {
  if (!runCluster().isLeader()) return std::nullopt;
  return OutputDirectoryLock::claim(directory, command, existing, howToContinue, entriesWrittenBy(command));
}

void addProblemOption(CLI::App &command, std::string &problem, const std::string &what) {
  std::string names;
  for (const std::string &name : problemNames()) names += (names.empty() ? "" : ", ") + name;
  command.add_option("--problem", problem, what + " (" + names + "; default: the policy's where the command reads "
                                                "one, else inlining)");
}

const Problem &chosenProblem(const std::string &problemFlag, const std::string &policy) {
  if (policy.empty()) return problemFlag.empty() ? defaultProblem() : findProblem(problemFlag);
  const std::string recorded = policy_directory::problemOf(policy);
  if (!problemFlag.empty() && problemFlag != recorded)
    throw InputError(describeInputProblem((policy_directory::resolve(policy) / policy_directory::kMetadataFile).string(),
                                          "problem", "the policy is for " + recorded + ", not " + problemFlag));
  return findProblem(recorded);
}

void addTrainingRunFlags(CLI::App &command, TrainingRunFlags &flags, const std::string &configHelp,
                         const std::string &setExample, const std::string &seedHelp) {
  command.add_option("--output", flags.output, "Output directory (policy/, metrics.jsonl, resume/, ...)");
  command.add_option("--config", flags.config, configHelp);
  command.add_option("--set", flags.sets, "Override a config key: --set " + setExample + " (repeatable)");
  command.add_option("--seed", flags.seed, seedHelp)->capture_default_str()->check(wholeNumber());
  command.add_flag("--resume", flags.resume, "Continue the run in --output after an interruption");
  command.add_flag("--force", flags.force, "Start over: remove what an earlier run left in --output");
  command.add_flag("--print-config", flags.printConfig,
                   "Print each config value, where it came from (default, problem file, --config, --set), and exit");
}

void checkTrainingRunFlags(const CLI::App &command, const TrainingRunFlags &flags,
                           std::initializer_list<const char *> required) {
  if (!flags.printConfig)
    for (const char *name : required)
      if (command.count(name) == 0) throw CLI::RequiredError(name);
  if (flags.resume && flags.force) throw CLI::ValidationError("--resume and --force", "exclude each other");
}

ConfigSchema::Resolved resolveTrainingConfig(const ConfigSchema &schema, const Problem *problem,
                                             const std::string &learner, const std::string &configFile,
                                             const std::vector<std::string> &sets) {
  std::vector<ConfigSchema::File> files;
  if (problem && !problem->configFile(learner).empty())
    files.push_back({dataPath("configs") / problem->configFile(learner), "problem file"});
  if (!configFile.empty()) files.push_back({configFile, "--config"});
  return schema.resolveLayers(files, sets);
}

std::string describeResolvedConfig(const ConfigSchema &schema, const ConfigSchema::Resolved &resolved) {
  size_t width = 0;
  for (const ConfigSchema::Key &key : schema.keys()) width = std::max(width, key.name.size());
  std::string text;
  for (const ConfigSchema::Key &key : schema.keys()) {
    const std::string value = resolved.values.at(key.name).dump();
    text += key.name + std::string(width - key.name.size(), ' ') + " = " + value + "  # " +
            resolved.origins.at(key.name) + "\n";
  }
  return text;
}

std::string trainingConfigHelp(const std::string &learner) {
  std::string files;
  for (const std::string &name : problemNames()) {
    const std::string file = findProblem(name).configFile(learner);
    files += (files.empty() ? "" : ", ") + name + ": " + (file.empty() ? "none" : "configs/" + file);
  }
  return "JSON config, over the built-in defaults and the problem's own file (" + files +
         "); --print-config shows where each value comes from";
}

std::optional<OutputDirectoryLock> claimTrainingOutput(const TrainingRunFlags &flags, const std::string &command) {
  return claimOutput(flags.output, command, resumableOutput(flags.force, flags.resume),
                     "pass --resume to continue that run or --force to start over");
}

}  // namespace mlgo::cli
