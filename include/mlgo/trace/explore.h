#pragma once
// `mlgo explore`: per-module search over a problem's decisions around a
// baseline (the default heuristic, or a policy's greedy choices), whose best
// trajectories are what imitation learning learns from (ml-compiler-opt's
// generate_bc_trajectories). Per module, within a budget of compiles:
//   1. compile with the default heuristic (the reward baseline) and, for a
//      policy baseline, with the policy;
//   2. flip one decision at a time at the candidate decisions: the policy's
//      least certain ones (smallest |P(action 1) - 0.5|), or for the default
//      heuristic, which has no certainty, decisions spread evenly over the
//      compile; decisions after a flip are the baseline's own on the features
//      they then see, so "decision k" is positional, as in a replay;
//   3. add the improving flips greedily, best first, keeping each only while
//      the module keeps shrinking (flips interact: applying all at once often
//      grows the module).
// The output is a trace (mlgo/trace/trace_format.h) holding each module's
// best trajectory, its native size that trajectory's size, and baselines.json
// the default heuristic's sizes, so train-bc can weigh a module by what
// exploration gained on it. Problem-agnostic: it reaches the problem only
// through Problem::steeringHook.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "mlgo/corpus/corpus.h"
#include "mlgo/distributed/cluster.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/policy/policy_model.h"
#include "mlgo/trace/trace_format.h"

namespace mlgo {

class Problem;

struct ExploreSettings {
  /// Null: the default heuristic is the baseline.
  const PolicyModel *baseline = nullptr;
  size_t flips = 32;   ///< candidate decisions flipped one at a time
  size_t budget = 64;  ///< compiles per module, the baseline compiles included
};

/// One module's exploration. Sizes are `.text` bytes.
struct ExploredModule {
  CompileResult failure;  ///< the default compile when it failed (then nothing else is set)
  uint64_t defaultSize = 0, baselineSize = 0, bestSize = 0;
  size_t decisions = 0;  ///< of the baseline's compile
  size_t compiles = 0, flipsTried = 0, improvingFlips = 0;
  std::vector<size_t> keptFlips;  ///< decision numbers, ascending
  trace::ModuleTrace best;        ///< the smallest compile's decisions
  bool ok() const { return failure.ok(); }
};

/// Explores one module on the calling thread. Deterministic: the same
/// module, baseline and settings give the same result.
ExploredModule exploreModule(const CompilerDriver &driver, const CorpusModule &module, const Problem &problem,
                             const ExploreSettings &settings);

struct ExploreOptions {
  std::filesystem::path output;
  ExploreSettings settings;
  std::string baselineName = "default";  ///< recorded in the trace: "default" or the policy's directory
  size_t shards = 8;
  /// Keep the modules an interrupted run finished (its journal) instead of
  /// exploring them again; the settings must be the same.
  bool resume = false;
};

struct ExploreSummary {
  size_t modules = 0, explored = 0, improved = 0, resumed = 0;
  std::vector<std::pair<std::string, std::string>> failures;  ///< module, message
  uint64_t defaultSize = 0, baselineSize = 0, bestSize = 0;  ///< totals over explored modules
  size_t compiles = 0;
  double seconds = 0;
};

/// Explores every module of the corpus and writes the trace. With ranks,
/// each explores its share and rank 0 writes; the files never depend on
/// --threads or the number of ranks. Throws UsageError for bad settings or
/// a journal left by other settings.
ExploreSummary runExplore(const Corpus &corpus, const CompilerDriver &driver, const Problem &problem,
                          const ExploreOptions &options, const CompilerDriver::Progress &progress, Cluster &cluster);

}  // namespace mlgo
