#include "mlgo/training/ppo/ppo_checkpoint.h"

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "mlgo/training/ppo/ppo_settings.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// state.json of a saved run, with the keys every version wrote.
json loadState(const fs::path &path) {
  json state = readJsonFile(path);
  for (const char *key : {"iteration", "kl_beta", "bad_iterations_in_a_row", "seed", "config", "baselines"})
    if (!state.contains(key)) throw InputError(describeInputProblem(path.string(), key, "missing"));
  return state;
}

/// Throws UsageError unless the saved run had this seed and this config but
/// for how long it runs.
void checkSameRun(const json &saved, const json &config, uint64_t seed, const fs::path &statePath) {
  if (saved["seed"].get<uint64_t>() != seed)
    throw UsageError("--seed " + std::to_string(seed) + " differs from the resumed run's seed " + saved["seed"].dump());
  // A key the saved run's mlgo did not have yet had its default's effect.
  const ConfigSchema &schema = ppoSettingsSchema().keys();
  std::string changed;
  for (const std::string &key : changedOnResume(schema, saved["config"], config)) changed += " " + key;
  if (!changed.empty())
    throw UsageError("the config differs from the resumed run's (" + statePath.string() + ") in:" + changed +
                     "; only " + resumableKeys(schema) + " may change on --resume");
}

}  // namespace

bool ResumeDirectory::exists() const { return !existingDirectory(target_).empty(); }

fs::path ResumeDirectory::directory() const { return existingDirectory(target_); }

void ResumeDirectory::save(const ResumeState &state, const json &config, uint64_t seed, const PPORewards &rewards,
                           const SamplingPolicy &policy, PPOUpdate &update) const {
  const fs::path partial = fs::path(target_.string() + ".partial");
  fs::remove_all(partial);
  fs::create_directories(partial);
  update.save(partial);
  policy.save(partial / "policy");
  json saved{{"iteration", state.iteration},
             {"kl_beta", update.klBeta()},
             {"bad_iterations_in_a_row", state.badIterationsInARow},
             {"seed", seed},
             {"config", config}};
  rewards.saveTo(saved);
  writeFileAtomically(partial / "state.json", saved.dump(1) + "\n");
  replaceDirectory(partial, target_);
}

void ResumeDirectory::restore(const json &config, uint64_t seed, ResumeState &state, PPORewards &rewards,
                              PPOUpdate &update) const {
  const fs::path statePath = directory() / "state.json";
  const json saved = loadState(statePath);
  checkSameRun(saved, config, seed, statePath);
  state.iteration = saved["iteration"].get<int64_t>();
  update.setKlBeta(saved["kl_beta"].get<double>());
  state.badIterationsInARow = saved["bad_iterations_in_a_row"].get<int64_t>();
  rewards.restoreFrom(saved, statePath.string());
  update.load(directory());
}

}  // namespace mlgo
