// mlgo train-ppo: reinforcement learning with in-process collection.
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/metrics/metrics_keys.h"
#include "mlgo/problems/problem.h"
#include "mlgo/driver/compile_result.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/training/ppo/ppo_settings.h"
#include "mlgo/training/ppo/ppo_trainer.h"
#include "progress.h"
#include "training_library_loader.h"

namespace mlgo::cli {

namespace {

struct TrainPPOFlags {
  std::string corpus, vocab, warmstart, baselines;
  std::string problem;  ///< empty: chosenProblem decides
  TrainingRunFlags run;
  bool progress = false;
  DriverFlags driver;
};

/// Per-iteration lines with the time left at this run's pace: the progress
/// display of a run that lasts hours, readable on a terminal and in CI logs.
class IterationLog {
 public:
  explicit IterationLog(int64_t total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  void operator()(const nlohmann::json &m);

 private:
  int64_t total_;
  std::chrono::steady_clock::time_point start_;
  int64_t first_ = -1;
};

void IterationLog::operator()(const nlohmann::json &m) {
  using namespace metrics_keys;
  const int64_t iteration = m[kIteration].get<int64_t>();
  if (first_ < 0) first_ = iteration;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const auto left = static_cast<int64_t>(elapsed / double(iteration - first_ + 1) * double(total_ - iteration));
  const auto &reward = m[kRewardDistribution];
  const auto &seconds = m[kSeconds];
  spdlog::info("iteration {}/{} ({}:{:02d}:{:02d} left): reward vs the default mean {:+.4f} p10 {:+.4f} p50 {:+.4f} "
               "p90 {:+.4f}; {} vs the default {:+.3f}%; entropy {:.4f}, KL {:.5f} (beta {:.3g}), loss {:.5f}; {} "
               "modules ({} failed), {} decisions; collect {:.1f} s ({:.0f} decisions/s), train {:.1f} s",
               iteration, total_, left / 3600, left / 60 % 60, left % 60, reward[kMean].get<double>(),
               reward[kP10].get<double>(), reward[kP50].get<double>(), reward[kP90].get<double>(),
               m[kSize][kSizeMetric].get<std::string>(), 100 * m[kSize][kSizeChange].get<double>(),
               m[kEntropy].get<double>(), m[kKl].get<double>(), m[kKlBeta].get<double>(),
               m[kLoss][kLossTotal].get<double>(), m[kModules].get<size_t>(), m[kFailed].get<size_t>(),
               m[kDecisions].get<size_t>(), seconds[kCollectSeconds].get<double>(),
               m[kDecisionsPerSecond].get<double>(), seconds[kTrainSeconds].get<double>());
  if (m.contains(kFailures))
    for (const auto &failure : m[kFailures])
      spdlog::warn("iteration {}: skipped {}: {}", iteration, failure[kFailureModule].get<std::string>(),
                   failure[kFailureReason].get<std::string>());
}

/// A problem that measures something of its own (register allocation: LLVM's
/// regalloc score) is rarely meant to be trained for code size: its own file
/// says so, and a size reward came from a layer over it.
void warnOfSizeRewardForMeasuredProblem(const Problem &problem, const ConfigSchema::Resolved &config) {
  const std::vector<std::string> measures = problem.measureNames();
  const std::string metric = readPPOSettings(config.values).rewardMetric;
  if (measures.empty() || !parseSizeMetric(metric)) return;
  spdlog::warn("train-ppo rewards {} size (reward_metric={}, from {}) for {}, which measures {}", metric, metric,
               config.origins.at("reward_metric"), problem.name(), measures.front());
}

int runTrainPPO(const TrainPPOFlags &flags) {
  const TrainingLibrary &training = trainingLibrary();
  const ConfigSchema schema = training.ppoSchema();
  const Problem &problem = chosenProblem(flags.problem, flags.warmstart);
  const ConfigSchema::Resolved config =
      resolveTrainingConfig(schema, &problem, "ppo", flags.run.config, flags.run.sets);
  if (flags.run.printConfig) {
    std::printf("%s", describeResolvedConfig(schema, config).c_str());
    return exit_code::kSuccess;
  }
  PPOOptions options;
  options.config = config.values;
  warnOfSizeRewardForMeasuredProblem(problem, config);
  options.corpus = flags.corpus;
  options.vocab = flags.vocab;
  if (!flags.warmstart.empty()) options.warmstart = flags.warmstart;
  if (!flags.baselines.empty()) options.baselines = flags.baselines;
  options.output = flags.run.output;
  options.problem = &problem;
  options.seed = flags.run.seed;
  options.resume = flags.run.resume;
  const auto outputLock = claimTrainingOutput(flags.run, "train-ppo");
  options.driver = toDriverOptions(flags.driver);
  options.cluster = &runCluster();
  if (flags.progress) options.onCollectProgress = ProgressReporter::callback("collect");
  if (!options.cluster->isLeader()) {
    training.serveCollectionForPPO(options, *options.cluster);
    return exit_code::kSuccess;
  }
  const int64_t total = readPPOSettings(options.config).policyIterations;
  options.onMetrics = IterationLog(total);

  PPOSummary summary = training.trainPPO(options);
  logMemoStats(options.driver);
  if (summary.lastIteration < summary.firstIteration) {
    std::printf("nothing to do: %s already finished %lld policy iterations\n", flags.run.output.c_str(),
                (long long)summary.lastIteration);
    return exit_code::kSuccess;
  }
  const auto &m = summary.lastMetrics;
  std::printf("trained policy iterations %lld-%lld in %.1f s; last iteration: sampled modules %+.3f%% %s vs the "
              "default, mean reward vs the default %+.4f; policy in %s/policy, metrics in %s/metrics.jsonl\n",
              (long long)summary.firstIteration, (long long)summary.lastIteration, summary.seconds,
              100 * m[metrics_keys::kSize][metrics_keys::kSizeChange].get<double>(),
              m[metrics_keys::kSize][metrics_keys::kSizeMetric].get<std::string>().c_str(),
              m[metrics_keys::kRewardDistribution][metrics_keys::kMean].get<double>(), flags.run.output.c_str(),
              flags.run.output.c_str());
  return exit_code::kSuccess;
}

}  // namespace

void addTrainPPOCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<TrainPPOFlags>();
  command->add_option("--corpus", flags->corpus, "Corpus directory");
  command->add_option("--vocab", flags->vocab,
                      "Vocab directory (<feature>.buckets); yes/no decisions (inlining) need it");
  command->add_option("--warmstart", flags->warmstart, "Policy to start from (e.g. train-bc's output)");
  command->add_option("--baselines", flags->baselines,
                      "Default trace directory or baselines.json with the -Oz sizes (missing ones are compiled)");
  addProblemOption(*command, flags->problem, "Optimization problem the policy learns");
  addTrainingRunFlags(*command, flags->run, trainingConfigHelp("ppo"), "num_policy_iterations=50",
                      "Seed of initialization, module sampling, actions and batches");
  command->add_flag("--progress", flags->progress, "Show collection progress within each iteration");
  addDriverFlags(*command, flags->driver);
  command->callback([flags, command, &runner] {
    checkTrainingRunFlags(*command, flags->run, {"--corpus", "--output"});
    runner = [flags] { return runTrainPPO(*flags); };
  });
}

}  // namespace mlgo::cli
