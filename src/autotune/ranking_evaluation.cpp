#include "mlgo/autotune/ranking_evaluation.h"

#include <stdexcept>

#include "mlgo/support/portable_math.h"

namespace mlgo::autotune {

std::vector<BudgetOutcome> evaluateRanking(const SweepTable &table, const Coreset &coreset,
                                           const std::vector<size_t> &modules,
                                           const std::vector<std::vector<size_t>> &rankings,
                                           const std::vector<size_t> &budgets) {
  if (rankings.size() != modules.size()) throw std::invalid_argument("one ranking per module");
  const std::vector<size_t> columns = coresetColumns(table, coreset);
  const std::vector<std::vector<double>> gains = coresetGains(table, coreset, false);
  std::vector<BudgetOutcome> outcomes;
  for (size_t budget : budgets) {
    double logGains = 0, keptInstructions = 0, ozInstructions = 0;
    for (size_t i = 0; i < modules.size(); ++i) {
      const SweptModule &module = table.modules[modules[i]];
      const std::vector<double> &row = gains[modules[i]];
      // -Oz unless a list gains on it, as bestOfFirst counts.
      const ListOutcome *kept = &module.oz;
      double best = 0;
      for (size_t r = 0; r < rankings[i].size() && r < budget; ++r) {
        const size_t k = rankings[i][r];
        if (row[k] > best) {
          best = row[k];
          kept = &*module.lists[columns[k]];
        }
      }
      logGains += best;
      keptInstructions += double(kept->irInstructions);
      ozInstructions += double(module.oz.irInstructions);
    }
    const double count = double(modules.empty() ? 1 : modules.size());
    outcomes.push_back({budget, portable::exp(-logGains / count) - 1,
                        ozInstructions > 0 ? keptInstructions / ozInstructions - 1 : 0.0});
  }
  return outcomes;
}

}  // namespace mlgo::autotune
