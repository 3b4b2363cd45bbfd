#include "mlgo/launcher/unit_exploration.h"

#include <algorithm>

#include "mlgo/autotune/pass_list_search.h"

namespace mlgo::launcher {

namespace {

/// Thrown by a compile asked for more new lists than this build tries: the
/// replayed search stops there, and the next build replays it up to here.
struct ExplorationPaused {};

/// autotune's share of its budget kept for the broadcast phase
/// (autotuner.cpp): the replayed search stops where autotune's does.
size_t broadcastReserve(size_t budget) { return std::min<size_t>(10, budget / 10); }

}  // namespace

store::StoredTrial trialOf(const std::string &pipeline, const CompileResult &result, uint64_t work) {
  if (!result.ok()) return {pipeline, false, {}, 0, 0, std::nullopt};
  return {pipeline, true, result.sizes, result.irInstructions, work, std::nullopt};
}

CompileResult resultOf(const store::StoredTrial &trial) {
  CompileResult result;
  if (!trial.compiled) {
    result.failure = FailureKind::CompileError;
    result.message = "failed when the store recorded it";
    return result;
  }
  result.sizes = trial.sizes;
  result.irInstructions = trial.irInstructions;
  return result;
}

std::vector<store::StoredTrial> exploreUnit(const CorpusModule &module,
                                             const std::map<std::string, store::StoredTrial> &known,
                                             const autotune::SearchSpace &space, const ExplorationSettings &settings,
                                             const PipelineCompile &compile) {
  std::map<std::string, store::StoredTrial> seen = known;
  std::vector<store::StoredTrial> fresh;
  auto answer = [&](const std::string &pipeline) {
    if (auto found = seen.find(pipeline); found != seen.end()) return resultOf(found->second);
    if (fresh.size() >= settings.newCompiles) throw ExplorationPaused{};
    fresh.push_back(compile(pipeline));
    seen.emplace(pipeline, fresh.back());
    return resultOf(fresh.back());
  };
  try {
    if (!answer("").ok()) return fresh;
    for (const std::string &pipeline : settings.ranked) answer(pipeline);
    autotune::ModuleEvaluator evaluator(
        module, [&](const CorpusModule &, const std::string &pipeline) { return answer(pipeline); }, space,
        SizeMetric::TextPlusData, settings.budget);
    evaluator.size({});
    evaluator.setBudget(settings.budget - broadcastReserve(settings.budget));
    autotune::SearchOptions search;
    search.strategy = autotune::Strategy::Hybrid;
    search.seed = settings.seed;
    autotune::searchModule(evaluator, space, search, module.name);
  } catch (const ExplorationPaused &) {
  }
  return fresh;
}

}  // namespace mlgo::launcher
