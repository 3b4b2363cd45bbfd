#include "common_options.h"

#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"

namespace mlgo::cli {

namespace {
Cluster *currentCluster = nullptr;
}  // namespace

Cluster &runCluster() {
  static const std::unique_ptr<Cluster> single = singleProcessCluster();
  return currentCluster ? *currentCluster : *single;
}

void setRunCluster(Cluster *cluster) { currentCluster = cluster; }

CLI::Validator wholeNumber(uint64_t minimum) {
  return CLI::Validator(
      [minimum](std::string &text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 19 &&
                            text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoull(text) < minimum)
          return "expected a whole number of at least " + std::to_string(minimum) + ", got \"" + text + "\"";
        return "";
      },
      minimum == 0 ? "UINT" : "UINT>=" + std::to_string(minimum));
}

void addDriverFlags(CLI::App &command, DriverFlags &flags) {
  command.add_option("--threads", flags.threads, "Compile threads (0: one per core)")
      ->capture_default_str()
      ->check(wholeNumber());
  command.add_option("--timeout", flags.timeoutSeconds, "Seconds one module may compile before it is skipped (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  // Test-only: proves a crash or a hang in one module never ends a run.
  command.add_option("--inject-fault", flags.injectFault)->group("");
}

DriverOptions toDriverOptions(const DriverFlags &flags) {
  DriverOptions options;
  options.threads = flags.threads;
  options.timeout = std::chrono::milliseconds(static_cast<long long>(flags.timeoutSeconds * 1000));
  if (!flags.injectFault.empty()) {
    const auto colon = flags.injectFault.find(':');
    const std::string kind = flags.injectFault.substr(0, colon);
    const std::string module = colon == std::string::npos ? "" : flags.injectFault.substr(colon + 1);
    if (module.empty() || (kind != "crash" && kind != "hang" && kind != "heap"))
      throw UsageError("--inject-fault takes crash:MODULE, hang:MODULE or heap:MODULE");
    (kind == "crash" ? options.faults.crashModule
                     : kind == "hang" ? options.faults.hangModule : options.faults.heapCorruptionModule) = module;
  }
  return options;
}

std::optional<OutputDirectoryLock> claimOutput(const std::string &directory, const std::string &command,
                                               ExistingOutput existing, const std::string &howToContinue) {
  if (!runCluster().isLeader()) return std::nullopt;
  return OutputDirectoryLock::claim(directory, command, existing, howToContinue);
}

PolicyModel loadInliningPolicy(const std::string &directory) {
  const Problem &problem = findProblem("inlining");
  return PolicyModel::load(directory, problem.name(), problem.featureNames());
}

}  // namespace mlgo::cli
