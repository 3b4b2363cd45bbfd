#pragma once
// What the pass-list commands (autotune, sweep-passes) share: the search
// space file, where candidates compile, and the correctness gate.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "common_options.h"
#include "mlgo/autotune/correctness_gate.h"
#include "mlgo/autotune/pass_list_search.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/driver/isolated_compiler.h"

namespace mlgo::cli {

struct PassListFlags {
  std::string passesFile;
  std::string isolation = "process";
  bool noGate = false;
  std::string gatePrograms;
};

/// --passes-file, --isolation, --no-gate and --gate-programs.
void addPassListFlags(CLI::App &command, PassListFlags &flags);

/// The search space of --passes-file (default: mlgo's).
autotune::SearchSpace loadSearchSpace(const PassListFlags &flags);

/// Candidate compiles as --isolation says: in worker processes (kept in
/// `workers`, which must outlive the function) through the driver's memo,
/// or an empty function (in-process on the driver's threads).
autotune::CandidateCompile candidateCompile(const PassListFlags &flags, const std::string &corpus,
                                            const DriverFlags &driverFlags, const DriverOptions &driverOptions,
                                            std::unique_ptr<IsolatedCompiler> &workers);

/// The correctness gate in `workDirectory` (null with --no-gate), on the
/// driver's --threads; with --cache-dir it remembers verdicts across runs in
/// its gate-verdicts/. Throws UsageError when clang-19 or opt-19 is missing.
std::unique_ptr<autotune::CorrectnessGate> makeGate(const PassListFlags &flags, const std::string &workDirectory,
                                                    const DriverFlags &driver);

/// A line on stderr when compile workers were lost and replaced.
void logLostWorkers(const std::unique_ptr<IsolatedCompiler> &workers);

}  // namespace mlgo::cli
