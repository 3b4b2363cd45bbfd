// PPO in LibTorch around in-process collection, for any problem through its
// PPOActor. Collection runs the policy as plain C++ (a SamplingPolicy) on the
// driver's threads; learning runs LibTorch on one thread, so results never
// depend on the number of cores.
#include "mlgo/training/ppo_trainer.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>

#include <torch/torch.h>

#include "mlgo/driver/compile_session.h"
#include "mlgo/policy/sampling_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/metrics/event_file_writer.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/text_input.h"
#include "mlgo/support/sampling.h"
#include "mlgo/training/adam_state.h"
#include "mlgo/training/collector.h"
#include "mlgo/training/deterministic_torch.h"
#include "mlgo/training/distributed_collection.h"
#include "mlgo/metrics/metrics_keys.h"
#include "mlgo/training/ppo_actor.h"
#include "mlgo/training/ppo_loss.h"
#include "mlgo/training/reward.h"
#include "mlgo/training/torch_network.h"
#include "mlgo/training/trajectory_memo.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

ConfigSchema ppoSchema() {
  using T = ConfigSchema::Type;
  ConfigSchema schema;
  schema.add("hidden_layers", T::IntegerList, {40, 40, 20}, "actor MLP hidden layer sizes").within(1, 4096)
      .add("activation", T::String, "relu", "relu or tanh")
      .add("num_policy_iterations", T::Integer, 3000, "policy iterations (collect, then train)").within(0, 1e9)
      .add("num_modules", T::Integer, 100, "modules sampled per policy iteration").within(1, 1e7)
      .add("num_iterations", T::Integer, 300, "gradient steps per policy iteration").within(0, 1e7)
      .add("batch_size", T::Integer, 256, "sequences per gradient step").within(1, 1e7)
      .add("train_sequence_length", T::Integer, 16, "consecutive decisions per sequence").within(1, 1e6)
      .add("learning_rate", T::Number, 3e-5, "Adam learning rate").positive(1)
      .add("adam_epsilon", T::Number, 3.125e-4, "Adam epsilon").positive(1)
      .add("importance_ratio_clipping", T::Number, 0.2, "PPO clipping of the importance ratio").positive(10)
      .add("entropy_regularization", T::Number, 0.003, "weight of the entropy bonus").within(0, 100)
      .add("policy_l2_reg", T::Number, 1e-6, "L2 weight on the actor's kernels").within(0, 100)
      .add("initial_adaptive_kl_beta", T::Number, 1.0, "initial KL penalty coefficient").within(0, 1e6)
      .add("adaptive_kl_target", T::Number, 0.01, "KL the coefficient adapts towards").positive(100)
      .add("adaptive_kl_tolerance", T::Number, 0.3, "relative band around the target").positive(100)
      .add("kl_cutoff_factor", T::Number, 2.0, "KL above factor * target costs cutoff_coef * excess^2").positive(1e6)
      .add("kl_cutoff_coef", T::Number, 1000.0, "coefficient of the KL cutoff penalty").within(0, 1e9)
      .add("normalize_advantages", T::Boolean, true, "normalize advantages per batch (TF-Agents does)")
      .add("moving_average_decay_rate", T::Number, 0.8, "decay of the per-module reward baseline").within(0, 1)
      .add("reward_delta", T::Number, kRewardDelta, "delta in 1 - (size + delta) / (baseline + delta)").within(0, 1e9)
      .add("reward_metric", T::String, "text",
           "what the reward measures: text, text+data or a measure of the problem (regalloc_score)")
      .add("reward_scope", T::String, "module",
           "module: every decision gets its module's reward; function (regalloc): its function's, against that "
           "function's default")
      .add("segment_reward", T::String, "relative",
           "with reward_scope function: relative (1 - (score + delta) / (baseline + delta) of the function, as "
           "ml-compiler-opt) or module_share (the function's gain as a share of its module's score)")
      .add("warmstart_temperature", T::Number, 1.0,
           "divides the warm start's logits: above 1 it explores more, with the same greedy decisions").positive(1e6)
      .add("value_std", T::Number, 0.1,
           "real-valued decisions: the standard deviation of the Gaussian around the network's output (in the "
           "z-score units of log2(1 + value)) that collection samples from")
      .positive(100)
      .add("with_sqrt", T::Boolean, false, "without a warm start: add sqrt(x) per feature")
      .add("passthrough_features", T::StringList, json::array(),
           "without a warm start: features that skip normalization")
      .add("checkpoint_every", T::Integer, 100, "policy iterations between kept checkpoints (0: none)").within(0, 1e9)
      .add("max_failed_share", T::Number, 0.5, "an iteration with more failed modules than this is bad").within(0, 1)
      .add("max_bad_iterations", T::Integer, 3, "bad iterations in a row that stop the run").within(1, 1e9);
  return schema;
}

