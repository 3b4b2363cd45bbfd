#include "mlgo/training/es/es_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <numeric>
#include <optional>

#include "mlgo/driver/compile_session.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/portable_math.h"
#include "mlgo/support/text_input.h"
#include "mlgo/support/sampling.h"
#include "mlgo/training/shared/collector.h"
#include "mlgo/training/es/distributed_es.h"
#include "mlgo/training/es/es_checkpoint.h"
#include "mlgo/training/es/es_evaluation.h"
#include "mlgo/training/es/es_metrics.h"
#include "mlgo/training/es/es_objective.h"
#include "mlgo/metrics/metrics_keys.h"
#include "mlgo/training/shared/reward.h"
#include "mlgo/training/shared/trajectory_memo.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

ConfigSchema esSchema() { return esSettingsSchema().keys(); }

std::vector<double> shapeFitness(const std::vector<double> &fitness, FitnessShaping shaping) {
  const size_t n = fitness.size();
  std::vector<double> shaped(n, 0.0);
  if (n < 2) return shaped;
  if (shaping == FitnessShaping::CenteredRanks) {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return fitness[a] < fitness[b]; });
    for (size_t rank = 0; rank < n; ++rank) shaped[order[rank]] = double(rank) / double(n - 1) - 0.5;
    return shaped;
  }
  const double mean = std::accumulate(fitness.begin(), fitness.end(), 0.0) / double(n);
  double variance = 0;
  for (double f : fitness) variance += (f - mean) * (f - mean) / double(n);
  if (variance <= 0) return shaped;
  for (size_t i = 0; i < n; ++i) shaped[i] = (fitness[i] - mean) / std::sqrt(variance);
  return shaped;
}

std::vector<float> flattenWeights(const YesNoPolicy &policy) { return policy.network().flatWeights(); }

YesNoPolicy withWeights(const YesNoPolicy &policy, const std::vector<float> &weights) {
  const DenseNetwork network = policy.network().withFlatWeights(weights);
  YesNoPolicy changed(policy.problem(), policy.preprocessor(), network.layers(), policy.activation());
  changed.training = policy.training;
  return changed;
}

EvolutionStrategy::EvolutionStrategy(std::vector<float> start, ESSettings settings, uint64_t seed)
    : theta_(std::move(start)), settings_(settings), seed_(seed), firstMoment_(theta_.size(), 0.0),
      secondMoment_(theta_.size(), 0.0) {}

constexpr double kPi = 3.14159265358979323846;

