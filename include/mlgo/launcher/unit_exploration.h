#pragma once
// `mlgo cc --explore N`: each compile of a unit also tries up to N pass lists
// its store does not hold for it yet. First the lists ranked for it (what
// won on the project's other units, then the predictor's ranking), then
// autotune's own search on the module (strategy hybrid, its seed and
// budget), replayed from what the store holds: a list the unit compiled
// before is answered from the store and the search moves on exactly as
// autotune's does, so after B/N builds the unit has tried every list that
// `mlgo autotune --budget B` tries on a corpus of its module alone (tested).
// The ranked lists come on top; autotune's broadcast phase, lists that won
// on other modules, is what the ranking gives instead.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "mlgo/autotune/search_space.h"
#include "mlgo/store/build_store.h"
#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_result.h"

namespace mlgo::launcher {

struct ExplorationSettings {
  size_t newCompiles = 0;  ///< N: lists compiled now at most
  size_t budget = 500;     ///< autotune's budget replayed (its -Oz compile included)
  uint64_t seed = 0;       ///< autotune's --seed
  /// Rendered pipelines to try before the search, in order.
  std::vector<std::string> ranked;
};

/// Compiles `pipeline` for the module ("" its recorded level): its trial.
using PipelineCompile = std::function<store::StoredTrial(const std::string &pipeline)>;

/// The unit's next lists, compiled: up to settings.newCompiles pipelines
/// that `known` (the store's trials of the unit) lacks, in the order above.
/// The recorded level comes first when it is not known. Deterministic for a
/// given module name, known trials and settings. Empty once the search has
/// spent its budget: the unit is then decided.
std::vector<store::StoredTrial> exploreUnit(const CorpusModule &module,
                                             const std::map<std::string, store::StoredTrial> &known,
                                             const autotune::SearchSpace &space, const ExplorationSettings &settings,
                                             const PipelineCompile &compile);

/// A compile's result as the store keeps it (with its optimization work),
/// and back.
store::StoredTrial trialOf(const std::string &pipeline, const CompileResult &result, uint64_t work);
CompileResult resultOf(const store::StoredTrial &trial);

}  // namespace mlgo::launcher
