// mlgo train-es: evolution strategies over a policy's weights.
#include <cstdio>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/metrics/metrics_keys.h"
#include "mlgo/metrics/event_file_writer.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/training/es/es_trainer.h"

namespace mlgo::cli {

namespace {

struct TrainESFlags {
  std::string corpus, warmstart, baselines;
  std::string problem;  ///< empty: chosenProblem decides
  TrainingRunFlags run;
  DriverFlags driver;
};

int runTrainES(const TrainESFlags &flags) {
  const Problem &problem = chosenProblem(flags.problem, flags.warmstart);
  const ConfigSchema schema = esSchema();
  const ConfigSchema::Resolved config = resolveTrainingConfig(schema, &problem, "es", flags.run.config, flags.run.sets);
  if (flags.run.printConfig) {
    std::printf("%s", describeResolvedConfig(schema, config).c_str());
    return exit_code::kSuccess;
  }
  ESOptions options;
  options.config = config.values;
  options.corpus = flags.corpus;
  options.warmstart = flags.warmstart;
  options.baselines = flags.baselines;
  options.output = flags.run.output;
  options.problem = &problem;
  options.seed = flags.run.seed;
  options.resume = flags.run.resume;
  const auto outputLock = claimTrainingOutput(flags.run, "train-es");
  options.driver = toDriverOptions(flags.driver);
  options.cluster = &runCluster();
  if (!options.cluster->isLeader()) {
    serveTrainES(options, *options.cluster);
    return exit_code::kSuccess;
  }
  const int64_t total = readESSettings(options.config).iterations;
  // A new event file per start: TensorBoard reads every file of the directory.
  auto events = std::make_shared<std::optional<EventFileWriter>>();
  options.onMetrics = [events, total, &flags](const nlohmann::json &m) {
    using namespace metrics_keys;
    if (!*events) events->emplace(flags.run.output);
    nlohmann::json scalars = m;
    scalars.erase(kIteration);
    (*events)->addScalars(scalars, m[kIteration].get<int64_t>());
    (*events)->flush();
    spdlog::info(
        "iteration {}/{}: fitness mean {:+.5f} best {:+.5f}; policy reward {:+.5f}, {} vs default {:+.3f}%; "
        "{} modules x {} candidates: {} compiled, {} replayed, {} failed; collect {:.1f} s",
        m[kIteration].get<int64_t>(), total, m[kFitness][kMean].get<double>(), m[kFitness][kFitnessBest].get<double>(),
        m[kPolicyReward].get<double>(), m[kSize][kSizeMetric].get<std::string>(),
        100 * m[kSize][kSizeChange].get<double>(), m[kModules].get<size_t>(), m[kCandidates].get<size_t>(),
        m[kCompiles].get<size_t>(), m[kReplayed].get<size_t>(), m[kFailed].get<size_t>(),
        m[kSeconds][kCollectSeconds].get<double>());
  };
  const ESSummary summary = trainES(options);
  logMemoStats(options.driver);
  if (summary.lastIteration < summary.firstIteration) {
    std::printf("nothing to do: %s already finished %lld iterations\n", flags.run.output.c_str(),
                (long long)summary.lastIteration);
    return exit_code::kSuccess;
  }
  std::printf("trained ES iterations %lld-%lld in %.1f s; last iteration: sampled modules %+.3f%% %s vs the default; "
              "policy in %s/policy, metrics in %s/metrics.jsonl\n",
              (long long)summary.firstIteration, (long long)summary.lastIteration, summary.seconds,
              100 * summary.lastMetrics[metrics_keys::kSize][metrics_keys::kSizeChange].get<double>(),
              summary.lastMetrics[metrics_keys::kSize][metrics_keys::kSizeMetric].get<std::string>().c_str(),
              flags.run.output.c_str(),
              flags.run.output.c_str());
  return exit_code::kSuccess;
}

}  // namespace

void addTrainESCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<TrainESFlags>();
  command->add_option("--corpus", flags->corpus, "Corpus directory");
  command->add_option("--warmstart", flags->warmstart, "Policy to start from (train-bc's or train-ppo's output)");
  command->add_option(
      "--baselines", flags->baselines,
      "Default trace directory or baselines.json with the default's sizes or measures (missing ones are compiled)");
  addProblemOption(*command, flags->problem, "Optimization problem the policy learns");
  addTrainingRunFlags(*command, flags->run, trainingConfigHelp("es"), "iterations=50",
                      "Seed of the directions and the module sampling");
  addDriverFlags(*command, flags->driver);
  command->callback([flags, command, &runner] {
    checkTrainingRunFlags(*command, flags->run, {"--corpus", "--warmstart", "--baselines", "--output"});
    runner = [flags] { return runTrainES(*flags); };
  });
}

}  // namespace mlgo::cli
