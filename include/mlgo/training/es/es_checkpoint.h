#pragma once
// train-es's checkpoint and resume: the policy after every iteration (and a
// kept checkpoint every checkpoint_every), the state --resume continues from
// (output/resume/state.json), and the checks a resumed run passes. Part of
// the ES run (es_trainer.cpp).
#include <cstdint>
#include <filesystem>

#include "mlgo/training/es/es_objective.h"
#include "mlgo/training/es/es_trainer.h"

namespace mlgo {

class ESCheckpoint {
 public:
  ESCheckpoint(const ESOptions &options, const ESSettings &settings) : options_(options), settings_(settings) {}

  /// Whether this start continues a saved run (--resume and a saved state).
  bool resumes() const;
  /// Restores the strategy and the defaults after checking that the saved
  /// run is this one (seed, config but for `iterations`: UsageError) and
  /// intact (InputError naming state.json). Returns the iterations done.
  int64_t restore(EvolutionStrategy &strategy, ESObjective &objective) const;
  /// The policy of `iteration` in output/policy, and a checkpoint when due.
  void writePolicy(int64_t iteration, const EvolutionStrategy &strategy, const ESObjective &objective) const;
  /// The state after `iteration`.
  void save(int64_t iteration, const EvolutionStrategy &strategy, const ESObjective &objective) const;

 private:
  std::filesystem::path statePath() const { return options_.output / "resume" / "state.json"; }
  void savePolicy(int64_t iteration, const EvolutionStrategy &strategy, const ESObjective &objective,
                  const std::filesystem::path &directory) const;

  const ESOptions &options_;
  const ESSettings &settings_;
};

}  // namespace mlgo
