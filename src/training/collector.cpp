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

namespace {

/// The decision-sequence memo of one sampled compile: after every decision,
/// looks the actions so far up; a complete earlier compile of the module
/// with exactly these actions means this one can decide nothing else, so it
/// ends with that compile's result. After a compile that ran to the end,
/// its sequence is stored.
class SequenceMemo {
 public:
  SequenceMemo(CompileMemo &memo, std::string moduleKey) : memo_(memo), moduleKey_(std::move(moduleKey)) {}

  /// A module that made no decision in an earlier compile makes none in any
  /// (the first decision never comes): its result is known without compiling.
  std::optional<CompileResult> knownWithoutDecisions(const Trajectory &empty) {
    std::optional<CompileResult> known = memo_.find(CompileMemo::Kind::Sequence, keyOf(empty));
    if (known) {
      hit_ = true;
      saved_ = known->seconds;
    }
    return known;
  }

  void afterDecision(const Trajectory &trajectory) {
    if (hit_) return;
    const std::string key = keyOf(trajectory);
    if (std::optional<CompileResult> known = memo_.find(CompileMemo::Kind::Sequence, key)) {
      hit_ = true;
      saved_ = known->seconds;
      finishCompileWith(*known);
    }
  }

  void finish(const Trajectory &trajectory, const CompileResult &result) {
    memo_.noteSequenceCompile(hit_, saved_);
    if (!hit_ && result.ok()) memo_.store(CompileMemo::Kind::Sequence, keyOf(trajectory), result);
  }

 private:
  std::string keyOf(const Trajectory &trajectory) const {
    const auto &actions = trajectory.actions;
    const std::string_view bytes(reinterpret_cast<const char *>(actions.data()),
                                 actions.size() * sizeof(actions[0]));
    return moduleKey_ + "\nsequence " + std::to_string(actions.size()) + " " + CompileMemo::hash(bytes);
  }

  CompileMemo &memo_;
  std::string moduleKey_;
  bool hit_ = false;
  double saved_ = 0;
};

}  // namespace

std::vector<CollectedModule> collectTrajectories(const CompilerDriver &driver, const Corpus &corpus,
                                                 const Problem &problem, const PolicyModel &model,
                                                 const CollectionPlan &plan,
                                                 const CompilerDriver::Progress &progress) {
  const size_t count = plan.modules.size();
  std::vector<CollectedModule> collected(count);
  std::vector<std::unique_ptr<ActionSampler>> samplers(count);
  std::vector<std::unique_ptr<SequenceMemo>> sequenceMemos(count);
  CompileMemo *memo = driver.options().memo.get();
  std::vector<CompileRequest> requests;
  std::vector<size_t> requestOf(count, SIZE_MAX), defaultRequestOf(count, SIZE_MAX);
  for (size_t i = 0; i < count; ++i) {
    const CorpusModule &module = corpus.modules.at(plan.modules[i]);
    collected[i].module = plan.modules[i];
    samplers[i] = std::make_unique<ActionSampler>(model, actionSeed(plan.seed, plan.iteration, module.name),
                                                  collected[i].trajectory);
    // The module as the default compile would key it: bitcode, command
    // line, versions (the problem's hook is what the sequence adds).
    const std::string moduleKey = memo ? CompilerDriver::requestMemoKey({&module, "", {}}) : std::string();
    if (!moduleKey.empty()) {
      sequenceMemos[i] = std::make_unique<SequenceMemo>(*memo, problem.name() + "\n" + moduleKey);
      samplers[i]->onEachDecision(
          [sequence = sequenceMemos[i].get()](const Trajectory &trajectory) { sequence->afterDecision(trajectory); });
      if (std::optional<CompileResult> known = sequenceMemos[i]->knownWithoutDecisions(collected[i].trajectory)) {
        collected[i].result = std::move(*known);
        continue;
      }
    }
    requestOf[i] = requests.size();
    requests.push_back({&module, "", {problem.samplingHook(*samplers[i])}});
  }
  for (size_t i = 0; i < count; ++i)
    if (plan.needsDefault.at(i)) {
      defaultRequestOf[i] = requests.size();
      requests.push_back({&corpus.modules.at(plan.modules[i]), "", {}});
    }
  std::vector<CompileResult> results = driver.compileAll(requests, progress);
  for (size_t i = 0; i < count; ++i) {
    if (requestOf[i] != SIZE_MAX) collected[i].result = std::move(results[requestOf[i]]);
    if (sequenceMemos[i]) sequenceMemos[i]->finish(collected[i].trajectory, collected[i].result);
    if (!collected[i].result.ok()) collected[i].trajectory.clear();
    if (defaultRequestOf[i] != SIZE_MAX) collected[i].defaultResult = std::move(results[defaultRequestOf[i]]);
  }
  return collected;
}

}  // namespace mlgo
