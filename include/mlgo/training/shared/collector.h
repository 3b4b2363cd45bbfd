#pragma once
// Collection for reinforcement learning: compiles a sample of corpus modules
// in-process with a stochastic policy and keeps what each compile decided.
// No LibTorch here: the policy runs as plain C++ (a SamplingPolicy).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/policy/trajectory.h"
#include "mlgo/problems/problem.h"

namespace mlgo {

class TrajectoryMemo;

/// `count` distinct module indices out of `corpusSize` (all when count >=
/// corpusSize), ascending. Depends only on the seed and the iteration.
std::vector<size_t> sampleModules(size_t corpusSize, size_t count, uint64_t seed, uint64_t iteration);

struct CollectedModule {
  size_t module = 0;        ///< index into the corpus
  CompileResult result;     ///< the compile with the stochastic policy
  Trajectory trajectory;    ///< empty when the compile failed
  /// The problem's measures of that compile (Problem::measures; none for a
  /// compile replayed from the trajectory memo: its problems measure nothing).
  std::map<std::string, double> measures;
  /// The same per reward segment (Problem::segmentMeasures).
  SegmentMeasures segmentMeasures;
  /// The default heuristic's compile, when it was asked for (a module
  /// without a known baseline), and its measures.
  std::optional<CompileResult> defaultResult;
  std::map<std::string, double> defaultMeasures;
  SegmentMeasures defaultSegmentMeasures;
};

struct CollectionPlan {
  std::vector<size_t> modules;          ///< corpus indices
  std::vector<bool> needsDefault;       ///< per entry of `modules`
  uint64_t seed = 0;
  uint64_t iteration = 0;
  /// Take the policy's argmax instead of sampling (evolution strategies).
  bool greedy = false;
  /// Trajectories compiled in earlier iterations, replayed instead of
  /// compiled where the samples repeat them (null: compile everything).
  /// Local to a process: never sent between ranks.
  TrajectoryMemo *trajectories = nullptr;
};

/// Compiles every planned module with actions sampled from `policy` (seeded by
/// actionSeed(seed, iteration, name)) and, where asked, with the default
/// heuristic; all on the driver's pool. Results in plan order. The trajectory
/// memo replays yes/no decisions only.
std::vector<CollectedModule> collectTrajectories(const CompilerDriver &driver, const Corpus &corpus,
                                                 const Problem &problem, const SamplingPolicy &policy,
                                                 const CollectionPlan &plan,
                                                 const CompilerDriver::Progress &progress = nullptr);

}  // namespace mlgo
