#pragma once
// How a ranking of a coreset's lists does on swept modules (sweep-passes):
// each module compiles its first K ranked lists and -Oz and keeps the
// smallest, as `autotune --strategy predicted --budget K` does, and the
// sweep says what that gives without compiling again. `predict-passes
// --sweep` reports it for a predictor's ranking beside the coreset's own
// order, on modules the predictor never saw.
#include <cstddef>
#include <vector>

#include "mlgo/autotune/coreset.h"
#include "mlgo/autotune/pass_sweep.h"

namespace mlgo::autotune {

/// What the modules keep when each compiles its first `budget` ranked lists.
struct BudgetOutcome {
  size_t budget = 0;
  /// Geometric-mean size change vs -Oz under the coreset's metric (-0.05: 5%
  /// smaller).
  double geomeanChange = 0;
  /// IR instructions of the compiles the modules keep, summed, vs -Oz's.
  double irInstructionChange = 0;
};

/// For each of `budgets`: what swept modules `modules` (indices into
/// table.modules) keep when module modules[i] compiles the first K lists of
/// `rankings[i]` (coreset indices, best first) and -Oz. A list counts where
/// the sweep says it may be used on the module (coresetGains, gated lists
/// only); on a tie the earlier-ranked list is kept. Throws InputError as
/// coresetColumns does.
std::vector<BudgetOutcome> evaluateRanking(const SweepTable &table, const Coreset &coreset,
                                           const std::vector<size_t> &modules,
                                           const std::vector<std::vector<size_t>> &rankings,
                                           const std::vector<size_t> &budgets);

}  // namespace mlgo::autotune
