#include "mlgo/autotune/pass_list_search.h"

#include <algorithm>
#include <random>
#include <tuple>

#include <spdlog/spdlog.h>

#include "mlgo/autotune/module_features.h"
#include "mlgo/autotune/pass_predictor.h"
#include "mlgo/support/crc32c.h"
#include "mlgo/support/errors.h"

namespace mlgo::autotune {

namespace {

constexpr size_t kMaxListLength = 50;

/// Lists LLM Compiler's data and our own runs found good for size, tried
/// first by the local strategy (those whose passes the search space has).
const std::vector<std::vector<std::string>> &knownGoodLists() {
  static const std::vector<std::vector<std::string>> lists{
      {"default<Oz>", "mergefunc"},
      {"default<Oz>", "default<Oz>"},
      {"default<Oz>", "mergefunc", "default<Oz>"},
      {"default<Os>"},
      {"default<Oz>", "gvn-hoist", "default<Oz>"},
      {"mergefunc", "default<Oz>"},
  };
  return lists;
}

bool better(uint64_t size, size_t length, const SearchOutcome &best) {
  return size < best.bestSize || (size == best.bestSize && length < best.best.size());
}

class Search {
 public:
  Search(ModuleEvaluator &evaluator, const SearchSpace &space, uint64_t seed)
      : evaluator_(evaluator), space_(space), random_(seed) {}

  /// Evaluates `list` and keeps it when it beats the best.
  void consider(const std::vector<int> &list, SearchOutcome &best) {
    if (list.empty() || list.size() > kMaxListLength) return;
    const std::optional<uint64_t> size = evaluator_.size(list);
    if (size && better(*size, list.size(), best)) best = {list, *size};
  }

  int randomPass() { return std::uniform_int_distribution<int>(0, int(space_.passes().size()) - 1)(random_); }
  size_t randomIndex(size_t count) { return std::uniform_int_distribution<size_t>(0, count - 1)(random_); }

  std::vector<int> randomList() {
    std::vector<int> list(std::uniform_int_distribution<size_t>(1, kMaxListLength)(random_));
    for (int &pass : list) pass = randomPass();
    return list;
  }

  /// One local edit: insert, delete, replace, or swap two neighbours.
  std::vector<int> edit(std::vector<int> list) {
    const size_t kind = randomIndex(list.size() > 1 ? 4 : 2);
    if (kind == 0) {
      list.insert(list.begin() + randomIndex(list.size() + 1), randomPass());
    } else if (kind == 1) {
      list[randomIndex(list.size())] = randomPass();
    } else if (kind == 2) {
      list.erase(list.begin() + randomIndex(list.size()));
    } else {
      const size_t at = randomIndex(list.size() - 1);
      std::swap(list[at], list[at + 1]);
    }
    return list;
  }

  std::mt19937_64 &random() { return random_; }

