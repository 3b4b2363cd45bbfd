#pragma once
// train-es's collection: an iteration's sample of modules compiled with every
// candidate of the strategy and with the unperturbed policy (on this process
// or across the ranks of an mpirun). Part of the ES run (es_trainer.cpp).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mlgo/distributed/cluster.h"
#include "mlgo/training/es/es_objective.h"
#include "mlgo/training/es/es_trainer.h"

namespace mlgo {

/// What one iteration measured.
struct ESScores {
  std::vector<double> fitness;  ///< per candidate
  size_t modules = 0;
  ESFitness policy;  ///< the unperturbed policy's (reported, not used by the step)
  size_t compiles = 0, replayed = 0, failed = 0;
  double seconds = 0;
};

/// Compiles the iteration's modules (sampled by seed and iteration from
/// `sampleable`, the same for every candidate: common random numbers) with
/// every candidate and with the unperturbed policy.
ESScores evaluateCandidates(int64_t iteration, const EvolutionStrategy &strategy, ESObjective &objective,
                            const std::vector<size_t> &sampleable, size_t modulesPerIteration, uint64_t seed,
                            Cluster *cluster);

}  // namespace mlgo
