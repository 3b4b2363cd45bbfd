#pragma once
// Each subcommand adds itself to the root CLI11 app. Its callback only stores
// what to run; main() runs it inside one place that maps library errors to
// the documented exit codes.
#include <functional>

#include <CLI/CLI.hpp>

namespace mlgo::cli {

using CommandRunner = std::function<int()>;

void addExtractIRCommand(CLI::App &root, CommandRunner &runner);
void addEvalCommand(CLI::App &root, CommandRunner &runner);
void addDefaultTraceCommand(CLI::App &root, CommandRunner &runner);
void addTraceInfoCommand(CLI::App &root, CommandRunner &runner);
void addGenVocabCommand(CLI::App &root, CommandRunner &runner);
void addTrainBCCommand(CLI::App &root, CommandRunner &runner);
void addTrainPPOCommand(CLI::App &root, CommandRunner &runner);
void addExportCommand(CLI::App &root, CommandRunner &runner);
void addServeCommand(CLI::App &root, CommandRunner &runner);
void addAutotuneCommand(CLI::App &root, CommandRunner &runner);
void addCombineCorpusCommand(CLI::App &root, CommandRunner &runner);
void addReportCommand(CLI::App &root, CommandRunner &runner);
void addCompileWorkerCommand(CLI::App &root, CommandRunner &runner);
void addMllvmOptionsCommand(CLI::App &root, CommandRunner &runner);

}  // namespace mlgo::cli
