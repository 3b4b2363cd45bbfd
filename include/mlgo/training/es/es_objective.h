#pragma once
// What `mlgo train-es` optimizes, for one kind of policy: the weights it
// perturbs, how a weight vector's fitness is measured by compiling modules,
// and the default heuristic's per-module measure the fitness is relative to.
// The evolution strategy itself (es_trainer.cpp) is the same for every
// problem:
// - yes/no decisions (inlining): a YesNoPolicy, the module's
//   .text size, compiles replayed from the trajectory memo where they repeat;
// - decisions among positions (register-allocation eviction): a
//   PositionPolicy, the problem's own measure (LLVM's regalloc score),
//   modules whose default measure is 0 left out of the samples (nothing to
//   improve there);
// - continuous decisions (register-allocation priority): a ContinuousPolicy,
//   measured the same way.
// All reward a module as ml-compiler-opt does, 1 - (policy + 0.01) /
// (default + 0.01), and a failed compile as -1.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/training/shared/reward.h"

namespace mlgo {

class Problem;
class TrajectoryMemo;

/// One module compiled with one candidate: what ranks send back to rank 0.
struct ModuleMeasure {
  bool ok = false;        ///< the compile succeeded
  bool replayed = false;  ///< taken from the trajectory memo, not compiled
  double value = 0;       ///< the measure (when ok)
};

/// One compile of an iteration: candidate `candidate` on corpus module `module`.
struct CandidateCompile {
  size_t candidate = 0;
  size_t module = 0;
};

/// measures[c][i]: candidate c compiled on modules[i].
using CandidateMeasures = std::vector<std::vector<ModuleMeasure>>;

struct ESFitness {
  double meanReward = 0;
  double policyMeasure = 0, defaultMeasure = 0;  ///< summed over the modules that compiled
  size_t compiles = 0, replayed = 0, failed = 0;
};

class ESObjective {
 public:
  virtual ~ESObjective() = default;
  /// The warm start's weights, flattened layer by layer.
  virtual std::vector<float> startWeights() const = 0;
  /// Saves the policy with `weights` as the problem's policy directory.
  virtual void savePolicy(const std::vector<float> &weights, const nlohmann::json &training,
                          const std::filesystem::path &directory) const = 0;
  /// The measure rewards compare ("text", "regalloc_score").
  virtual std::string measureName() const = 0;
  /// Compiles each of `compiles` with the greedy policy of its candidate's
  /// weights and measures it (any rank: needs no default measures). Results
  /// in the order given; `compiles` come candidate by candidate.
  virtual std::vector<ModuleMeasure> measure(const std::vector<std::vector<float>> &candidates,
                                             const std::vector<CandidateCompile> &compiles, int64_t iteration) = 0;
  /// Whether a compile may replay an earlier candidate's compile of the same
  /// module (then all compiles of a module belong to one process, in
  /// candidate order).
  virtual bool replaysAcrossCandidates() const { return false; }
  /// The fitness of `measures` of `modules` against the default's measures,
  /// summed in module order (rank 0).
  ESFitness fitness(const std::vector<size_t> &modules, const std::vector<ModuleMeasure> &measures) const;

  /// Reads the default's measures a trace recorded (`given`: a trace
  /// directory or its baselines.json; empty: none).
  virtual void readBaselines(const std::filesystem::path &given) = 0;
  /// Compiles `modules` whose default measure is unknown with the default.
  void learnMissingDefaults(const std::vector<size_t> &modules);
  /// Indices of the modules worth sampling, ascending.
  virtual std::vector<size_t> sampleable() const;

  /// The default measures, for the resume state, and back.
  nlohmann::json defaultsToJson() const;
  void restoreDefaults(const nlohmann::json &saved);

 protected:
  ESObjective(const Corpus &corpus, const CompilerDriver &driver, const Problem &problem)
      : corpus_(corpus), driver_(driver), problem_(problem) {}
  /// The default's measure of a compile the driver ran with `hook` (null: no hook).
  virtual double defaultMeasure(const CompileResult &result, const PipelineHook *hook) const = 0;
  virtual std::shared_ptr<PipelineHook> measuringHook() const = 0;

  const Corpus &corpus_;
  const CompilerDriver &driver_;
  const Problem &problem_;
  RewardBaselines defaults_;
};

/// The three kinds (es_yes_no_objective.cpp, es_measured_objective.cpp).
std::unique_ptr<ESObjective> makeYesNoESObjective(const Problem &problem, const std::filesystem::path &warmstart,
                                                  const Corpus &corpus, const CompilerDriver &driver, uint64_t seed,
                                                  TrajectoryMemo *trajectories);
/// (Their compiles measure whole modules: nothing to replay, no seed needed.)
std::unique_ptr<ESObjective> makePositionESObjective(const Problem &problem, const std::filesystem::path &warmstart,
                                                     const Corpus &corpus, const CompilerDriver &driver, uint64_t seed,
                                                     TrajectoryMemo *trajectories);
std::unique_ptr<ESObjective> makeContinuousESObjective(const Problem &problem, const std::filesystem::path &warmstart,
                                                       const Corpus &corpus, const CompilerDriver &driver,
                                                       uint64_t seed, TrajectoryMemo *trajectories);
/// The objective for `problem`'s decisions, warm-started from the policy in
/// `warmstart`. `trajectories` (may be null) replays yes/no policies' compiles.
std::unique_ptr<ESObjective> makeESObjective(const Problem &problem, const std::filesystem::path &warmstart,
                                             const Corpus &corpus, const CompilerDriver &driver, uint64_t seed,
                                             TrajectoryMemo *trajectories);

}  // namespace mlgo
