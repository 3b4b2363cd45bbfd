#include "mlgo/training/shared/collector.h"

#include <algorithm>
#include <numeric>

#include "mlgo/problems/problem.h"
#include "mlgo/training/shared/trajectory_memo.h"
#include "mlgo/support/sampling.h"

namespace mlgo {

std::vector<size_t> sampleModules(size_t corpusSize, size_t count, uint64_t seed, uint64_t iteration) {
  std::vector<size_t> indices(corpusSize);
  std::iota(indices.begin(), indices.end(), 0);
  if (count >= corpusSize) return indices;
  // Partial Fisher-Yates on a SplitMix64 stream keyed by seed and iteration.
  uint64_t state = mixBits(seed ^ 0x6d6f'6475'6c65'7321ull) ^ mixBits(iteration + 1);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t random = mixBits(state++);
    const size_t pick = i + static_cast<size_t>(random % (corpusSize - i));
    std::swap(indices[i], indices[pick]);
  }
  indices.resize(count);
  std::sort(indices.begin(), indices.end());
  return indices;
}

std::vector<CollectedModule> collectTrajectories(const CompilerDriver &driver, const Corpus &corpus,
                                                 const Problem &problem, const SamplingPolicy &policy,
                                                 const CollectionPlan &plan,
                                                 const CompilerDriver::Progress &progress) {
  const size_t count = plan.modules.size();
  std::vector<CollectedModule> collected(count);
  std::vector<std::unique_ptr<ActionSampler>> samplers(count);
  std::vector<std::string> moduleKeys(count);
  // The memo's tree holds yes/no decisions and no segments or measures.
  TrajectoryMemo *trajectories =
      policy.actionCount() == 2 && problem.segmentName().empty() ? plan.trajectories : nullptr;
  CompileMemo *memo = driver.options().memo.get();
  std::vector<CompileRequest> requests;
  std::vector<size_t> requestOf(count, SIZE_MAX), defaultRequestOf(count, SIZE_MAX);
  for (size_t i = 0; i < count; ++i) {
    const CorpusModule &module = corpus.modules.at(plan.modules[i]);
    collected[i].module = plan.modules[i];
    const uint64_t seed = actionSeed(plan.seed, plan.iteration, module.name);
    samplers[i] = std::make_unique<ActionSampler>(policy, seed, collected[i].trajectory, plan.greedy);
    // The module as the default compile would key it: bitcode, command
    // line, versions; what the decisions add is the tree's.
    if (trajectories) moduleKeys[i] = trajectories->moduleKey(module);
    if (!moduleKeys[i].empty()) {
      std::optional<CompileResult> known = trajectories->replay(moduleKeys[i], *samplers[i]);
      if (memo) memo->noteSequenceCompile(known.has_value(), known ? known->seconds : 0.0);
      if (known) {
        collected[i].result = std::move(*known);
        collected[i].result.seconds = 0;  // nothing was compiled
        continue;
      }
      // Left the known paths: compile, sampling afresh from the same seed.
      collected[i].trajectory.clear();
      samplers[i] = std::make_unique<ActionSampler>(policy, seed, collected[i].trajectory, plan.greedy);
    }
    requestOf[i] = requests.size();
    requests.push_back({&module, "", {problem.steeringHook(*samplers[i])}});
  }
  for (size_t i = 0; i < count; ++i)
    if (plan.needsDefault.at(i)) {
      defaultRequestOf[i] = requests.size();
      std::vector<std::shared_ptr<PipelineHook>> hooks;
      if (std::shared_ptr<PipelineHook> measuring = problem.measuringHook()) hooks.push_back(std::move(measuring));
      requests.push_back({&corpus.modules.at(plan.modules[i]), "", std::move(hooks)});
    }
  std::vector<CompileResult> results = driver.compileAll(requests, progress);
  auto measure = [&](size_t request, std::map<std::string, double> &measures, SegmentMeasures &segments) {
    const auto &hooks = requests[request].hooks;
    if (hooks.empty()) return;
    measures = problem.measures(*hooks.front());
    segments = problem.segmentMeasures(*hooks.front());
  };
  for (size_t i = 0; i < count; ++i) {
    if (requestOf[i] != SIZE_MAX) {
      collected[i].result = std::move(results[requestOf[i]]);
      if (collected[i].result.ok()) measure(requestOf[i], collected[i].measures, collected[i].segmentMeasures);
      if (!moduleKeys[i].empty() && collected[i].result.ok())
        trajectories->record(moduleKeys[i], collected[i].trajectory, collected[i].result);
    }
    if (!collected[i].result.ok()) collected[i].trajectory.clear();
    if (defaultRequestOf[i] != SIZE_MAX) {
      collected[i].defaultResult = std::move(results[defaultRequestOf[i]]);
      if (collected[i].defaultResult->ok())
        measure(defaultRequestOf[i], collected[i].defaultMeasures, collected[i].defaultSegmentMeasures);
    }
  }
  return collected;
}

}  // namespace mlgo
