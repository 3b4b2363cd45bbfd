#pragma once
// Per-module pass-list search for code size, within a budget of compilations,
// then minimization to a fixed point as LLM Compiler did: drop passes that do
// not contribute, put commuting passes into one canonical order (bubble sort
// by the pass's index in the search space), and insertion search (before each
// pass, try each searchable pass; keep improvements). Compilations run on the
// calling thread through the shared driver or in a worker process, so crashes
// and hangs of a candidate are contained and count as a failed candidate.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mlgo/autotune/search_space.h"
#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_result.h"
#include "mlgo/driver/compiler_driver.h"

namespace mlgo::autotune {

enum class Strategy {
  Random,  ///< LLM Compiler's baseline: lengths uniform in 1..50, passes uniform
  Local,   ///< mlgo's: -Oz and known good variants first, then local edits of the best
  /// Local's start, then half of the search budget on random lists (far
  /// from -Oz, where local edits do not reach), then local edits of the best.
  Hybrid,
  /// A learned predictor's ranking of its coreset (pass_predictor.h): the
  /// budget's first-ranked lists, nothing else, no minimization (the lists
  /// passed the gate as they are).
  Predicted,
};
std::optional<Strategy> parseStrategy(const std::string &name);
const char *strategyName(Strategy strategy);

/// Runs one candidate compile: `pipeline` is an opt pipeline, "" the
/// module's recorded -Oz. In-process (CompilerDriver::compile) or in a worker
/// process (IsolatedCompiler).
using CandidateCompile = std::function<CompileResult(const CorpusModule &module, const std::string &pipeline)>;

/// Compiles a module under pass lists, with a cache (repeats are free) and a
/// budget of real compilations.
class ModuleEvaluator {
 public:
  ModuleEvaluator(const CorpusModule &module, CandidateCompile compile, const SearchSpace &space, SizeMetric metric,
                  size_t budget);
  /// In-process, on the calling thread.
  ModuleEvaluator(const CorpusModule &module, const CompilerDriver &driver, const SearchSpace &space,
                  SizeMetric metric, size_t budget);

  /// The size under `list` (empty list: the recorded -Oz compile), or nullopt
  /// when the compile failed or the budget is spent.
  std::optional<uint64_t> size(const std::vector<int> &list);
  /// All sections of the last successful compile of `list` (after size()).
  const SectionSizes *sections(const std::vector<int> &list) const;
  /// The IR instruction count after the optimization pipeline of the last
  /// successful compile of `list`; 0 when it was not compiled or failed.
  uint64_t irInstructions(const std::vector<int> &list) const;
  /// Up to `count` compiled lists other than `except` that are smaller than
  /// -Oz, smallest first (ties: shorter, then pipeline text): what a module
  /// falls back to when the correctness gate rejects its best list.
  std::vector<std::vector<int>> runnersUp(const std::vector<int> &except, size_t count) const;

  size_t used() const { return used_; }
  size_t failed() const { return failed_; }
  size_t budget() const { return budget_; }
  /// Changes the cap (phases share one module's budget).
  void setBudget(size_t budget) { budget_ = budget; }
  bool exhausted() const { return used_ >= budget_; }
  const CorpusModule &module() const { return module_; }

 private:
  const CorpusModule &module_;
  CandidateCompile compile_;
  const SearchSpace &space_;
  SizeMetric metric_;
  size_t budget_, used_ = 0, failed_ = 0;
  struct Compiled {
    std::vector<int> list;
    std::optional<SectionSizes> sizes;  ///< nullopt: the compile failed
    uint64_t irInstructions = 0;
  };
  std::map<std::string, Compiled> cache_;  ///< by pipeline text ("" = -Oz)
};

class PassPredictor;

struct SearchOptions {
  Strategy strategy = Strategy::Hybrid;
  /// Strategy::Predicted: the predictor, and its coreset's lists as indices
  /// into the search space (predictedLists(), same order).
  const PassPredictor *predictor = nullptr;
  std::vector<std::vector<int>> predictorLists;
  /// Compilations kept back from the search for minimization.
  double minimizationShare = 0.3;
  uint64_t seed = 0;
};

/// The best list found for one module so far and its size.
struct SearchOutcome {
  std::vector<int> best;  ///< empty: the recorded -Oz pipeline
  uint64_t bestSize = 0;
};

/// Searches, then minimizes. `evaluator` must already know the -Oz size
/// (size({}) succeeded). Deterministic for a given module, seed and budget.
SearchOutcome searchModule(ModuleEvaluator &evaluator, const SearchSpace &space, const SearchOptions &options,
                           const std::string &moduleName);

/// Minimization alone (exposed for tests): drop, canonical order, insertion,
/// repeated until nothing changes or the budget is spent.
SearchOutcome minimize(ModuleEvaluator &evaluator, const SearchSpace &space, SearchOutcome start, uint64_t seed);

}  // namespace mlgo::autotune
