#include "mlgo/training/collector.h"

#include <algorithm>
#include <numeric>

#include "mlgo/problems/problem.h"
#include "mlgo/trace/sampling.h"

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
                                                 const Problem &problem, const PolicyModel &model,
                                                 const CollectionPlan &plan,
                                                 const CompilerDriver::Progress &progress) {
  const size_t count = plan.modules.size();
  std::vector<CollectedModule> collected(count);
  std::vector<std::unique_ptr<ActionSampler>> samplers(count);
  std::vector<CompileRequest> requests;
  std::vector<size_t> defaultRequestOf(count, SIZE_MAX);
  for (size_t i = 0; i < count; ++i) {
    const CorpusModule &module = corpus.modules.at(plan.modules[i]);
    collected[i].module = plan.modules[i];
    samplers[i] = std::make_unique<ActionSampler>(model, actionSeed(plan.seed, plan.iteration, module.name),
                                                  collected[i].trajectory);
    requests.push_back({&module, "", {problem.samplingHook(*samplers[i])}});
  }
  for (size_t i = 0; i < count; ++i)
    if (plan.needsDefault.at(i)) {
      defaultRequestOf[i] = requests.size();
      requests.push_back({&corpus.modules.at(plan.modules[i]), "", {}});
    }
  std::vector<CompileResult> results = driver.compileAll(requests, progress);
  for (size_t i = 0; i < count; ++i) {
    collected[i].result = std::move(results[i]);
    if (!collected[i].result.ok()) collected[i].trajectory.clear();
    if (defaultRequestOf[i] != SIZE_MAX) collected[i].defaultResult = std::move(results[defaultRequestOf[i]]);
  }
  return collected;
}

}  // namespace mlgo
