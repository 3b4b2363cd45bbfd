#pragma once
// Options several subcommands share, spelled the same everywhere.
#include <CLI/CLI.hpp>

#include "mlgo/distributed/cluster.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/policy/policy_model.h"

namespace mlgo::cli {

struct DriverFlags {
  unsigned threads = 0;
  double timeoutSeconds = 60;
  std::string injectFault;  ///< test-only: "crash:MODULE", "hang:MODULE" or "heap:MODULE"
};

/// The ranks of this run: main() joins them before it runs a command (a
/// cluster of one without mpirun).
Cluster &runCluster();
void setRunCluster(Cluster *cluster);

/// --threads, --timeout and the hidden --inject-fault.
void addDriverFlags(CLI::App &command, DriverFlags &flags);
/// Throws UsageError for a malformed --inject-fault.
DriverOptions toDriverOptions(const DriverFlags &flags);

/// The command line that starts `mlgo compile-worker` on `corpus` with the
/// same timeout and injected faults (compile_worker_command.cpp).
std::vector<std::string> compileWorkerCommand(const std::string &corpus, const DriverFlags &driver);

/// A policy directory checked against the inlining problem's features.
/// Throws InputError naming the file and what does not match.
PolicyModel loadInliningPolicy(const std::string &directory);

}  // namespace mlgo::cli
