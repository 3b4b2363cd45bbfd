#pragma once
// `mlgo train-es`: evolution strategies over a policy's weights, the
// blackbox learner of ml-compiler-opt's es/ (after Salimans et al. 2017).
// Each iteration samples modules (the same for every candidate: common
// random numbers), draws `perturbations` Gaussian directions e_p, compiles the
// modules with the greedy policies theta + sigma e_p and theta - sigma e_p
// (antithetic pairs), scores each candidate by its mean reward against the
// default heuristic (1 - (measure + 0.01) / (default + 0.01): .text for
// inlining, LLVM's regalloc score for register allocation), shapes the
// scores (centered ranks in [-0.5, 0.5], or z-scores), and steps theta along
//     g = sum_p (s(theta + sigma e_p) - s(theta - sigma e_p)) e_p / (2 P sigma)
// with Adam (gradient ascent). No LibTorch: the policies are plain C++.
// Problem-agnostic: what the weights are and how a candidate is compiled and
// measured is the problem's ESObjective (mlgo/training/es_objective.h).
//
// Across the ranks of an MPI run, each rank compiles its share of every
// iteration's modules with every candidate; the result does not depend on
// the number of ranks (mlgo/training/distributed_es.h).
//
// Output directory (as train-ppo's):
//   config.json     the resolved config
//   metrics.jsonl   one JSON record per iteration
//   policy/         the current policy (theta), every iteration
//   checkpoints/iteration-N/   every checkpoint_every iterations
//   resume/state.json   what --resume needs: theta, Adam's moments, the
//                   default sizes, the iteration (replaced atomically)
#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/distributed/cluster.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/training/shared/config_schema.h"
#include "mlgo/training/es/es_settings.h"

namespace mlgo {

ConfigSchema esSchema();

/// The search distribution and its optimizer, independent of what the
/// fitness is (tests use toy functions). Deterministic: the directions of an
/// iteration depend only on the seed, the iteration and the pair.
class EvolutionStrategy {
 public:
  EvolutionStrategy(std::vector<float> start, ESSettings settings, uint64_t seed);

  /// Candidate 2p (theta + sigma e_p) or 2p+1 (theta - sigma e_p) of `iteration`.
  std::vector<float> candidate(int64_t iteration, size_t index) const;
  size_t candidates() const { return 2 * settings_.perturbations; }
  /// One step from the candidates' fitness (index order; higher is better).
  void step(int64_t iteration, const std::vector<double> &fitness);

  const std::vector<float> &weights() const { return theta_; }
  /// Steps taken: one per iteration.
  int64_t steps() const { return steps_; }
  /// Exact round trip of theta and the optimizer's state.
  nlohmann::json state() const;
  /// Throws std::invalid_argument for a state that does not fit the network,
  /// or holds a weight or moment that is not finite, a negative second
  /// moment, or no step.
  void restore(const nlohmann::json &state);

 private:
  std::vector<float> direction(int64_t iteration, size_t pair) const;
  std::vector<float> theta_;
  ESSettings settings_;
  uint64_t seed_;
  std::vector<double> firstMoment_, secondMoment_;
  int64_t steps_ = 0;
};

/// Shaped fitness: centered ranks (ties: the lower index ranks lower) or
/// z-scores (all 0 when every fitness is equal).
std::vector<double> shapeFitness(const std::vector<double> &fitness, FitnessShaping shaping);

/// A policy's weights and biases, layer by layer, as one vector, and back.
std::vector<float> flattenWeights(const YesNoPolicy &policy);
YesNoPolicy withWeights(const YesNoPolicy &policy, const std::vector<float> &weights);

struct ESOptions {
  std::filesystem::path corpus;
  std::filesystem::path warmstart;  ///< the starting policy (its network and vocab)
  /// A trace directory or baselines.json: the default heuristic's sizes.
  /// Modules missing there are compiled once with the default.
  std::filesystem::path baselines;
  std::filesystem::path output;
  nlohmann::json config;  ///< resolved with esSchema()
  uint64_t seed = 0;
  bool resume = false;
  DriverOptions driver;
  const Problem *problem = &defaultProblem();
  /// The ranks of an MPI run (null: this process alone). Rank 0 runs
  /// trainES, the others serveTrainES.
  Cluster *cluster = nullptr;
  /// Called with every iteration's metrics record (also in metrics.jsonl).
  std::function<void(const nlohmann::json &)> onMetrics;
};

struct ESSummary {
  int64_t firstIteration = 0, lastIteration = 0;
  nlohmann::json lastMetrics;
  double seconds = 0;
};

/// Throws UsageError (bad config, a resumed run with another config or
/// seed) and InputError (corpus, warm start, baselines, resume state).
ESSummary trainES(const ESOptions &options);

/// Ranks other than 0 of an MPI run: compile this rank's share of every
/// iteration's candidates until rank 0 is done (mlgo/training/distributed_es.h).
void serveTrainES(const ESOptions &options, Cluster &cluster);

}  // namespace mlgo
