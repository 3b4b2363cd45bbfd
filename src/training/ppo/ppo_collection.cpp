#include "mlgo/training/ppo/ppo_collection.h"

#include <chrono>

#include "mlgo/support/sampling.h"
#include "mlgo/training/ppo/ppo_rewards.h"

namespace mlgo {

PPOCollection::PPOCollection(const PPOOptions &options, const PPOSettings &settings, const CompilerDriver &driver,
                             const Corpus &corpus)
    : options_(options),
      driver_(driver),
      corpus_(corpus),
      distributed_(options.cluster && options.cluster->distributed()),
      modulesPerIteration_(static_cast<size_t>(settings.modulesPerIteration)) {
  if (options.driver.memo) trajectories_.emplace(options.driver.memo->options().maxBytes);
}

Collection PPOCollection::collect(int64_t iteration, const SamplingPolicy &policy, const PPORewards &rewards) {
  const auto start = std::chrono::steady_clock::now();
  CollectionPlan plan;
  plan.seed = options_.seed;
  plan.iteration = static_cast<uint64_t>(iteration);
  plan.trajectories = trajectories_ ? &*trajectories_ : nullptr;
  plan.modules = sampleModules(corpus_.modules.size(), modulesPerIteration_, options_.seed, plan.iteration);
  for (size_t index : plan.modules) plan.needsDefault.push_back(rewards.needsDefault(corpus_.modules[index].name));
  Collection collection;
  const Problem &problem = *options_.problem;
  collection.modules = distributed_
                           ? collectAcrossRanks(*options_.cluster, driver_, corpus_, problem, policy, plan,
                                                options_.onCollectProgress, &collection.traffic)
                           : collectTrajectories(driver_, corpus_, problem, policy, plan, options_.onCollectProgress);
  collection.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return collection;
}

void PPOCollection::finish() {
  if (distributed_) endCollection(*options_.cluster);
}

}  // namespace mlgo
