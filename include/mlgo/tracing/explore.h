#pragma once
// `mlgo explore`: per-module search over a problem's decisions around a
// baseline (the default heuristic, a policy's greedy choices, or the default's
// ranked by a policy: mlgo/tracing/explore_baseline.h), whose best trajectories
// are what imitation learning learns from (ml-compiler-opt's
// generate_bc_trajectories). Per module, within a budget of compiles:
//   1. compile with the default heuristic (the reward baseline) and, for a
//      policy baseline, with the policy;
//   2. flip one decision at a time at the candidate decisions: the baseline's
//      least certain ones, or for the default heuristic alone, which has no
//      certainty, decisions spread evenly over the compile; decisions after a
//      flip are the baseline's own on the features they then see, so
//      "decision k" is positional, as in a replay;
//   3. add the improving flips greedily, best first, keeping each only while
//      the module keeps improving (flips interact: applying all at once often
//      makes it worse).
// What is minimized is the problem's own measure where it has one (register
// allocation: LLVM's regalloc score), else the object's .text size. Where the
// problem also measures parts of a compile (register allocation: each
// function's score, its decisions its own), each part is searched on its own
// within the same compiles: a compile flips one candidate in every function at
// once and each function keeps what lowered its own score, so the budget
// bounds compiles per module whatever the number of functions.
// The output is a trace (mlgo/trace/trace_format.h) holding each module's
// best trajectory, and baselines.json the default heuristic's sizes (and
// measure), so train-bc can weigh a module by what exploration gained on it.
// Problem-agnostic: it reaches the problem only through the Problem
// interface.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "mlgo/corpus/corpus.h"
#include "mlgo/distributed/cluster.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/trace/trace_format.h"

namespace mlgo {

class Problem;
class ExploreBaseline;

struct ExploreSettings {
  /// Null: the default heuristic alone (two-action problems).
  const ExploreBaseline *baseline = nullptr;
  size_t flips = 32;   ///< candidate decisions flipped one at a time, per module or per part the problem measures
  size_t budget = 64;  ///< compiles per module, the baseline compiles included
};

/// What explore minimizes for `problem`: its measure where it has exactly
/// one, else "text" (the object's .text bytes).
std::string exploreMetric(const Problem &problem);

/// What explore writes into its output (glob patterns of top-level names):
/// a trace, exploration.json and, while it runs, its journal.
std::vector<std::string> exploreDirectoryEntries();

/// One module's exploration. Values are of exploreMetric().
struct ExploredModule {
  CompileResult failure;  ///< the default compile when it failed (then nothing else is set)
  double defaultValue = 0, baselineValue = 0, bestValue = 0;
  uint64_t defaultText = 0;  ///< the default compile's .text bytes
  size_t decisions = 0;      ///< of the baseline's compile
  size_t segments = 0;       ///< parts searched on their own (1 where the problem measures none)
  size_t compiles = 0, flipsTried = 0, improvingFlips = 0;
  std::vector<size_t> keptFlips;  ///< decision numbers in `best`, ascending
  trace::ModuleTrace best;        ///< the best compile's decisions
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
  std::string metric;
  double defaultValue = 0, baselineValue = 0, bestValue = 0;  ///< totals over explored modules
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
