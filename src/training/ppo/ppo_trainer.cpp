// PPO in LibTorch around in-process collection, for any problem through its
// PPOActor. Collection runs the policy as plain C++ (a SamplingPolicy) on the
// driver's threads; learning runs LibTorch on one thread, so results never
// depend on the number of cores.
#include "mlgo/training/ppo/ppo_trainer.h"

#include <chrono>

#include "mlgo/driver/compile_session.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/training/ppo/ppo_actor.h"
#include "mlgo/training/ppo/ppo_checkpoint.h"
#include "mlgo/training/ppo/ppo_collection.h"
#include "mlgo/training/ppo/ppo_metrics.h"
#include "mlgo/training/ppo/ppo_rewards.h"
#include "mlgo/training/ppo/ppo_settings.h"
#include "mlgo/training/ppo/ppo_update.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

ConfigSchema ppoSchema() { return ppoSettingsSchema().keys(); }

namespace {

/// A PPO run: set up from the options (fresh, warm-started or resumed), then
/// one call to runIteration per policy iteration: collection (ppo_collection),
/// rewards (ppo_rewards), the update (ppo_update), then the policy, metrics
/// (ppo_metrics) and resume state (ppo_checkpoint) written.
class PPORun {
 public:
  explicit PPORun(const PPOOptions &options)
      : options_(options),
        start_(std::chrono::steady_clock::now()),
        settings_(readPPOSettings(options.config)),
        problem_(*options.problem),
        rewards_(settings_, problem_),
        session_(options.corpus, options.driver),
        resume_(options.output),
        resuming_(options.resume && resume_.exists()),
        threads_(resolveThreadCount(options.driver.threads)),
        collection_(options, settings_, session_.driver(), session_.corpus()) {
    if (resume_.exists() && !options.resume)
      throw UsageError(options.output.string() + " holds a run that can be resumed: pass --resume to continue it, " +
                       "or choose another --output");
    update_.emplace(settings_, makePPOActor(problem_, startingPolicy(), options.vocab, settings_), options.seed);
    if (resuming_)
      resume_.restore(options.config, options.seed, state_, rewards_, *update_);
    else
      warmStart();
    metrics_.emplace(options.output, options.config, resuming_ ? std::optional(state_.iteration) : std::nullopt);
    policy_ = currentPolicy(state_.iteration);
  }

  int64_t firstIteration() const { return state_.iteration + 1; }
  int64_t lastIteration() const { return settings_.policyIterations; }

  /// Collects with the current policy, rewards, updates, and writes the
  /// iteration; its metrics record. Throws RunStopped after too many bad
  /// iterations in a row.
  json runIteration(int64_t iteration) {
    Collection collection = collection_.collect(iteration, *policy_, rewards_);
    const IterationRewards rewards = rewards_.reward(collection, session_.corpus());
    stopAfterTooManyBadIterations(rewards, collection.modules.size(), iteration);
    const Learning learning = update_->learn(collection, rewards, iteration);
    return writeIteration(iteration, collection, rewards, learning);
  }

  void finish() { collection_.finish(); }
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  /// The resumed run's policy, or the warm start, or none.
  std::optional<fs::path> startingPolicy() const {
    if (resuming_) return resume_.directory() / "policy";
    return options_.warmstart;
  }

  /// A fresh run's start: the warm start's weights, the given baselines.
  void warmStart() {
    if (options_.warmstart) update_->warmStart(settings_.warmstartTemperature);
    if (options_.baselines) {
      checkBaselinesFit(*options_.baselines, problem_, session_.corpus());
      rewards_.readTraceDefaults(*options_.baselines);
    }
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

  /// The policy, a checkpoint, the metrics record, then the resume state.
  json writeIteration(int64_t iteration, const Collection &collection, const IterationRewards &rewards,
                      const Learning &learning) {
    policy_ = currentPolicy(iteration);
    policy_->save(options_.output / "policy");
    if (settings_.checkpointEvery > 0 && iteration % settings_.checkpointEvery == 0)
      policy_->save(options_.output / "checkpoints" / ("iteration-" + std::to_string(iteration)));
    json metrics = iterationMetrics(iteration, collection, rewards, learning, facts());
    metrics_->write(metrics, rewards, iteration);
    state_.iteration = iteration;
    resume_.save(state_, options_.config, options_.seed, rewards_, *policy_, *update_);
    if (options_.onMetrics) options_.onMetrics(metrics);
    return metrics;
  }

  RunFacts facts() const {
    RunFacts facts;
    facts.measure = rewards_.measure().name();
    facts.baselinesKnown = rewards_.baselinesKnown();
    facts.klBeta = update_->klBeta();
    facts.elapsedSeconds = elapsed();
    facts.threads = threads_;
    if (options_.driver.memo) {
      facts.memo = options_.driver.memo.get();
      facts.trajectories = collection_.trajectories();
    }
    if (collection_.distributed()) facts.cluster = options_.cluster;
    return facts;
  }

  std::unique_ptr<SamplingPolicy> currentPolicy(int64_t iteration) const {
    return update_->policy({{"trainer", "ppo"},
                            {"corpus", options_.corpus.string()},
                            {"vocab", options_.vocab.string()},
                            {"warmstart", options_.warmstart ? options_.warmstart->string() : ""},
                            {"seed", options_.seed},
                            {"iterations", iteration},
                            {"config", options_.config}});
  }

  const PPOOptions &options_;
  const std::chrono::steady_clock::time_point start_;
  const PPOSettings settings_;
  const Problem &problem_;
  PPORewards rewards_;
  const CompileSession session_;
  const ResumeDirectory resume_;
  const bool resuming_;
  const unsigned threads_;
  PPOCollection collection_;
  std::optional<PPOUpdate> update_;
  ResumeState state_;
  std::optional<PPOMetricsLog> metrics_;
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
    summary.lastMetrics = run.runIteration(iteration);
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
