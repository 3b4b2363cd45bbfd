#include "mlgo/training/decision_kinds.h"
#include "mlgo/training/es/es_objective.h"

#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"

namespace mlgo {

void ESObjective::learnMissingDefaults(const std::vector<size_t> &modules) {
  std::vector<CompileRequest> requests;
  std::vector<std::shared_ptr<PipelineHook>> hooks;
  std::vector<size_t> which;
  for (size_t index : modules)
    if (!defaults_.has(corpus_.modules[index].name)) {
      CompileRequest request{&corpus_.modules[index], "", {}};
      hooks.push_back(measuringHook());
      if (hooks.back()) request.hooks.push_back(hooks.back());
      requests.push_back(std::move(request));
      which.push_back(index);
    }
  const std::vector<CompileResult> results = driver_.compileAll(requests);
  for (size_t i = 0; i < results.size(); ++i) {
    // A module whose default fails keeps a measure of 0: every candidate's
    // reward on it is then equal (and the failure shows in the metrics).
    defaults_.addDefault(corpus_.modules[which[i]].name,
                         results[i].ok() ? defaultMeasure(results[i], hooks[i].get()) : 0.0);
  }
}

std::vector<size_t> ESObjective::sampleable() const {
  std::vector<size_t> all(corpus_.modules.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

nlohmann::json ESObjective::defaultsToJson() const {
  nlohmann::json defaults = nlohmann::json::object();
  for (const CorpusModule &module : corpus_.modules)
    if (defaults_.has(module.name)) defaults[module.name] = defaults_.at(module.name).defaultSize;
  return defaults;
}

void ESObjective::restoreDefaults(const nlohmann::json &saved) {
  for (const auto &[name, measure] : saved.items()) defaults_.addDefault(name, measure.get<double>());
}

ESFitness ESObjective::fitness(const std::vector<size_t> &modules, const std::vector<ModuleMeasure> &measures) const {
  if (measures.size() != modules.size()) throw std::logic_error("ESObjective::fitness: one measure per module");
  ESFitness fitness;
  for (size_t i = 0; i < modules.size(); ++i) {
    const ModuleMeasure &measure = measures[i];
    ++(measure.replayed ? fitness.replayed : fitness.compiles);
    if (!measure.ok) {
      ++fitness.failed;
      fitness.meanReward += -1.0;  // a failed compile is the worst outcome a candidate can have
      continue;
    }
    const double defaultMeasure = defaults_.at(corpus_.modules[modules[i]].name).defaultSize;
    fitness.meanReward += sizeReward(measure.value, defaultMeasure);
    fitness.policyMeasure += measure.value;
    fitness.defaultMeasure += defaultMeasure;
  }
  if (!modules.empty()) fitness.meanReward /= double(modules.size());
  return fitness;
}

std::unique_ptr<ESObjective> makeESObjective(const Problem &problem, const std::filesystem::path &warmstart,
                                             const Corpus &corpus, const CompilerDriver &driver, uint64_t seed,
                                             TrajectoryMemo *trajectories) {
  return decisionKindBundle(problem.decisionSpec().kind())
      .esObjective(problem, warmstart, corpus, driver, seed, trajectories);
}

}  // namespace mlgo
