#include "mlgo/training/es_trainer.h"

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
#include "mlgo/training/collector.h"
#include "mlgo/training/distributed_es.h"
#include "mlgo/training/es_objective.h"
#include "mlgo/metrics/metrics_keys.h"
#include "mlgo/training/reward.h"
#include "mlgo/training/trajectory_memo.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

ConfigSchema esSchema() {
  using T = ConfigSchema::Type;
  ConfigSchema schema;
  schema.add("iterations", T::Integer, 100, "ES steps (each compiles every candidate on the sampled modules)")
      .within(1, 1e9)
      .add("perturbations", T::Integer, 8, "antithetic pairs of directions per step").within(1, 10000)
      .add("modules_per_iteration", T::Integer, 25, "modules sampled per step, the same for every candidate")
      .within(1, 1e9)
      .add("sigma", T::Number, 0.02, "standard deviation of the weight perturbations").positive(100)
      .add("learning_rate", T::Number, 0.005, "Adam step size (gradient ascent on the shaped fitness)").positive(100)
      .add("adam_beta1", T::Number, 0.9, "Adam's first-moment decay").within(0, 0.9999)
      .add("adam_beta2", T::Number, 0.999, "Adam's second-moment decay").within(0, 0.999999)
      .add("adam_epsilon", T::Number, 1e-8, "Adam epsilon").positive(1)
      .add("fitness_shaping", T::String, "ranks", "ranks (centered ranks in [-0.5, 0.5]) or zscores")
      .add("checkpoint_every", T::Integer, 50, "steps between checkpoints (0: none)").within(0, 1e9);
  return schema;
}

ESSettings ESSettings::fromConfig(const json &config) {
  ESSettings settings;
  settings.perturbations = config.at("perturbations").get<size_t>();
  settings.sigma = config.at("sigma").get<double>();
  settings.learningRate = config.at("learning_rate").get<double>();
  settings.adamBeta1 = config.at("adam_beta1").get<double>();
  settings.adamBeta2 = config.at("adam_beta2").get<double>();
  settings.adamEpsilon = config.at("adam_epsilon").get<double>();
  const std::string shaping = config.at("fitness_shaping").get<std::string>();
  if (shaping == "ranks") settings.shaping = FitnessShaping::CenteredRanks;
  else if (shaping == "zscores") settings.shaping = FitnessShaping::ZScores;
  else throw UsageError("fitness_shaping must be ranks or zscores, not \"" + shaping + "\"");
  return settings;
}

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

std::vector<float> flattenWeights(const PolicyModel &policy) { return policy.network().flatWeights(); }

