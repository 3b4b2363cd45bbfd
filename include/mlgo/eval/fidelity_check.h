#pragma once
// `mlgo eval --check-fidelity`: compiles every module again with a clang-19
// subprocess and compares .text with what the in-process driver measured.
// The bar: equal for at least 99% of modules.
#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_result.h"

namespace mlgo {

struct FidelityMismatch {
  std::string name;
  uint64_t driverText = 0;
  uint64_t clangText = 0;
  std::string clangFailure;  ///< set when clang failed where the driver did not
};

struct FidelityReport {
  size_t compared = 0;  ///< modules both compiled
  size_t matching = 0;  ///< equal .text
  std::vector<FidelityMismatch> mismatches;
  unsigned threads = 0;
  double clangWallSeconds = 0;  ///< the subprocess loop at the same parallelism
  double driverWallSeconds = 0;  ///< the in-process compiles of the same modules (set by the caller)
  double matchRate() const { return compared ? double(matching) / compared : 1.0; }
};

/// `driverResults[i]` is the driver's default-pipeline result for
/// corpus.modules[i]; modules the driver failed are skipped.
FidelityReport checkFidelity(const Corpus &corpus, const std::vector<CompileResult> &driverResults,
                             const std::string &clang, unsigned threads, std::chrono::milliseconds timeout);

nlohmann::json fidelityReportToJson(const FidelityReport &report);
std::string fidelityReportToText(const FidelityReport &report);

}  // namespace mlgo