 private:
  ModuleEvaluator &evaluator_;
  const SearchSpace &space_;
  std::mt19937_64 random_;
};

uint64_t moduleSeed(uint64_t seed, const std::string &name) {
  return seed * 0x9E3779B97F4A7C15ull ^ crc32c(name.data(), name.size(), 0x6d6c676f);
}

}  // namespace

std::optional<Strategy> parseStrategy(const std::string &name) {
  if (name == "random") return Strategy::Random;
  if (name == "local") return Strategy::Local;
  if (name == "hybrid") return Strategy::Hybrid;
  if (name == "predicted") return Strategy::Predicted;
  return std::nullopt;
}

const char *strategyName(Strategy strategy) {
  switch (strategy) {
    case Strategy::Random:
      return "random";
    case Strategy::Local:
      return "local";
    case Strategy::Hybrid:
      return "hybrid";
    case Strategy::Predicted:
      return "predicted";
  }
  return "local";
}

ModuleEvaluator::ModuleEvaluator(const CorpusModule &module, CandidateCompile compile, const SearchSpace &space,
                                 SizeMetric metric, size_t budget)
    : module_(module), compile_(std::move(compile)), space_(space), metric_(metric), budget_(budget) {}

ModuleEvaluator::ModuleEvaluator(const CorpusModule &module, const CompilerDriver &driver, const SearchSpace &space,
                                 SizeMetric metric, size_t budget)
    : ModuleEvaluator(
          module,
          [&driver](const CorpusModule &m, const std::string &pipeline) { return driver.compile({&m, pipeline, {}}); },
          space, metric, budget) {}

std::optional<uint64_t> ModuleEvaluator::size(const std::vector<int> &list) {
  // An empty list stands for the recorded pipeline (the -Oz reference).
  const std::string pipeline = list.empty() ? "" : space_.pipeline(list);
  auto cached = cache_.find(pipeline);
  if (cached == cache_.end()) {
    if (exhausted()) return std::nullopt;
    ++used_;
    const CompileResult result = compile_(module_, pipeline);
    if (!result.ok()) {
      ++failed_;  // a candidate like any other: counted, and its message for --log-level debug
      spdlog::debug("{}: a candidate list failed ({}): {}", module_.name, failureKindName(result.failure),
                    result.message);
    }
    cached =
        cache_
            .emplace(pipeline, Compiled{list, result.ok() ? std::optional<SectionSizes>(result.sizes) : std::nullopt,
                                        result.irInstructions})
            .first;
  }
  if (!cached->second.sizes) return std::nullopt;
  return measure(*cached->second.sizes, metric_);
}

const SectionSizes *ModuleEvaluator::sections(const std::vector<int> &list) const {
  auto found = cache_.find(list.empty() ? "" : space_.pipeline(list));
  return found != cache_.end() && found->second.sizes ? &*found->second.sizes : nullptr;
}

uint64_t ModuleEvaluator::irInstructions(const std::vector<int> &list) const {
  auto found = cache_.find(list.empty() ? "" : space_.pipeline(list));
  return found != cache_.end() && found->second.sizes ? found->second.irInstructions : 0;
}

std::vector<std::vector<int>> ModuleEvaluator::runnersUp(const std::vector<int> &except, size_t count) const {
  const SectionSizes *oz = sections({});
  if (!oz) return {};
  const std::string skipped = except.empty() ? "" : space_.pipeline(except);
  // (size, length, pipeline): the map's order makes ties deterministic.
  std::vector<std::tuple<uint64_t, size_t, const std::string *, const std::vector<int> *>> ranked;
  for (const auto &[pipeline, compiled] : cache_)
    if (!pipeline.empty() && pipeline != skipped && compiled.sizes &&
        measure(*compiled.sizes, metric_) < measure(*oz, metric_))
      ranked.emplace_back(measure(*compiled.sizes, metric_), compiled.list.size(), &pipeline, &compiled.list);
  std::sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
    if (std::get<1>(a) != std::get<1>(b)) return std::get<1>(a) < std::get<1>(b);
    return *std::get<2>(a) < *std::get<2>(b);
  });
  std::vector<std::vector<int>> lists;
  for (size_t i = 0; i < ranked.size() && i < count; ++i) lists.push_back(*std::get<3>(ranked[i]));
  return lists;
}

namespace {

SearchOutcome tryPredictedLists(ModuleEvaluator &evaluator, const SearchOptions &options) {
  SearchOutcome best{{}, UINT64_MAX};
  if (!options.predictor) throw UsageError("the predicted strategy needs a predictor");
  std::vector<size_t> ranking;
  try {
    ranking = options.predictor->rank(moduleFeatures(evaluator.module()), isCxxModule(evaluator.module()));
  } catch (const InputError &) {
    return best;  // unreadable bitcode: its -Oz compile failed already
  }
  for (size_t k : ranking) {
    if (evaluator.exhausted()) break;
    const std::optional<uint64_t> size = evaluator.size(options.predictorLists[k]);
    if (size && better(*size, options.predictorLists[k].size(), best)) best = {options.predictorLists[k], *size};
  }
  return best;
}

}  // namespace