namespace {

/// The config keys a resumed run may change: how long it runs, not what it learns.
bool mayChangeOnResume(const std::string &key) {
  return key == "num_policy_iterations" || key == "checkpoint_every" || key == "max_failed_share" ||
         key == "max_bad_iterations";
}

struct Settings {
  std::vector<int64_t> hidden;
  Activation activation;
  int64_t policyIterations, modulesPerIteration, gradientSteps, batchSize, sequenceLength, checkpointEvery;
  int64_t maxBadIterations;
  double learningRate, adamEpsilon, decay, delta, maxFailedShare, initialKlBeta;
  bool normalizeAdvantages;
  std::string rewardMetric, rewardScope, segmentReward;
  PPOHyperparameters hyper;

  explicit Settings(const json &config) {
    hidden = config.at("hidden_layers").get<std::vector<int64_t>>();
    activation = parseActivation(config.at("activation").get<std::string>());
    policyIterations = config.at("num_policy_iterations").get<int64_t>();
    modulesPerIteration = config.at("num_modules").get<int64_t>();
    gradientSteps = config.at("num_iterations").get<int64_t>();
    batchSize = config.at("batch_size").get<int64_t>();
    sequenceLength = config.at("train_sequence_length").get<int64_t>();
    checkpointEvery = config.at("checkpoint_every").get<int64_t>();
    maxBadIterations = config.at("max_bad_iterations").get<int64_t>();
    learningRate = config.at("learning_rate").get<double>();
    adamEpsilon = config.at("adam_epsilon").get<double>();
    decay = config.at("moving_average_decay_rate").get<double>();
    delta = config.at("reward_delta").get<double>();
    maxFailedShare = config.at("max_failed_share").get<double>();
    initialKlBeta = config.at("initial_adaptive_kl_beta").get<double>();
    normalizeAdvantages = config.at("normalize_advantages").get<bool>();
    rewardMetric = config.at("reward_metric").get<std::string>();
    rewardScope = config.at("reward_scope").get<std::string>();
    segmentReward = config.at("segment_reward").get<std::string>();
    if (segmentReward != "relative" && segmentReward != "module_share")
      throw UsageError("segment_reward: \"" + segmentReward + "\" is neither relative nor module_share");
    hyper.importanceRatioClipping = config.at("importance_ratio_clipping").get<double>();
    hyper.entropyRegularization = config.at("entropy_regularization").get<double>();
    hyper.policyL2 = config.at("policy_l2_reg").get<double>();
    hyper.klTarget = config.at("adaptive_kl_target").get<double>();
    hyper.klTolerance = config.at("adaptive_kl_tolerance").get<double>();
    hyper.klCutoffFactor = config.at("kl_cutoff_factor").get<double>();
    hyper.klCutoffCoefficient = config.at("kl_cutoff_coef").get<double>();

    auto positive = [](int64_t value, const char *key) {
      if (value <= 0) throw UsageError(std::string(key) + " must be positive");
    };
    positive(policyIterations, "num_policy_iterations");
    positive(modulesPerIteration, "num_modules");
    positive(gradientSteps, "num_iterations");
    positive(batchSize, "batch_size");
    positive(sequenceLength, "train_sequence_length");
    positive(maxBadIterations, "max_bad_iterations");
    for (int64_t size : hidden) positive(size, "hidden_layers entries");
    if (checkpointEvery < 0) throw UsageError("checkpoint_every must not be negative");
    if (!(learningRate > 0)) throw UsageError("learning_rate must be positive");
    if (!(adamEpsilon > 0)) throw UsageError("adam_epsilon must be positive");
    if (!(decay >= 0 && decay < 1)) throw UsageError("moving_average_decay_rate must be in [0, 1)");
    if (!(delta > 0)) throw UsageError("reward_delta must be positive");
    if (!(maxFailedShare >= 0 && maxFailedShare <= 1)) throw UsageError("max_failed_share must be in [0, 1]");
    if (!(initialKlBeta >= 0)) throw UsageError("initial_adaptive_kl_beta must not be negative");
    if (!(hyper.importanceRatioClipping > 0 && hyper.importanceRatioClipping < 1))
      throw UsageError("importance_ratio_clipping must be in (0, 1)");
    if (hyper.entropyRegularization < 0 || hyper.policyL2 < 0 || hyper.klCutoffCoefficient < 0 ||
        !(hyper.klTarget > 0) || hyper.klTolerance < 0 || hyper.klCutoffFactor < 0)
      throw UsageError("entropy_regularization, policy_l2_reg, kl_cutoff_coef, adaptive_kl_tolerance and "
                       "kl_cutoff_factor must not be negative; adaptive_kl_target must be positive");
  }
};

/// batch_size windows of train_sequence_length consecutive decisions, at
/// start positions drawn from a stream keyed by seed, iteration and step.
torch::Tensor sampleWindows(int64_t decisions, int64_t windows, int64_t length, uint64_t seed, int64_t iteration,
                            int64_t step) {
  length = std::min(length, decisions);
  const uint64_t starts = static_cast<uint64_t>(decisions - length + 1);
  uint64_t state = mixBits(seed ^ 0x6261'7463'6865'7321ull) ^ mixBits(uint64_t(iteration) << 32 ^ uint64_t(step));
  torch::Tensor indices = torch::empty({windows * length}, torch::kInt64);
  int64_t *out = indices.data_ptr<int64_t>();
  for (int64_t w = 0; w < windows; ++w) {
    const int64_t start = static_cast<int64_t>(mixBits(state++) % starts);
    for (int64_t k = 0; k < length; ++k) *out++ = start + k;
  }
  return indices;
}

struct TrainingMetrics {
  double total = 0, policyGradient = 0, entropyRegularization = 0, klPenalty = 0, l2 = 0;
  double entropy = 0, kl = 0, clippedShare = 0;
  int64_t steps = 0;
  json toJson(double klBeta) const {
    const double n = steps > 0 ? double(steps) : 1.0;
    using namespace metrics_keys;
    return {{kLoss,
             {{kLossTotal, total / n},
              {kLossPolicyGradient, policyGradient / n},
              {kLossEntropy, entropyRegularization / n},
              {kLossKl, klPenalty / n},
              {kLossL2, l2 / n}}},
            {kEntropy, entropy / n},
            {kKl, kl / n},
            {"kl_beta", klBeta},
            {"clipped_share", clippedShare / n},
            {"gradient_steps", steps}};
  }
};

/// What the reward measures of a compile: a size of its object, or one of the
/// problem's measures (register allocation: LLVM's regalloc score).
class RewardMeasure {
 public:
  RewardMeasure(const std::string &name, const Problem &problem) : name_(name), size_(parseSizeMetric(name)) {
    const std::vector<std::string> measures = problem.measureNames();
    if (size_ || std::find(measures.begin(), measures.end(), name) != measures.end()) return;
    std::string known = "text, text+data";
    for (const std::string &measure : measures) known += ", " + measure;
    throw UsageError("reward_metric: \"" + name + "\" is not something " + problem.name() + " measures (" + known +
                     ")");
  }
  const std::string &name() const { return name_; }
  bool isSize() const { return size_.has_value(); }
  /// The value of a compile that succeeded; nullopt when it was not measured.
  std::optional<double> of(const CompileResult &result, const std::map<std::string, double> &measures) const {
    if (size_) return double(measure(result.sizes, *size_));
    auto found = measures.find(name_);
    if (found == measures.end()) return std::nullopt;
    return found->second;
  }
  /// The default heuristic's values a trace recorded, into `baselines`.
  void readTraceDefaults(const fs::path &trace, RewardBaselines &baselines) const {
    if (size_)
      readTraceBaselines(trace, *size_, baselines);
    else
      readTraceMeasures(trace, name_, baselines);
  }

 private:
  std::string name_;
  std::optional<SizeMetric> size_;
};

/// The default's values per reward segment (reward_scope "function"), and the
/// modules whose segments' defaults are in.
struct SegmentBaselines {
  RewardBaselines baselines;
  std::set<std::string> modulesKnown;
};

/// The state --resume restores: exactly what the next iteration depends on.
struct ResumeState {
  int64_t iteration = 0;
  double klBeta = 1.0;
  int64_t badIterationsInARow = 0;
};

class ResumeDirectory {
 public:
  explicit ResumeDirectory(const fs::path &output) : target_(output / "resume") {}
  bool exists() const { return !existingDirectory(target_).empty(); }

  void save(const ResumeState &state, const json &config, uint64_t seed, const RewardBaselines &baselines,
            const SegmentBaselines &segments, const SamplingPolicy &policy, TorchMlp &network,
            torch::optim::Adam &optimizer) const {
    const fs::path partial = fs::path(target_.string() + ".partial");
    fs::remove_all(partial);
    fs::create_directories(partial);
    torch::save(network, (partial / "network.pt").string());
    saveAdamState(optimizer, partial / "optimizer.pt");
    policy.save(partial / "policy");
    writeFileAtomically(partial / "state.json", json{{"iteration", state.iteration},
                                                     {"kl_beta", state.klBeta},
                                                     {"bad_iterations_in_a_row", state.badIterationsInARow},
                                                     {"seed", seed},
                                                     {"config", config},
                                                     {"baselines", baselines.toJson()},
                                                     {"segment_baselines", segments.baselines.toJson()},
                                                     {"segment_defaults_known", segments.modulesKnown}}
                                                    .dump(1) + "\n");
    replaceDirectory(partial, target_);
  }

  /// Loads state.json; the caller checks it and then loads the tensors.
  json loadState() const {
    const fs::path directory = existingDirectory(target_);
    const fs::path path = directory / "state.json";
    json state = readJsonFile(path);
    for (const char *key : {"iteration", "kl_beta", "bad_iterations_in_a_row", "seed", "config", "baselines"})
      if (!state.contains(key)) throw InputError(describeInputProblem(path.string(), key, "missing"));
    return state;
  }
  fs::path directory() const { return existingDirectory(target_); }

 private:
  fs::path target_;
};

/// torch::load, with a damaged or foreign file reported as bad input naming
/// the file instead of LibTorch's message with its C++ stack frames.
template <typename Value>
void loadTorchArchive(Value &value, const fs::path &path) {
  if (!fs::is_regular_file(path)) throw InputError(describeInputProblem(path.string(), "", "missing"));
  try {
    torch::load(value, path.string());
  } catch (const c10::Error &e) {
    throw InputError(describeInputProblem(path.string(), "",
                                          std::string("not a readable LibTorch archive of this run (truncated or "
                                                      "damaged?): ") +
                                              e.what_without_backtrace()));
  } catch (const std::exception &e) {
    throw InputError(describeInputProblem(path.string(), "", std::string("cannot be loaded: ") + e.what()));
  }
}

/// Why a compile gave no reward: its failure, or that it did not measure what
/// the reward measures.
std::string describeFailure(const CompileResult &result, const std::string &measure) {
  if (result.ok()) return "compiled, but no " + measure + " was measured";
  return std::string(failureKindName(result.failure)) + ": " + result.message;
}

std::string describeFailures(const std::vector<std::pair<std::string, std::string>> &failures) {
  std::string text;
  for (size_t i = 0; i < failures.size() && i < 3; ++i)
    text += (i ? "; " : "") + failures[i].first + ": " + failures[i].second;
  if (failures.size() > 3) text += "; and " + std::to_string(failures.size() - 3) + " more";
  return text;
}

/// One policy iteration's collection: the modules compiled with the policy.
struct Collection {
  std::vector<CollectedModule> modules;
  CollectionTraffic traffic;
  double seconds = 0;
};

/// The rewards of a collection, in plan order, and what the metrics report.
struct IterationRewards {
  /// Per collected module, per decision of its trajectory (none for failed ones).
  std::vector<std::vector<double>> training;
  std::vector<double> vsDefault;  ///< per module that compiled
  std::vector<std::pair<std::string, std::string>> failures;
  double policyTotal = 0, defaultTotal = 0, compileSeconds = 0;
  size_t decisions = 0;
};

struct Learning {
  TrainingMetrics metrics;
  double trainingRewardMean = 0;
  double seconds = 0;
};

/// A PPO run: set up from the options (fresh, warm-started or resumed), then
/// one call each to collect, reward, learn and writeIteration per iteration.
class PPORun {
 public:
  explicit PPORun(const PPOOptions &options)
      : options_(options),
        start_(std::chrono::steady_clock::now()),
        distributed_(options.cluster && options.cluster->distributed()),
        settings_(options.config),
        problem_(*options.problem),
        rewardMeasure_(settings_.rewardMetric, problem_),
        session_(options.corpus, options.driver),
        corpus_(session_.corpus()),
        driver_(session_.driver()),
        resume_(options.output),
        resuming_(options.resume && resume_.exists()),
        threads_(resolveThreadCount(options.driver.threads)),
        baselines_(settings_.decay, settings_.delta),
        perSegment_(rewardsPerSegment(settings_, problem_, rewardMeasure_)),
        sharesOfModule_(settings_.segmentReward == "module_share"),
        segments_{RewardBaselines(settings_.decay, settings_.delta), {}} {
    if (resume_.exists() && !options.resume)
      throw UsageError(options.output.string() + " holds a run that can be resumed: pass --resume to continue it, " +
                       "or choose another --output");
    actor_ = makePPOActor(problem_, startingPolicy(), options.vocab, options.config);
    startDeterministicTorch(options.seed);
    network_ = TorchMlp(actor_->networkInputs(), settings_.hidden, settings_.activation, 0.0, actor_->networkOutputs());
    optimizer_.emplace(network_->parameters(),
                       torch::optim::AdamOptions(settings_.learningRate).eps(settings_.adamEpsilon));
    state_.klBeta = settings_.initialKlBeta;
    if (resuming_)
      restore();
    else
      warmStart();
    openOutputs();
    if (options.driver.memo) trajectories_.emplace(options.driver.memo->options().maxBytes);
    policy_ = currentPolicy(state_.iteration);
  }

  int64_t firstIteration() const { return state_.iteration + 1; }
  int64_t lastIteration() const { return settings_.policyIterations; }

  Collection collect(int64_t iteration) {
    const auto start = std::chrono::steady_clock::now();
    CollectionPlan plan;
    plan.seed = options_.seed;
    plan.iteration = static_cast<uint64_t>(iteration);
    plan.trajectories = trajectories_ ? &*trajectories_ : nullptr;
    plan.modules = sampleModules(corpus_.modules.size(), static_cast<size_t>(settings_.modulesPerIteration),
                                 options_.seed, plan.iteration);
    for (size_t index : plan.modules) {
      const std::string &name = corpus_.modules[index].name;
      plan.needsDefault.push_back(!baselines_.has(name) || (perSegment_ && !segments_.modulesKnown.count(name)));
    }
    Collection collection;
    collection.modules =
        distributed_ ? collectAcrossRanks(*options_.cluster, driver_, corpus_, problem_, *policy_, plan,
                                          options_.onCollectProgress, &collection.traffic)
                     : collectTrajectories(driver_, corpus_, problem_, *policy_, plan, options_.onCollectProgress);
    collection.seconds = secondsSince(start);
    return collection;
  }

  /// Rewards in plan order (the moving averages are updated in that order);
  /// throws RunStopped after too many bad iterations in a row.
  IterationRewards reward(Collection &collection, int64_t iteration) {
    IterationRewards rewards;
    rewards.training.resize(collection.modules.size());
    for (size_t i = 0; i < collection.modules.size(); ++i) {
      CollectedModule &module = collection.modules[i];
      const std::string &name = corpus_.modules[module.module].name;
      rewards.compileSeconds += module.result.seconds + (module.defaultResult ? module.defaultResult->seconds : 0.0);
      if (module.defaultResult) {
        const CompileResult &byDefault = *module.defaultResult;
        const std::optional<double> defaultValue =
            byDefault.ok() ? rewardMeasure_.of(byDefault, module.defaultMeasures) : std::nullopt;
        if (defaultValue) {
          baselines_.addDefault(name, *defaultValue);
          if (perSegment_) addSegmentDefaults(name, module.defaultSegmentMeasures);
        } else {
          rewards.failures.emplace_back(name,
                                        "default heuristic: " + describeFailure(byDefault, rewardMeasure_.name()));
          // Without a baseline its decisions cannot be rewarded.
          module.result.failure = module.defaultResult->failure;
          module.trajectory.clear();
          continue;
        }
      }
      const std::optional<double> value =
          module.result.ok() ? rewardMeasure_.of(module.result, module.measures) : std::nullopt;
      if (!value) {
        rewards.failures.emplace_back(name, describeFailure(module.result, rewardMeasure_.name()));
        module.trajectory.clear();
        continue;
      }
      rewards.policyTotal += *value;
      rewards.defaultTotal += baselines_.at(name).defaultSize;
      // module_share divides by the module's average before this compile moves it.
      const double moduleScale = baselines_.at(name).movingAverage + settings_.delta;
      const RewardBaselines::Rewards reward = baselines_.observe(name, *value);
      rewards.training[i] =
          perSegment_ ? segmentRewards(module.trajectory, name, valuesOf(module.segmentMeasures), segments_.baselines,
                                       reward.training, sharesOfModule_ ? std::optional(moduleScale) : std::nullopt)
                      : std::vector<double>(module.trajectory.decisions(), reward.training);
      rewards.vsDefault.push_back(reward.vsDefault);
      rewards.decisions += module.trajectory.decisions();
    }
    stopAfterTooManyBadIterations(rewards, collection.modules.size(), iteration);
    return rewards;
  }

  Learning learn(const Collection &collection, const IterationRewards &rewards, int64_t iteration) {
    const auto start = std::chrono::steady_clock::now();
    Learning learning;
    const PPOBatch batch = actor_->makeBatch(collection.modules, rewards.training);
    if (rewards.decisions) learning.trainingRewardMean = batch.rewards.mean().item<double>();
    if (batch.size() > 0) {
      std::vector<torch::Tensor> kernels;
      for (const torch::nn::Linear &linear : network_->linears()) kernels.push_back(linear->weight);
      for (int64_t step = 0; step < settings_.gradientSteps; ++step)
        gradientStep(batch, kernels, iteration, step, learning.metrics);
    }
    learning.seconds = secondsSince(start);
    return learning;
  }

  /// The policy, a checkpoint, the metrics record, then the resume state.
  json writeIteration(int64_t iteration, const Collection &collection, const IterationRewards &rewards,
                      const Learning &learning) {
    policy_ = currentPolicy(iteration);
    policy_->save(options_.output / "policy");
    if (settings_.checkpointEvery > 0 && iteration % settings_.checkpointEvery == 0)
      policy_->save(options_.output / "checkpoints" / ("iteration-" + std::to_string(iteration)));
    json metrics = iterationMetrics(iteration, collection, rewards, learning);
    metricsFile_ << metrics.dump() << "\n" << std::flush;
    json scalars = metrics;
    scalars.erase(metrics_keys::kIteration);
    events_->addScalars(scalars, iteration);
    events_->addHistogram("reward_distribution", iteration, rewards.vsDefault);
    events_->flush();
    state_.iteration = iteration;
    resume_.save(state_, options_.config, options_.seed, baselines_, segments_, *policy_, network_, *optimizer_);
    if (options_.onMetrics) options_.onMetrics(metrics);
    return metrics;
  }

  void finish() {
    if (distributed_) endCollection(*options_.cluster);
  }
  double elapsed() const { return secondsSince(start_); }

 private:
  static double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  /// Whether reward_scope asks for rewards per segment; throws UsageError when
  /// the problem or the reward measure has no segments.
  static bool rewardsPerSegment(const Settings &settings, const Problem &problem, const RewardMeasure &measure) {
    if (settings.rewardScope == "module") return false;
    const std::string segment = problem.segmentName();
    if (segment.empty() || settings.rewardScope != segment)
      throw UsageError("reward_scope: \"" + settings.rewardScope + "\" is not a scope " + problem.name() +
                       " rewards (module" + (segment.empty() ? std::string() : ", " + segment) + ")");
    if (measure.isSize())
      throw UsageError("reward_scope \"" + segment + "\" needs a reward_metric " + problem.name() +
                       " measures per " + segment + ", not the object's size \"" + measure.name() + "\"");
    return true;
  }

  /// The segment values of the reward's measure.
  const std::map<std::string, double> &valuesOf(const SegmentMeasures &measures) const {
    static const std::map<std::string, double> none;
    auto found = measures.find(rewardMeasure_.name());
    return found == measures.end() ? none : found->second;
  }

  void addSegmentDefaults(const std::string &module, const SegmentMeasures &measures) {
    for (const auto &[segment, value] : valuesOf(measures))
      segments_.baselines.addDefault(segmentBaselineKey(module, segment), value);
    segments_.modulesKnown.insert(module);
  }

  /// The resumed run's policy, or the warm start, or none.
  std::optional<fs::path> startingPolicy() const {
    if (resuming_) return resume_.directory() / "policy";
    return options_.warmstart;
  }

  void restore() {
    const json saved = resume_.loadState();
    const fs::path statePath = resume_.directory() / "state.json";
    if (saved["seed"].get<uint64_t>() != options_.seed)
      throw UsageError("--seed " + std::to_string(options_.seed) + " differs from the resumed run's seed " +
                       saved["seed"].dump());
    std::string changed;
    // A key the saved run's mlgo did not have yet had its default's effect.
    const json defaults = ppoSchema().defaults();
    for (const auto &[key, value] : options_.config.items())
      if (!mayChangeOnResume(key) && saved["config"].value(key, defaults.value(key, json())) != value)
        changed += " " + key;
    if (!changed.empty())
      throw UsageError("the config differs from the resumed run's (" + statePath.string() + ") in:" + changed +
                       "; only num_policy_iterations, checkpoint_every, max_failed_share and max_bad_iterations "
                       "may change on --resume");
    state_.iteration = saved["iteration"].get<int64_t>();
    state_.klBeta = saved["kl_beta"].get<double>();
    state_.badIterationsInARow = saved["bad_iterations_in_a_row"].get<int64_t>();
    const std::string stateFile = (resume_.directory() / "state.json").string();
    baselines_ =
        RewardBaselines::fromJson(saved["baselines"], settings_.decay, settings_.delta, stateFile, "baselines");
    // Runs saved before rewards per segment have neither key.
    segments_.baselines =
        RewardBaselines::fromJson(saved.value("segment_baselines", json::object()), settings_.decay, settings_.delta,
                                  stateFile, "segment_baselines");
    segments_.modulesKnown = saved.value("segment_defaults_known", std::set<std::string>());
    loadTorchArchive(network_, resume_.directory() / "network.pt");
    loadAdamState(*optimizer_, resume_.directory() / "optimizer.pt");
  }

  void warmStart() {
    if (options_.warmstart) {
      actor_->loadStartingWeights(network_);
      const double temperature = options_.config.at("warmstart_temperature").get<double>();
      if (!(temperature > 0)) throw UsageError("warmstart_temperature must be positive");
      actor_->applyTemperature(network_, temperature);
    }
    if (options_.baselines) {
      checkBaselinesFit(*options_.baselines, problem_, corpus_);
      rewardMeasure_.readTraceDefaults(*options_.baselines, baselines_);
    }
  }

  void openOutputs() {
    fs::create_directories(options_.output);
    const fs::path metricsPath = options_.output / "metrics.jsonl";
    if (resuming_) {
      truncateMetrics(metricsPath, state_.iteration);
    } else {
      writeFileAtomically(options_.output / "config.json", options_.config.dump(2) + "\n");
      writeFileAtomically(metricsPath, "");
    }
    metricsFile_.open(metricsPath, std::ios::app);
    if (!metricsFile_) throw std::runtime_error("cannot write " + metricsPath.string());
    // A new event file per start: TensorBoard reads every file of the directory.
    events_.emplace(options_.output);
  }

  std::unique_ptr<SamplingPolicy> currentPolicy(int64_t iteration) const {
    return actor_->policy(network_, settings_.activation,
                          {{"trainer", "ppo"},
                           {"corpus", options_.corpus.string()},
                           {"vocab", options_.vocab.string()},
                           {"warmstart", options_.warmstart ? options_.warmstart->string() : ""},
                           {"seed", options_.seed},
                           {"iterations", iteration},
                           {"config", options_.config}});
  }

  void stopAfterTooManyBadIterations(const IterationRewards &rewards, size_t modules, int64_t iteration) {
    const double failedShare = double(rewards.failures.size()) / double(modules);
    state_.badIterationsInARow = failedShare > settings_.maxFailedShare ? state_.badIterationsInARow + 1 : 0;
    if (state_.badIterationsInARow < settings_.maxBadIterations) return;
    throw RunStopped("stopping: " + std::to_string(state_.badIterationsInARow) +
                     " policy iterations in a row had more than " +
                     std::to_string(int(settings_.maxFailedShare * 100)) + "% failed modules (iteration " +
                     std::to_string(iteration) + ": " + std::to_string(rewards.failures.size()) + " of " +
                     std::to_string(modules) + " failed: " + describeFailures(rewards.failures) +
                     "); the state after iteration " + std::to_string(iteration - 1) + " is saved for --resume");
  }

  void gradientStep(const PPOBatch &batch, const std::vector<torch::Tensor> &kernels, int64_t iteration, int64_t step,
                    TrainingMetrics &metrics) {
    const torch::Tensor rows =
        sampleWindows(batch.size(), settings_.batchSize, settings_.sequenceLength, options_.seed, iteration, step);
    torch::Tensor advantages = batch.rewards.index_select(0, rows);
    if (settings_.normalizeAdvantages) advantages = normalizeAdvantages(advantages);
    optimizer_->zero_grad();
    PPOLossTerms terms =
        ppoLoss(actor_->distributions(network_, batch, rows), advantages, state_.klBeta, kernels, settings_.hyper);
    terms.total.backward();
    optimizer_->step();
    state_.klBeta = adaptKlBeta(state_.klBeta, terms.meanKl, settings_.hyper);
    metrics.total += terms.total.item<double>();
    metrics.policyGradient += terms.policyGradient.item<double>();
    metrics.entropyRegularization += terms.entropyRegularization.item<double>();
    metrics.klPenalty += terms.klPenalty.item<double>();
    metrics.l2 += terms.l2Regularization.item<double>();
    metrics.entropy += terms.meanEntropy;
    metrics.kl += terms.meanKl;
    metrics.clippedShare += terms.clippedShare;
    ++metrics.steps;
  }

  json iterationMetrics(int64_t iteration, const Collection &collection, const IterationRewards &rewards,
                        const Learning &learning) const {
    const double collectSeconds = collection.seconds;
    const size_t modules = collection.modules.size();
    using namespace metrics_keys;
    json metrics{{kIteration, iteration},
                 {"modules", modules},
                 {"failed", rewards.failures.size()},
                 {"decisions", rewards.decisions},
                 {kRewardDistribution, summarizeRewards(rewards.vsDefault).toJson()},
                 {"training_reward_mean", learning.trainingRewardMean},
                 {kSize,
                  {{kSizeMetric, rewardMeasure_.name()},
                   {kSizePolicy, rewards.policyTotal},
                   {kSizeDefault, rewards.defaultTotal},
                   {kSizeChange, rewards.defaultTotal > 0 ? rewards.policyTotal / rewards.defaultTotal - 1 : 0.0}}},
                 {"baselines_known", baselines_.size()},
                 {kSeconds,
                  {{kCollectSeconds, collectSeconds},
                   {kTrainSeconds, learning.seconds},
                   {kCompileSeconds, rewards.compileSeconds},
                   {kElapsedSeconds, elapsed()}}},
                 {"threads", threads_},
                 {kDecisionsPerSecond, collectSeconds > 0 ? rewards.decisions / collectSeconds : 0.0},
                 {"modules_per_second", collectSeconds > 0 ? modules / collectSeconds : 0.0}};
    metrics.update(learning.metrics.toJson(state_.klBeta));
    // Cumulative over the run (this process's compiles; ranks keep their own).
    if (options_.driver.memo) {
      metrics["memo"] = options_.driver.memo->stats().toJson();
      metrics["memo"]["trajectory_bytes"] = trajectories_->bytes();
    }
    if (distributed_)
      metrics["ranks"] = {{"count", options_.cluster->size()},
                          {"sent_bytes", collection.traffic.sentBytes},
                          {"received_bytes", collection.traffic.receivedBytes}};
    if (!rewards.failures.empty()) {
      json list = json::array();
      for (const auto &[name, reason] : rewards.failures) list.push_back({{"module", name}, {"reason", reason}});
      metrics["failures"] = list;
    }
    return metrics;
  }

  const PPOOptions &options_;
  const std::chrono::steady_clock::time_point start_;
  const bool distributed_;
  const Settings settings_;
  const Problem &problem_;
  const RewardMeasure rewardMeasure_;
  const CompileSession session_;
  const Corpus &corpus_;
  const CompilerDriver &driver_;
  ResumeDirectory resume_;
  const bool resuming_;
  const unsigned threads_;
  RewardBaselines baselines_;
  /// reward_scope is the problem's segment (function), not the module.
  const bool perSegment_;
  /// segment_reward module_share: a function's gain as a share of its module's score.
  const bool sharesOfModule_;
  SegmentBaselines segments_;
  std::unique_ptr<PPOActor> actor_;
  TorchMlp network_{nullptr};
  std::optional<torch::optim::Adam> optimizer_;
  ResumeState state_;
  std::ofstream metricsFile_;
  std::optional<EventFileWriter> events_;
  /// Trajectories compiled so far, replayed where later samples repeat them.
  std::optional<TrajectoryMemo> trajectories_;
  /// The policy that collects the next iteration: the one the last finished
  /// iteration trained (or the start).
  std::unique_ptr<SamplingPolicy> policy_;
};

}  // namespace

PPOSummary trainPPO(const PPOOptions &options) {
  if (options.cluster && !options.cluster->isLeader())
    throw std::logic_error("trainPPO runs on rank 0; the other ranks run serveCollectionForPPO");
  PPORun run(options);
  PPOSummary summary;
  summary.firstIteration = run.firstIteration();
  summary.lastIteration = run.firstIteration() - 1;
  for (int64_t iteration = run.firstIteration(); iteration <= run.lastIteration(); ++iteration) {
    Collection collection = run.collect(iteration);
    const IterationRewards rewards = run.reward(collection, iteration);
    const Learning learning = run.learn(collection, rewards, iteration);
    summary.lastMetrics = run.writeIteration(iteration, collection, rewards, learning);
    summary.lastIteration = iteration;
  }
  run.finish();
  summary.seconds = run.elapsed();
  return summary;
}

void serveCollectionForPPO(const PPOOptions &options, Cluster &cluster) {
  const Problem &problem = *options.problem;
  const CompileSession session(options.corpus, options.driver);
  serveCollection(cluster, session.driver(), session.corpus(), problem, options.onCollectProgress);
}

}  // namespace mlgo
