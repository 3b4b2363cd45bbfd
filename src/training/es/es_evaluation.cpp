#include "mlgo/training/es/es_evaluation.h"

#include <chrono>

#include "mlgo/training/shared/collector.h"
#include "mlgo/training/es/distributed_es.h"

namespace mlgo {

ESScores evaluateCandidates(int64_t iteration, const EvolutionStrategy &strategy, ESObjective &objective,
                            const std::vector<size_t> &sampleable, size_t modulesPerIteration, uint64_t seed,
                            Cluster *cluster) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<size_t> modules;
  for (size_t k : sampleModules(sampleable.size(), modulesPerIteration, seed, uint64_t(iteration)))
    modules.push_back(sampleable[k]);
  objective.learnMissingDefaults(modules);
  ESScores scores;
  scores.modules = modules.size();
  auto tally = [&](const ESFitness &fitness) {
    scores.compiles += fitness.compiles;
    scores.replayed += fitness.replayed;
    scores.failed += fitness.failed;
    return fitness;
  };
  MeasureRequest request{iteration, modules, {}};
  for (size_t index = 0; index < strategy.candidates(); ++index)
    request.candidates.push_back(strategy.candidate(iteration, index));
  request.candidates.push_back(strategy.weights());  // the unperturbed policy, last
  const CandidateMeasures measures = measureCandidates(cluster, objective, request);
  for (size_t index = 0; index < strategy.candidates(); ++index)
    scores.fitness.push_back(tally(objective.fitness(modules, measures[index])).meanReward);
  scores.policy = tally(objective.fitness(modules, measures.back()));
  scores.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return scores;
}

}  // namespace mlgo
