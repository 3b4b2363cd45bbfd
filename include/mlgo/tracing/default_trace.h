#pragma once
// `mlgo default-trace`: compiles (a deterministic sample of) a corpus with the
// default heuristic and records every decision, plus each module's native
// size, the baseline later rewards are computed against.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "mlgo/corpus/corpus.h"
#include "mlgo/distributed/cluster.h"
#include "mlgo/driver/compiler_driver.h"

namespace mlgo {

class Problem;

struct DefaultTraceOptions {
  std::filesystem::path output;
  double samplingRate = 1.0;
  std::optional<std::string> moduleFilter;  ///< ECMAScript regex on module names
  uint64_t seed = 0;
  size_t shards = 8;  ///< fixed, so files never depend on --threads
};

struct TracedFailure {
  std::string module;
  FailureKind failure;
  std::string message;
};

struct DefaultTraceSummary {
  size_t corpusModules = 0;
  size_t sampled = 0;
  size_t traced = 0;
  std::vector<TracedFailure> failures;
  uint64_t decisions = 0;
  uint64_t recordBytes = 0;  ///< module records only
  uint64_t traceBytes = 0;   ///< all shard bytes
  double seconds = 0;
  double compileSeconds = 0;  ///< summed over modules
};

/// Throws UsageError for a bad --module-filter or rate, InputError when the
/// output cannot be written. With ranks, each traces its share and rank 0
/// writes the same files as a single-process run; the other ranks return the
/// summary of their share and write nothing.
DefaultTraceSummary runDefaultTrace(const Corpus &corpus, const CompilerDriver &driver, const Problem &problem,
                                    const DefaultTraceOptions &options, const CompilerDriver::Progress &progress,
                                    Cluster &cluster);
/// The same, in a cluster of one.
DefaultTraceSummary runDefaultTrace(const Corpus &corpus, const CompilerDriver &driver, const Problem &problem,
                                    const DefaultTraceOptions &options,
                                    const CompilerDriver::Progress &progress = nullptr);

}  // namespace mlgo
