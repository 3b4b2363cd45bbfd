#pragma once
// The compile-cost model's calibration (`mlgo calibrate-costs`): modules of a
// corpus compiled under their recorded level and under lists that run every
// pass of the search space, each pass invocation timed by mlgo's own driver
// (mlgo/driver/pass_timing.h) and charged as the model charges it
// (mlgo/driver/optimization_work.h), then a * n + q * n^2 fitted per pass
// class. Beside it, what the model in this binary estimates for the same
// compiles, so that its error shows: in the ratio of a list's compile to the
// recorded level's, which is all a choice under a cost bound weighs.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mlgo/autotune/search_space.h"
#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/driver/pass_timing.h"

namespace mlgo::autotune {

struct CostCalibrationOptions {
  /// Modules of the corpus to time (all when it has fewer): a third with
  /// the largest single function, a third with the most instructions, the
  /// rest spread evenly over the others by size.
  size_t modules = 12;
  /// Pipelines run on each module after its recorded level. Empty: every
  /// included element of the space `rounds` times, in shuffled lists of
  /// `listLength` elements (each pass seen after others, as in a search).
  std::vector<std::string> pipelines;
  size_t rounds = 2;
  size_t listLength = 8;
  uint64_t seed = 1;
  std::function<void(size_t done, size_t total)> progress;
};

/// One compile: what it measured and what the model estimated for it.
struct CalibrationCompile {
  std::string module, pipeline;  ///< "" : the recorded level
  bool ok = false;
  double measuredNanoseconds = 0;   ///< the passes' own times and code generation
  double estimatedNanoseconds = 0;  ///< the model of this binary, for the same
};

struct CostCalibration {
  PassTimes times;
  std::vector<CalibrationCompile> compiles;
  std::vector<std::string> modules;
};

/// The modules `options.modules` chooses, in the corpus's order. Modules
/// whose bitcode cannot be read are passed over.
std::vector<const CorpusModule *> calibrationModules(const Corpus &corpus, size_t count);

/// The pipelines every module runs: "" (the recorded level) first.
/// InputError naming `source` and the line for a pipeline that is not a list
/// of the space's elements.
std::vector<std::string> calibrationPipelines(const SearchSpace &space, const CostCalibrationOptions &options,
                                              const std::string &source = "--pipelines");

/// Compiles every chosen module under every pipeline on the driver's pool
/// (one thread times best: two compiles share the caches of the cores).
CostCalibration calibrateCosts(const Corpus &corpus, const CompilerDriver &driver, const SearchSpace &space,
                               const CostCalibrationOptions &options);

/// The model's error per compile that is not the recorded level: the
/// estimated ratio of its compile to the recorded level's over the measured
/// one (1: exact; below 1: the model calls the list cheaper than it is).
std::vector<double> ratioErrors(const CostCalibration &calibration);

/// The text of src/driver/pass_costs.inc for what was timed: every pass
/// class seen at least three times, with its fitted (a, q) in nanoseconds.
std::string costModelSource(const PassTimes &times);

}  // namespace mlgo::autotune