PolicyModel withWeights(const PolicyModel &policy, const std::vector<float> &weights) {
  const DenseNetwork network = policy.network().withFlatWeights(weights);
  PolicyModel changed(policy.problem(), policy.preprocessor(), network.layers(), policy.activation());
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

/// What one iteration measured.
struct Scores {
  std::vector<double> fitness;  ///< per candidate
  size_t modules = 0;
  ESFitness policy;             ///< the unperturbed policy's (reported, not used by the step)
  size_t compiles = 0, replayed = 0, failed = 0;
};

class ESRun {
 public:
  explicit ESRun(const ESOptions &options)
      : options_(options), problem_(*options.problem), session_(options.corpus, options.driver),
        corpus_(session_.corpus()), driver_(session_.driver()), settings_(ESSettings::fromConfig(options.config)) {
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
      throw InputError(describeInputProblem(options_.corpus.string(), "",
                                            "no module the default heuristic leaves room to improve (every " +
                                                objective_->measureName() + " is 0)"));
    const int64_t last = options_.config.at("iterations").get<int64_t>();
    const int64_t checkpointEvery = options_.config.at("checkpoint_every").get<int64_t>();
    std::ofstream metricsFile(metricsPath(), std::ios::app);
    if (!metricsFile) throw std::runtime_error("cannot write " + metricsPath().string());
    ESSummary summary;
    summary.firstIteration = first;
    summary.lastIteration = first - 1;
    for (int64_t iteration = first; iteration <= last; ++iteration) {
      const auto iterationStart = std::chrono::steady_clock::now();
      const Scores scores = evaluate(iteration);
      const double collectSeconds = secondsSince(iterationStart);
      strategy_->step(iteration, scores.fitness);
      savePolicy(iteration, options_.output / "policy");
      if (checkpointEvery > 0 && iteration % checkpointEvery == 0)
        savePolicy(iteration, options_.output / "checkpoints" / ("iteration-" + std::to_string(iteration)));
      json metrics = metricsRecord(iteration, scores, collectSeconds, secondsSince(start));
      metricsFile << metrics.dump() << "\n" << std::flush;
      saveState(iteration);
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
  fs::path metricsPath() const { return options_.output / "metrics.jsonl"; }
  fs::path statePath() const { return options_.output / "resume" / "state.json"; }

  /// Starts or resumes the run's files; the first iteration to run.
  int64_t prepareOutput() {
    fs::create_directories(options_.output);
    if (options_.resume && fs::exists(statePath())) {
      const json saved = readJsonFile(statePath());
      for (const char *key : {"iteration", "seed", "config", "strategy", "baselines"})
        if (!saved.contains(key)) throw InputError(describeInputProblem(statePath().string(), key, "missing"));
      if (saved["seed"].get<uint64_t>() != options_.seed)
        throw UsageError("--seed " + std::to_string(options_.seed) + " differs from the resumed run's seed " +
                         saved["seed"].dump());
      json savedConfig = saved["config"], config = options_.config;
      savedConfig.erase("iterations");
      config.erase("iterations");
      if (savedConfig != config)
        throw UsageError("the config differs from the resumed run's (" + statePath().string() +
                         "); only iterations may change on --resume");
      try {
        strategy_->restore(saved["strategy"]);
      } catch (const std::exception &e) {
        throw InputError(describeInputProblem(statePath().string(), "strategy", jsonErrorText(e)));
      }
      objective_->restoreDefaults(saved["baselines"]);
      // Every iteration takes one step: a state that disagrees was edited.
      if (!saved["iteration"].is_number_integer() || saved["iteration"].get<int64_t>() != strategy_->steps())
        throw InputError(describeInputProblem(statePath().string(), "iteration",
                                              saved["iteration"].dump() + " is not the number of steps taken (" +
                                                  std::to_string(strategy_->steps()) + ")"));
      const int64_t done = saved["iteration"].get<int64_t>();
      truncateMetrics(metricsPath(), done);
      return done + 1;
    }
    if (!options_.baselines.empty()) checkBaselinesFit(options_.baselines, problem_, corpus_);
    objective_->readBaselines(options_.baselines);
    writeFileAtomically(options_.output / "config.json", options_.config.dump(2) + "\n");
    writeFileAtomically(metricsPath(), "");
    return 1;
  }

  void saveState(int64_t iteration) const {
    fs::create_directories(statePath().parent_path());
    writeFileAtomically(statePath(), json{{"iteration", iteration},
                                          {"seed", options_.seed},
                                          {"config", options_.config},
                                          {"strategy", strategy_->state()},
                                          {"baselines", objective_->defaultsToJson()}}
                                         .dump() +
                                         "\n");
  }

  void savePolicy(int64_t iteration, const fs::path &directory) const {
    objective_->savePolicy(strategy_->weights(),
                           {{"trainer", "evolution-strategies"},
                            {"corpus", options_.corpus.string()},
                            {"warmstart", options_.warmstart.string()},
                            {"seed", options_.seed},
                            {"iterations", iteration},
                            {"config", options_.config}},
                           directory);
  }

  /// Compiles the iteration's modules (the same for every candidate: common
  /// random numbers) with every candidate and with the unperturbed policy.
  Scores evaluate(int64_t iteration) {
    const size_t count = options_.config.at("modules_per_iteration").get<size_t>();
    std::vector<size_t> modules;
    for (size_t k : sampleModules(sampleable_.size(), count, options_.seed, uint64_t(iteration)))
      modules.push_back(sampleable_[k]);
    objective_->learnMissingDefaults(modules);
    Scores scores;
    scores.modules = modules.size();
    auto tally = [&](const ESFitness &fitness) {
      scores.compiles += fitness.compiles;
      scores.replayed += fitness.replayed;
      scores.failed += fitness.failed;
      return fitness;
    };
    MeasureRequest request{iteration, modules, {}};
    for (size_t index = 0; index < strategy_->candidates(); ++index)
      request.candidates.push_back(strategy_->candidate(iteration, index));
    request.candidates.push_back(strategy_->weights());  // the unperturbed policy, last
    const CandidateMeasures measures = measureCandidates(options_.cluster, *objective_, request);
    for (size_t index = 0; index < strategy_->candidates(); ++index)
      scores.fitness.push_back(tally(objective_->fitness(modules, measures[index])).meanReward);
    scores.policy = tally(objective_->fitness(modules, measures.back()));
    return scores;
  }

  json metricsRecord(int64_t iteration, const Scores &scores, double collectSeconds, double elapsed) const {
    const auto [worst, best] = std::minmax_element(scores.fitness.begin(), scores.fitness.end());
    const double mean =
        std::accumulate(scores.fitness.begin(), scores.fitness.end(), 0.0) / double(scores.fitness.size());
    const ESFitness &policy = scores.policy;
    using namespace metrics_keys;
    json metrics{{kIteration, iteration},
                 {"modules", scores.modules},
                 {"candidates", scores.fitness.size()},
                 {"fitness", {{"mean", mean}, {"best", *best}, {"worst", *worst}}},
                 {"policy_reward", policy.meanReward},
                 {kSize,
                  {{kSizeMetric, objective_->measureName()},
                   {kSizePolicy, policy.policyMeasure},
                   {kSizeDefault, policy.defaultMeasure},
                   {kSizeChange, policy.defaultMeasure > 0 ? policy.policyMeasure / policy.defaultMeasure - 1 : 0.0}}},
                 {"compiles", scores.compiles},
                 {"replayed", scores.replayed},
                 {"failed", scores.failed},
                 {kSeconds, {{kCollectSeconds, collectSeconds}, {kElapsedSeconds, elapsed}}}};
    if (options_.driver.memo) {
      metrics["memo"] = options_.driver.memo->stats().toJson();
      metrics["memo"]["trajectory_bytes"] = trajectories_->bytes();
    }
    if (distributed()) metrics["ranks"] = {{"count", options_.cluster->size()}};
    return metrics;
  }

  const ESOptions &options_;
  const Problem &problem_;
  const CompileSession session_;
  const Corpus &corpus_;
  const CompilerDriver &driver_;
  ESSettings settings_;
  std::optional<TrajectoryMemo> trajectories_;
  std::unique_ptr<ESObjective> objective_;
  std::optional<EvolutionStrategy> strategy_;
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
