// mlgo train-bc: behavioral cloning warm start from a trace.
#include <cstdio>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/training/cloning/bc_trainer.h"
#include "training_library_loader.h"

namespace mlgo::cli {

namespace {

struct TrainBCFlags {
  std::string trace, vocab, output, config, warmstart;
  std::vector<std::string> sets;
  uint64_t seed = 0;
  unsigned threads = 0;
  bool printConfig = false;
  bool force = false;
};

/// The problem whose file the config is layered over: the trace's (the
/// default problem's without --trace, for --print-config). A trace that is
/// not there names none: the trainer then reports it, after the config.
const Problem *problemOfTrace(const std::string &trace) {
  if (trace.empty()) return &defaultProblem();
  if (!std::filesystem::exists(trace)) return nullptr;
  return &findProblem(trace::TraceReader(trace).problem());
}

int runTrainBC(const TrainBCFlags &flags) {
  const TrainingLibrary &training = trainingLibrary();
  const ConfigSchema schema = training.behavioralCloningSchema();
  const ConfigSchema::Resolved config =
      resolveTrainingConfig(schema, problemOfTrace(flags.trace), "bc", flags.config, flags.sets);
  if (flags.printConfig) {
    std::printf("%s", describeResolvedConfig(schema, config).c_str());
    return exit_code::kSuccess;
  }
  BCOptions options;
  options.trace = flags.trace;
  options.vocab = flags.vocab;
  options.output = flags.output;
  options.seed = flags.seed;
  if (!flags.warmstart.empty()) options.warmstart = flags.warmstart;
  options.config = config.values;
  const auto outputLock = claimOutput(flags.output, "train-bc", freshOutput(flags.force));
  options.onMetrics = [](const nlohmann::json &m) {
    spdlog::info("iteration {}: loss {:.4f}, agreement train {:.4f}, held-out {:.4f}", m["iteration"].get<int64_t>(),
                 m["loss"].get<double>(), m["train_agreement"].get<double>(), m.value("heldout_agreement", 0.0));
  };
  BCSummary summary = training.trainBehavioralCloning(options);
  std::printf("trained on %zu decisions of %zu modules; agreement with the trace: %.2f%% train, %.2f%% held-out "
              "(%zu decisions of %zu modules); policy in %s/policy; %.1f s\n",
              summary.trainDecisions, summary.trainModules, 100 * summary.trainAgreement,
              100 * summary.heldoutAgreement, summary.heldoutDecisions, summary.heldoutModules, flags.output.c_str(),
              summary.seconds);
  return exit_code::kSuccess;
}

}  // namespace

void addTrainBCCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<TrainBCFlags>();
  command->add_option("--trace", flags->trace, "Trace directory");
  command->add_option("--vocab", flags->vocab,
                      "Vocab directory (<feature>.buckets); needed for problems whose features are bucketized "
                      "(inlining), not for decisions among positions (regalloc) nor with --warmstart");
  command->add_option("--output", flags->output, "Output directory (policy/, checkpoints/, metrics.jsonl)");
  command->add_option("--config", flags->config, trainingConfigHelp("bc"));
  command->add_option("--warmstart", flags->warmstart,
                      "Start from this policy of the same problem instead of random weights (fine-tuning): its "
                      "network and input preprocessing are kept");
  command->add_option("--set", flags->sets, "Override a config key: --set iterations=2000 (repeatable)");
  command->add_option("--seed", flags->seed, "Seed of initialization, hold-out split, batches and dropout")
      ->capture_default_str()
      ->check(wholeNumber());
  command->add_flag("--force", flags->force, "Replace what an earlier run left in --output");
  command->add_option("--threads", flags->threads, "Accepted for uniformity; training uses one thread (deterministic)")
      ->check(wholeNumber());
  command->add_flag("--print-config", flags->printConfig,
                    "Print each config value, where it came from (default, problem file, --config, --set), and exit");
  command->callback([flags, command, &runner] {
    if (!flags->printConfig)
      for (const char *name : {"--trace", "--output"})
        if (command->count(name) == 0) throw CLI::RequiredError(name);
    runner = [flags] { return runTrainBC(*flags); };
  });
}

}  // namespace mlgo::cli
