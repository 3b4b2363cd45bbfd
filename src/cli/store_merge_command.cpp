// mlgo store-merge: joins stores written on several machines (CI runners,
// developers' builds) into one, SQLite files and PostgreSQL stores alike.
// A file is built under a temporary name beside the output and renamed over
// it at the end, so an output that existed is never left half merged; a
// server's store takes each input in one transaction.
#include <memory>

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/store/build_store.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

namespace {

namespace fs = std::filesystem;

struct StoreMergeFlags {
  std::string output;
  std::vector<std::string> inputs;
};

/// Into a PostgreSQL store: each input lands whole or not at all (one
/// transaction each); other builds go on writing it meanwhile.
int mergeIntoServer(const StoreMergeFlags &flags) {
  std::vector<std::unique_ptr<store::BuildStore>> inputs;
  for (const std::string &input : flags.inputs)
    if (input != flags.output) inputs.push_back(store::BuildStore::openExisting(input));
  if (inputs.empty()) return exit_code::kSuccess;
  store::BuildStore merged(flags.output, inputs.front()->storedIdentity());
  for (const auto &input : inputs) merged.merge(*input);
  const store::StoreSummary summary = merged.summarize();
  spdlog::info("{}: {} units, {} lists tried, {} verdicts", merged.location(), summary.units, summary.trials,
               summary.verdicts);
  return exit_code::kSuccess;
}

int runStoreMerge(const StoreMergeFlags &flags) {
  if (store::isPostgresLocation(flags.output)) return mergeIntoServer(flags);
  // A link to a store is merged into the file it points to, and stays a link.
  const fs::path output = linkTarget(flags.output);
  if (fs::is_directory(output))
    throw InputError(describeInputProblem(flags.output, "", "is a directory: the store is one SQLite file"));
  std::vector<std::unique_ptr<store::BuildStore>> inputs;
  if (fs::exists(output)) inputs.push_back(store::BuildStore::openExisting(output.string()));
  for (const std::string &input : flags.inputs) {
    std::error_code missing;
    if (fs::equivalent(input, output, missing)) continue;
    inputs.push_back(store::BuildStore::openExisting(input));
  }
  const fs::path temporary = output.string() + ".merging-" + std::to_string(::getpid());
  for (const char *suffix : {"", "-wal", "-shm"}) fs::remove(temporary.string() + suffix);
  try {
    {
      store::BuildStore merged(temporary.string(), inputs.front()->storedIdentity());
      for (const auto &input : inputs) merged.merge(*input);
      merged.finishAsOneFile();
      const store::StoreSummary summary = merged.summarize();
      spdlog::info("{}: {} units, {} lists tried, {} verdicts", flags.output, summary.units, summary.trials,
                   summary.verdicts);
    }
    inputs.clear();
    fs::rename(temporary, output);
    for (const char *suffix : {"-wal", "-shm"}) fs::remove(output.string() + suffix);
  } catch (...) {
    for (const char *suffix : {"", "-wal", "-shm"}) fs::remove(temporary.string() + suffix);
    throw;
  }
  return exit_code::kSuccess;
}

}  // namespace

void addStoreMergeCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<StoreMergeFlags>();
  command->add_option("--output", flags->output,
                      "The store to write: a file or postgresql://... (when it exists, what it holds is kept and the inputs are added)")
      ->required();
  command->add_option("inputs", flags->inputs, "Stores to join, files or postgresql://... (of one LLVM version and search space)")
      ->required()
      ->expected(1, -1);
  command->callback([flags, &runner] { runner = [flags] { return runStoreMerge(*flags); }; });
}

}  // namespace mlgo::cli
