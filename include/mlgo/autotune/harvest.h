#pragma once
// `mlgo harvest`: grows the pass-list pool (pass_pool.h) over a corpus.
// Every module the pool does not hold yet at the budget is searched as
// autotune searches it, alone (no broadcast between modules and a gate round
// of its own, so a module's lists never depend on which others were searched
// before or beside it), its best list and runners-up gated. Threads take
// modules from one queue, largest first; every `chunk` finished modules are
// saved to the pool, so a harvest stopped at any moment loses at most the
// modules in flight and the unsaved chunk, and the next one continues where
// it stopped.
#include <cstddef>
#include <functional>

#include "mlgo/autotune/autotuner.h"
#include "mlgo/autotune/pass_pool.h"

namespace mlgo::autotune {

struct HarvestOptions {
  /// Budget, strategy, seed, metric, gate fallbacks; broadcasting and
  /// culprit isolation are turned off, alternatives kept as `listsKept` says.
  AutotuneOptions tuning;
  size_t listsKept = 3;  ///< the best list and up to this many minus one runners-up
  size_t chunk = 8;      ///< modules finished between two saves
  size_t limit = 0;      ///< at most this many modules searched in this run (0: all)
  /// After each finished module: modules searched so far, modules to search.
  std::function<void(size_t done, size_t total)> progress;
};

struct HarvestReport {
  size_t modules = 0;     ///< in the corpus
  size_t known = 0;       ///< already in the pool at the budget: nothing compiled
  size_t harvested = 0;   ///< searched and saved by this run
  size_t failed = 0;      ///< of those, modules whose -Oz compile failed
  size_t unreadable = 0;  ///< modules whose bitcode could not be read (no key)
  size_t remaining = 0;   ///< left for a later run (--limit)
  size_t compilations = 0;
  double seconds = 0;
};

HarvestReport harvestCorpus(const Corpus &corpus, const CompilerDriver &driver, const SearchSpace &space,
                            const HarvestOptions &options, PassListGate *gate, PassPool &pool);

}  // namespace mlgo::autotune
