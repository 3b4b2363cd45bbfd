#include "mlgo/autotune/harvest.h"

#include <chrono>
#include <mutex>

#include "mlgo/support/parallel_for.h"

namespace mlgo::autotune {

namespace {

HarvestedList harvestedListOf(const SearchSpace &space, const std::vector<int> &list, const SectionSizes &sizes,
                    uint64_t irInstructions, std::string gate) {
  HarvestedList out;
  for (int pass : list) out.passes.push_back(space.passes()[pass].element);
  out.pipeline = space.pipeline(list);
  out.sizes = sizes;
  out.irInstructions = irInstructions;
  out.gate = std::move(gate);
  return out;
}

PoolEntry entryOf(const ModuleTuning &tuning, const PoolKey &key, bool cxx, const HarvestOptions &options,
                  const SearchSpace &space, PassListGate *gate) {
  PoolEntry entry;
  entry.key = key;
  entry.module = tuning.name;
  entry.cxx = cxx;
  entry.budget = options.tuning.budget;
  entry.seed = options.tuning.search.seed;
  entry.strategy = strategyName(options.tuning.search.strategy);
  entry.compilations = tuning.compilations;
  if (!tuning.ok) {
    entry.failure = tuning.failure;
    return entry;
  }
  entry.oz = tuning.ozSizes;
  entry.ozIrInstructions = tuning.ozIrInstructions;
  if (tuning.best.empty()) return entry;
  // The gate's verdicts are cached: asking again costs nothing.
  const std::string verdict =
      !gate ? "unchecked" : gate->check(space.pipeline(tuning.best)).passed ? "passed" : "passed for C";
  entry.lists.push_back(harvestedListOf(space, tuning.best, tuning.bestSizes, tuning.bestIrInstructions, verdict));
  for (const TunedList &alternative : tuning.alternatives)
    entry.lists.push_back(
        harvestedListOf(space, alternative.list, alternative.sizes, alternative.irInstructions, alternative.gate));
  return entry;
}

}  // namespace

HarvestReport harvestCorpus(const Corpus &corpus, const CompilerDriver &driver, const SearchSpace &space,
                            const HarvestOptions &options, PassListGate *gate, PassPool &pool) {
  const auto start = std::chrono::steady_clock::now();
  HarvestReport report;
  report.modules = corpus.modules.size();
  std::vector<PoolKey> keys(corpus.modules.size());
  parallelFor(keys.size(), driver.options().threads,
              [&](size_t i) { keys[i] = poolKeyOf(corpus.modules[i], space); });
  std::vector<size_t> todo;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].module.empty()) ++report.unreadable;
    else if (pool.find(keys[i], options.tuning.budget)) ++report.known;
    else todo.push_back(i);
  }
  if (options.limit > 0 && todo.size() > options.limit) {
    report.remaining = todo.size() - options.limit;
    todo.resize(options.limit);
  }

  // Each module alone: its lists depend on nothing but itself, its seed and
  // its budget, whatever thread searches it and whatever was searched before.
  AutotuneOptions tuning = options.tuning;
  tuning.broadcastLists = 0;
  tuning.culpritChecks = 0;
  tuning.alternativesKept = options.listsKept > 0 ? options.listsKept - 1 : 0;
  tuning.progress = {};
  const std::vector<size_t> order = largestModulesFirst(corpus, todo);
  const size_t chunk = std::max<size_t>(options.chunk, 1);
  std::mutex poolMutex;
  size_t unsaved = 0;
  // A work queue, not rounds: a thread takes the next module as soon as its
  // own is searched and gated, so no core waits for the largest module of a
  // round. Finished modules are saved every `chunk`, and on the way out.
  const auto harvestOne = [&](size_t k) {
    const size_t index = todo[order[k]];
    const CorpusModule &module = corpus.modules[index];
    const Corpus one{corpus.directory, corpus.hasThinLTO, {module}};
    const AutotuneReport tuned = autotuneCorpus(one, driver, space, tuning, gate);
    const ModuleTuning &outcome = tuned.modules.front();
    PoolEntry entry = entryOf(outcome, keys[index], isCxxModule(module), options, space, gate);
    std::lock_guard<std::mutex> lock(poolMutex);
    pool.add(std::move(entry), poolFileOf(corpus, module));
    report.failed += !outcome.ok;
    report.compilations += tuned.compilations;
    ++report.harvested;
    if (++unsaved == chunk) {
      pool.save();
      unsaved = 0;
    }
    if (options.progress) options.progress(report.harvested, todo.size());
  };
  try {
    parallelFor(order.size(), driver.options().threads, harvestOne);
  } catch (...) {
    pool.save();  // what finished before the error is kept
    throw;
  }
  pool.save();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace mlgo::autotune