std::vector<float> EvolutionStrategy::direction(int64_t iteration, size_t pair) const {
  // Standard normals by Box-Muller from a SplitMix64 stream keyed by the
  // seed, the iteration and the pair: regenerated for the step, never stored.
  uint64_t state = mixBits(seed_ ^ 0x6576'6f6c'7574'696full) ^ mixBits(uint64_t(iteration)) ^ mixBits(pair + 1);
  auto uniform = [&] { return (double(mixBits(state++) >> 11) + 1.0) * 0x1.0p-53; };  // (0, 1]
  std::vector<float> direction(theta_.size());
  for (float &value : direction) {
    const double radius = std::sqrt(-2.0 * portable::log(uniform()));
    value = float(radius * portable::cos(2.0 * kPi * uniform()));
  }
  return direction;
}

std::vector<float> EvolutionStrategy::candidate(int64_t iteration, size_t index) const {
  const std::vector<float> e = direction(iteration, index / 2);
  const double sign = index % 2 == 0 ? 1.0 : -1.0;
  std::vector<float> weights(theta_.size());
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = float(theta_[i] + sign * settings_.sigma * e[i]);
  return weights;
}

void EvolutionStrategy::step(int64_t iteration, const std::vector<double> &fitness) {
  if (fitness.size() != candidates()) throw std::invalid_argument("EvolutionStrategy::step: one fitness per candidate");
  const std::vector<double> shaped = shapeFitness(fitness, settings_.shaping);
  std::vector<double> gradient(theta_.size(), 0.0);
  const double scale = 1.0 / (2.0 * double(settings_.perturbations) * settings_.sigma);
  for (size_t pair = 0; pair < settings_.perturbations; ++pair) {
    const double weight = (shaped[2 * pair] - shaped[2 * pair + 1]) * scale;
    if (weight == 0) continue;
    const std::vector<float> e = direction(iteration, pair);
    for (size_t i = 0; i < gradient.size(); ++i) gradient[i] += weight * e[i];
  }
  ++steps_;
  const double correction1 = 1 - portable::power(settings_.adamBeta1, steps_);
  const double correction2 = 1 - portable::power(settings_.adamBeta2, steps_);
  for (size_t i = 0; i < theta_.size(); ++i) {
    firstMoment_[i] = settings_.adamBeta1 * firstMoment_[i] + (1 - settings_.adamBeta1) * gradient[i];
    secondMoment_[i] = settings_.adamBeta2 * secondMoment_[i] + (1 - settings_.adamBeta2) * gradient[i] * gradient[i];
    const double ascent = (firstMoment_[i] / correction1) /
                          (std::sqrt(secondMoment_[i] / correction2) + settings_.adamEpsilon);
    theta_[i] = float(theta_[i] + settings_.learningRate * ascent);
  }
}

json EvolutionStrategy::state() const {
  // nlohmann writes doubles with 17 significant digits: exact round trips.
  return {{"theta", theta_}, {"first_moment", firstMoment_}, {"second_moment", secondMoment_}, {"steps", steps_}};
}

void EvolutionStrategy::restore(const json &state) {
  std::vector<float> theta = state.at("theta").get<std::vector<float>>();
  if (theta.size() != theta_.size()) throw std::invalid_argument("the saved weights do not fit the network");
  theta_ = std::move(theta);
  firstMoment_ = state.at("first_moment").get<std::vector<double>>();
  secondMoment_ = state.at("second_moment").get<std::vector<double>>();
  steps_ = state.at("steps").get<int64_t>();
  if (firstMoment_.size() != theta_.size() || secondMoment_.size() != theta_.size())
    throw std::invalid_argument("the saved optimizer state does not fit the network");
  // A damaged state must not train on: an infinite weight or a negative
  // second moment gives a policy of NaNs.
  for (size_t i = 0; i < theta_.size(); ++i)
    if (!std::isfinite(theta_[i]) || !std::isfinite(firstMoment_[i]) || !std::isfinite(secondMoment_[i]) ||
        secondMoment_[i] < 0)
      throw std::invalid_argument("weight " + std::to_string(i) +
                                  ": not a finite weight with finite moments and a second moment >= 0");
  if (steps_ < 1) throw std::invalid_argument("steps: a saved state has taken at least one step");
}

namespace {

/// An ES run: set up from the options (fresh or resumed), then per iteration
/// the candidates evaluated (es_evaluation), one step of the strategy, and
/// the policy, metrics (es_metrics) and resume state (es_checkpoint) written.
class ESRun {
 public:
  explicit ESRun(const ESOptions &options)
      : options_(options),
        problem_(*options.problem),
        session_(options.corpus, options.driver),
        corpus_(session_.corpus()),
        driver_(session_.driver()),
        settings_(readESSettings(options.config)),
        checkpoint_(options, settings_) {
    if (options.driver.memo) trajectories_.emplace(options.driver.memo->options().maxBytes);
    objective_ = makeESObjective(problem_, options.warmstart, corpus_, driver_, options.seed,
                                 trajectories_ ? &*trajectories_ : nullptr);
    strategy_.emplace(objective_->startWeights(), settings_, options.seed);
  }

  ESSummary run() {
    const auto start = std::chrono::steady_clock::now();
    const int64_t first = prepareOutput();
    sampleable_ = objective_->sampleable();
    if (sampleable_.empty())
      throw InputError(describeInputProblem(
          options_.corpus.string(), "",
          "no module the default heuristic leaves room to improve (every " + objective_->measureName() + " is 0)"));
    ESSummary summary;
    summary.firstIteration = first;
    summary.lastIteration = first - 1;
    for (int64_t iteration = first; iteration <= settings_.iterations; ++iteration) {
      const ESScores scores = evaluateCandidates(iteration, *strategy_, *objective_, sampleable_,
                                                 settings_.modulesPerIteration, options_.seed, options_.cluster);
      strategy_->step(iteration, scores.fitness);
      checkpoint_.writePolicy(iteration, *strategy_, *objective_);
      json metrics = esIterationMetrics(iteration, scores, objective_->measureName(), secondsSince(start),
                                        options_.driver.memo.get(), trajectories_ ? &*trajectories_ : nullptr,
                                        distributed() ? options_.cluster : nullptr);
      log_->write(metrics);
      checkpoint_.save(iteration, *strategy_, *objective_);
      if (options_.onMetrics) options_.onMetrics(metrics);
      summary.lastIteration = iteration;
      summary.lastMetrics = std::move(metrics);
    }
    if (distributed()) endCandidateMeasures(*options_.cluster);
    summary.seconds = secondsSince(start);
    return summary;
  }

 private:
  static double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  bool distributed() const { return options_.cluster && options_.cluster->distributed(); }

  /// Restores a resumed run, or reads a fresh run's baselines; opens the
  /// metrics. Returns the first iteration to run.
  int64_t prepareOutput() {
    fs::create_directories(options_.output);
    if (checkpoint_.resumes()) {
      const int64_t done = checkpoint_.restore(*strategy_, *objective_);
      log_.emplace(options_.output, options_.config, done);
      return done + 1;
    }
    if (!options_.baselines.empty()) checkBaselinesFit(options_.baselines, problem_, corpus_);
    objective_->readBaselines(options_.baselines);
    log_.emplace(options_.output, options_.config, std::nullopt);
    return 1;
  }

  const ESOptions &options_;
  const Problem &problem_;
  const CompileSession session_;
  const Corpus &corpus_;
  const CompilerDriver &driver_;
  const ESSettings settings_;
  const ESCheckpoint checkpoint_;
  std::optional<TrajectoryMemo> trajectories_;
  std::unique_ptr<ESObjective> objective_;
  std::optional<EvolutionStrategy> strategy_;
  std::optional<ESMetricsLog> log_;
  std::vector<size_t> sampleable_;  ///< corpus indices the iterations sample from
};

}  // namespace

ESSummary trainES(const ESOptions &options) {
  if (options.cluster && !options.cluster->isLeader())
    throw std::logic_error("trainES runs on rank 0; the other ranks run serveTrainES");
  return ESRun(options).run();
}

void serveTrainES(const ESOptions &options, Cluster &cluster) {
  const Problem &problem = *options.problem;
  const CompileSession session(options.corpus, options.driver);
  // This rank's own trajectories: its modules' earlier compiles replay here.
  std::optional<TrajectoryMemo> trajectories;
  if (options.driver.memo) trajectories.emplace(options.driver.memo->options().maxBytes);
  const std::unique_ptr<ESObjective> objective =
      makeESObjective(problem, options.warmstart, session.corpus(), session.driver(), options.seed,
                      trajectories ? &*trajectories : nullptr);
  serveCandidateMeasures(cluster, *objective, session.corpus().modules.size());
}

}  // namespace mlgo
