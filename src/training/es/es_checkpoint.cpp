#include "mlgo/training/es/es_checkpoint.h"

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

bool ESCheckpoint::resumes() const { return options_.resume && fs::exists(statePath()); }

int64_t ESCheckpoint::restore(EvolutionStrategy &strategy, ESObjective &objective) const {
  const json saved = readJsonFile(statePath());
  for (const char *key : {"iteration", "seed", "config", "strategy", "baselines"})
    if (!saved.contains(key)) throw InputError(describeInputProblem(statePath().string(), key, "missing"));
  if (saved["seed"].get<uint64_t>() != options_.seed)
    throw UsageError("--seed " + std::to_string(options_.seed) + " differs from the resumed run's seed " +
                     saved["seed"].dump());
  // Only how long the run lasts may change.
  const ConfigSchema &schema = esSettingsSchema().keys();
  if (!changedOnResume(schema, saved["config"], options_.config).empty())
    throw UsageError("the config differs from the resumed run's (" + statePath().string() + "); only " +
                     resumableKeys(schema) + " may change on --resume");
  try {
    strategy.restore(saved["strategy"]);
  } catch (const std::exception &e) {
    throw InputError(describeInputProblem(statePath().string(), "strategy", jsonErrorText(e)));
  }
  objective.restoreDefaults(saved["baselines"]);
  // Every iteration takes one step: a state that disagrees was edited.
  if (!saved["iteration"].is_number_integer() || saved["iteration"].get<int64_t>() != strategy.steps())
    throw InputError(describeInputProblem(
        statePath().string(), "iteration",
        saved["iteration"].dump() + " is not the number of steps taken (" + std::to_string(strategy.steps()) + ")"));
  return saved["iteration"].get<int64_t>();
}

void ESCheckpoint::writePolicy(int64_t iteration, const EvolutionStrategy &strategy,
                               const ESObjective &objective) const {
  savePolicy(iteration, strategy, objective, options_.output / "policy");
  if (settings_.checkpointEvery > 0 && iteration % settings_.checkpointEvery == 0)
    savePolicy(iteration, strategy, objective,
               options_.output / "checkpoints" / ("iteration-" + std::to_string(iteration)));
}

void ESCheckpoint::save(int64_t iteration, const EvolutionStrategy &strategy, const ESObjective &objective) const {
  fs::create_directories(statePath().parent_path());
  writeFileAtomically(statePath(), json{{"iteration", iteration},
                                        {"seed", options_.seed},
                                        {"config", options_.config},
                                        {"strategy", strategy.state()},
                                        {"baselines", objective.defaultsToJson()}}
                                           .dump() +
                                       "\n");
}

void ESCheckpoint::savePolicy(int64_t iteration, const EvolutionStrategy &strategy, const ESObjective &objective,
                              const fs::path &directory) const {
  objective.savePolicy(strategy.weights(),
                       {{"trainer", "evolution-strategies"},
                        {"corpus", options_.corpus.string()},
                        {"warmstart", options_.warmstart.string()},
                        {"seed", options_.seed},
                        {"iterations", iteration},
                        {"config", options_.config}},
                       directory);
}

}  // namespace mlgo
