#pragma once
// Options several subcommands share, spelled the same everywhere.
#include <optional>

#include <limits>

#include <CLI/CLI.hpp>

#include "mlgo/distributed/cluster.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/training/shared/config_schema.h"
#include "mlgo/support/output_directory.h"
#include "validators.h"

namespace mlgo {
class Problem;
}

namespace mlgo::cli {

struct DriverFlags {
  unsigned threads = 0;
  double timeoutSeconds = 60;
  std::string injectFault;  ///< test-only: "crash:", "hang:", "heap:" or "poison:MODULE"
  // The compile memo (mlgo/driver/compile_memo.h).
  bool noMemo = false;
  size_t memoMegabytes = 256;
  std::string cacheDirectory;
  size_t verifyCache = 0;
};

/// The ranks of this run: main() joins them before it runs a command (a
/// cluster of one without mpirun).
Cluster &runCluster();
void setRunCluster(Cluster *cluster);

/// At most this many trace shards: each is a file open while tracing.
inline constexpr uint64_t kMaxTraceShards = 1024;

/// --threads, --timeout, the memo's flags and the hidden --inject-fault.
void addDriverFlags(CLI::App &command, DriverFlags &flags);
/// Throws UsageError for a malformed --inject-fault. Each call makes a new
/// memo: call once per run and share the options.
DriverOptions toDriverOptions(const DriverFlags &flags);
/// The memo's one-line summary on stderr (nothing without a memo).
void logMemoStats(const DriverOptions &options);


/// The command line that starts `mlgo compile-worker` on `corpus` with the
/// same timeout and injected faults (compile_worker_command.cpp).
std::vector<std::string> compileWorkerCommand(const std::string &corpus, const DriverFlags &driver);

/// Claims an output directory for this run (mlgo/support/output_directory.h).
/// Under mpirun only rank 0 writes outputs, so only rank 0 claims: the result
/// is empty on the other ranks.
std::optional<OutputDirectoryLock> claimOutput(const std::string &directory, const std::string &command,
                                               ExistingOutput existing, const std::string &howToContinue = "");
/// Refuse, or Replace with --force: for outputs that must hold one run only.
inline ExistingOutput freshOutput(bool force) { return force ? ExistingOutput::Replace : ExistingOutput::Refuse; }
/// Replace with --force, Resume with --resume, else Refuse: for runs that resume.
inline ExistingOutput resumableOutput(bool force, bool resume) {
  return force ? ExistingOutput::Replace : resume ? ExistingOutput::Resume : ExistingOutput::Refuse;
}

/// What the learners that resume (train-ppo, train-es) share: where the run
/// writes, its config, its seed, and what to do with an earlier run there.
struct TrainingRunFlags {
  std::string output, config;
  std::vector<std::string> sets;
  uint64_t seed = 0;
  bool resume = false, force = false, printConfig = false;
};
/// --output, --config, --set, --seed, --resume, --force and --print-config.
void addTrainingRunFlags(CLI::App &command, TrainingRunFlags &flags, const std::string &configHelp,
                         const std::string &setExample, const std::string &seedHelp);
/// In the subcommand's callback: the `required` flags (unless only the
/// config is printed) and --resume without --force.
void checkTrainingRunFlags(const CLI::App &command, const TrainingRunFlags &flags,
                           std::initializer_list<const char *> required);
/// A run's config, each layer over the one before: the learner's built-in
/// defaults, the file `problem` names for `learner` (none without a problem,
/// or when it names none), `configFile` (--config, when not empty), then
/// each --set. Throws InputError naming the file and key, UsageError naming
/// the key.
ConfigSchema::Resolved resolveTrainingConfig(const ConfigSchema &schema, const Problem *problem,
                                             const std::string &learner, const std::string &configFile,
                                             const std::vector<std::string> &sets);
/// What --print-config prints: every key in declaration order with its
/// value and the layer that set it ("default", "problem file F",
/// "--config F", "--set").
std::string describeResolvedConfig(const ConfigSchema &schema, const ConfigSchema::Resolved &resolved);
/// --config's help: what the file is layered over, and each problem's file for `learner`.
std::string trainingConfigHelp(const std::string &learner);
/// claimOutput for a run that --resume continues and --force starts over.
std::optional<OutputDirectoryLock> claimTrainingOutput(const TrainingRunFlags &flags, const std::string &command);

/// --problem, the same for every command: `what` says what it chooses.
void addProblemOption(CLI::App &command, std::string &problem, const std::string &what);
/// The problem of a run: the one `policy`'s directory records when a policy
/// is given (InputError naming its policy.json when --problem names
/// another), else --problem, else inlining. The default lives here only.
const Problem &chosenProblem(const std::string &problemFlag, const std::string &policy = {});


}  // namespace mlgo::cli