SearchOutcome searchModule(ModuleEvaluator &evaluator, const SearchSpace &space, const SearchOptions &options,
                           const std::string &moduleName) {
  if (options.strategy == Strategy::Predicted) return tryPredictedLists(evaluator, options);
  Search search(evaluator, space, moduleSeed(options.seed, moduleName));
  // The starting point: default<Oz> as a pass list (the recorded -Oz compile
  // is the backup the caller keeps anyway).
  SearchOutcome best{{}, UINT64_MAX};
  const int oz = space.find("default<Oz>");
  if (oz >= 0) search.consider({oz}, best);
  const size_t searchBudget =
      evaluator.budget() - std::min(evaluator.budget(), size_t(options.minimizationShare * double(evaluator.budget())));
  // Repeats are free (cached), so bound the attempts as well as the budget.
  size_t attempts = 0;
  const size_t maxAttempts = 20 * evaluator.budget() + 100;
  if (options.strategy == Strategy::Random) {
    while (evaluator.used() < searchBudget && ++attempts < maxAttempts) search.consider(search.randomList(), best);
  } else {
    for (const std::vector<std::string> &names : knownGoodLists()) {
      std::vector<int> list;
      for (const std::string &name : names)
        if (space.find(name) >= 0) list.push_back(space.find(name));
      if (list.size() == names.size() && evaluator.used() < searchBudget) search.consider(list, best);
    }
    if (options.strategy == Strategy::Hybrid) {
      const size_t randomUntil = evaluator.used() + (searchBudget - std::min(searchBudget, evaluator.used())) / 2;
      while (evaluator.used() < randomUntil && ++attempts < maxAttempts) search.consider(search.randomList(), best);
    }
    while (evaluator.used() < searchBudget && ++attempts < maxAttempts) {
      // Mostly edits of the best, sometimes two in a row to leave a plateau.
      std::vector<int> candidate = search.edit(best.best.empty() ? std::vector<int>{oz >= 0 ? oz : 0} : best.best);
      if (search.randomIndex(4) == 0) candidate = search.edit(candidate);
      search.consider(candidate, best);
    }
  }
  if (best.best.empty()) return best;
  return minimize(evaluator, space, best, moduleSeed(options.seed + 1, moduleName));
}

SearchOutcome minimize(ModuleEvaluator &evaluator, const SearchSpace &space, SearchOutcome best, uint64_t seed) {
  std::mt19937_64 random(seed);
  auto sizeOf = [&](const std::vector<int> &list) -> std::optional<uint64_t> {
    if (list.empty() || list.size() > kMaxListLength) return std::nullopt;
    return evaluator.size(list);
  };
  bool changed = true;
  while (changed && !evaluator.exhausted()) {
    changed = false;
    // 1. Drop every pass whose removal does not make the module bigger.
    for (size_t i = 0; i < best.best.size();) {
      std::vector<int> candidate = best.best;
      candidate.erase(candidate.begin() + i);
      const std::optional<uint64_t> size = sizeOf(candidate);
      if (size && *size <= best.bestSize) {
        best = {candidate, *size};
        changed = true;
      } else {
        ++i;
      }
    }
    // 2. Canonical order: neighbours that commute (same size swapped) are
    //    sorted by their index in the search space, so equal lists look equal.
    for (bool swapped = true; swapped;) {
      swapped = false;
      for (size_t i = 0; i + 1 < best.best.size(); ++i) {
        if (best.best[i] <= best.best[i + 1]) continue;
        std::vector<int> candidate = best.best;
        std::swap(candidate[i], candidate[i + 1]);
        const std::optional<uint64_t> size = sizeOf(candidate);
        if (size && *size <= best.bestSize) {
          changed = changed || *size < best.bestSize;
          best = {candidate, *size};
          swapped = true;
        }
      }
    }
    // 3. Insertion: before each pass (and at the end), each searchable pass
    //    in a seeded order; the first improvement restarts the round.
    std::vector<int> order(space.passes().size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = int(i);
    std::shuffle(order.begin(), order.end(), random);
    for (size_t at = 0; at <= best.best.size() && !changed && !evaluator.exhausted(); ++at) {
      for (int pass : order) {
        std::vector<int> candidate = best.best;
        candidate.insert(candidate.begin() + at, pass);
        const std::optional<uint64_t> size = sizeOf(candidate);
        if (size && *size < best.bestSize) {
          best = {candidate, *size};
          changed = true;
          break;
        }
        if (evaluator.exhausted()) break;
      }
    }
  }
  return best;
}

}  // namespace mlgo::autotune
