#pragma once
// The subcommands, from one table (as ninja's kTools[]): each adds its flags
// to the subcommand main() made from its row. Its callback only stores what
// to run; main() runs it inside one place that maps library errors to the
// documented exit codes.
#include <functional>
#include <vector>

#include <CLI/CLI.hpp>

namespace mlgo::cli {

using CommandRunner = std::function<int()>;

struct Subcommand {
  const char *name;
  const char *summary;
  void (*addFlags)(CLI::App *command, CommandRunner &runner);
  bool acrossRanks;    ///< divides its work among the ranks of an mpirun
  bool needsTraining;  ///< runs on the training library (LibTorch), loaded before anything else
  /// The flag naming the output of a run that trains, traces, tunes or
  /// evaluates: a run manifest is written there (nullptr: none).
  const char *outputFlag = nullptr;
};

/// mlgo cc's row, which its own entry point (cc_main.cpp) also uses.
extern const Subcommand kCcSubcommand;

/// After the process doing a compile's work died by `signal`: the compiler
/// `command` (its name first) run as given, with a warning naming the output.
int compileAsClangAfterDeath(const std::vector<std::string> &command, int signal);

/// Every subcommand, in the order --help lists them.
const std::vector<Subcommand> &subcommands();

void addExtractIRCommand(CLI::App *command, CommandRunner &runner);
void addCombineCorpusCommand(CLI::App *command, CommandRunner &runner);
void addEvalCommand(CLI::App *command, CommandRunner &runner);
void addCcCommand(CLI::App *command, CommandRunner &runner);
void addCompareBuildsCommand(CLI::App *command, CommandRunner &runner);
void addDefaultTraceCommand(CLI::App *command, CommandRunner &runner);
void addExploreCommand(CLI::App *command, CommandRunner &runner);
void addTraceInfoCommand(CLI::App *command, CommandRunner &runner);
void addGenVocabCommand(CLI::App *command, CommandRunner &runner);
void addTrainBCCommand(CLI::App *command, CommandRunner &runner);
void addTrainPPOCommand(CLI::App *command, CommandRunner &runner);
void addTrainESCommand(CLI::App *command, CommandRunner &runner);
void addExportCommand(CLI::App *command, CommandRunner &runner);
void addServeCommand(CLI::App *command, CommandRunner &runner);
void addAutotuneCommand(CLI::App *command, CommandRunner &runner);
void addHarvestCommand(CLI::App *command, CommandRunner &runner);
void addPoolInfoCommand(CLI::App *command, CommandRunner &runner);
void addStoreInfoCommand(CLI::App *command, CommandRunner &runner);
void addStoreMergeCommand(CLI::App *command, CommandRunner &runner);
void addStoreGcCommand(CLI::App *command, CommandRunner &runner);
void addSweepPassesCommand(CLI::App *command, CommandRunner &runner);
void addSelectCoresetCommand(CLI::App *command, CommandRunner &runner);
void addTrainPassPredictorCommand(CLI::App *command, CommandRunner &runner);
void addPredictPassesCommand(CLI::App *command, CommandRunner &runner);
void addReportCommand(CLI::App *command, CommandRunner &runner);
void addMllvmOptionsCommand(CLI::App *command, CommandRunner &runner);
void addCompileWorkerCommand(CLI::App *command, CommandRunner &runner);
void addIrCountsCommand(CLI::App *command, CommandRunner &runner);
void addCalibrateCostsCommand(CLI::App *command, CommandRunner &runner);
void addCompareRunsCommand(CLI::App *command, CommandRunner &runner);

}  // namespace mlgo::cli
