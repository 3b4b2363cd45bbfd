#include "run_manifest_flags.h"

#include <filesystem>

#include <spdlog/spdlog.h>

#include "common_options.h"
#include "mlgo/distributed/cluster.h"
#include "mlgo/policy/policy_directory.h"
#include "mlgo/support/output_directory.h"
#include "mlgo/support/run_manifest.h"

namespace mlgo::cli {

namespace {

/// Every long flag with the values it was given, or its default.
RunFlags givenFlags(const CLI::App &command) {
  RunFlags flags;
  for (const CLI::Option *option : command.get_options()) {
    if (option->get_lnames().empty() || option->get_lnames().front() == "help") continue;
    std::vector<std::string> values = option->results();
    if (option->count() > 0 && values.empty()) values = {"true"};
    if (option->count() == 0) {
      if (option->get_default_str().empty()) continue;
      values = {option->get_default_str()};
    }
    flags["--" + option->get_lnames().front()] = values;
  }
  return flags;
}

/// The flags that name a policy, described as what the command reads of it
/// (policy_directory::describeAsInput): a training's output given for a
/// warm start holds metrics, checkpoints and logs that differ from rerun to
/// rerun and that no command reads.
std::map<std::string, nlohmann::json> policiesRead(const RunFlags &flags) {
  std::map<std::string, nlohmann::json> read;
  for (const char *flag : {"--warmstart", "--policy"}) {
    const auto given = flags.find(flag);
    std::error_code error;
    if (given != flags.end() && given->second.size() == 1 && std::filesystem::is_directory(given->second[0], error))
      read[flag] = policy_directory::describeAsInput(given->second[0]);
  }
  return read;
}

}  // namespace

void writeManifestOfRun(const CLI::App &command, const Subcommand &row) {
  if (row.outputFlag == nullptr || !runCluster().isLeader()) return;
  RunDescription run{row.name, givenFlags(command), row.outputFlag, {}};
  const auto output = run.flags.find(run.outputFlag);
  if (output == run.flags.end() || output->second.size() != 1 || !std::filesystem::exists(output->second[0])) return;
  try {
    // Held while the manifest is written: no other run may be writing there.
    std::optional<OutputDirectoryLock> lock;
    if (std::filesystem::is_directory(output->second[0]))
      lock.emplace(OutputDirectoryLock::claim(output->second[0], row.name, ExistingOutput::Keep));
    run.inputsDescribed = policiesRead(run.flags);
    writeRunManifest(run);
  } catch (const std::exception &e) {
    spdlog::warn("the run's results stand, but its manifest was not written: {}", e.what());
  }
}

}  // namespace mlgo::cli
