// mlgo train-pass-predictor: learns which coreset lists suit a module.
#include <cstdio>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/autotune/coreset.h"
#include "mlgo/autotune/pass_sweep.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/errors.h"
#include "mlgo/training/predictor/pass_predictor_settings.h"
#include "mlgo/training/predictor/pass_predictor_trainer.h"
#include "training_library_loader.h"

namespace mlgo::cli {

namespace {

struct TrainPredictorFlags {
  std::string sweep, coreset, output, config;
  std::vector<std::string> sets;
  uint64_t seed = 0;
  bool allowUngated = false, force = false, printConfig = false;
};

/// Lists the sweep never gated (swept with --no-gate) are learnt from only
/// with --allow-ungated, as select-coreset chooses them: a predictor that
/// ships must never rank a list that may miscompile.
void requireGatedLists(const autotune::SweepTable &table, const autotune::Coreset &coreset, bool allowUngated) {
  if (allowUngated) return;
  for (size_t l = 0; l < table.lists.size(); ++l)
    for (const autotune::CoresetList &list : coreset.lists)
      if (table.lists[l].pipeline == list.pipeline && !table.lists[l].gate)
        throw InputError(describeInputProblem(table.file, "lists[" + std::to_string(l) + "]",
                                              "the coreset's list " + list.pipeline +
                                                  " was never gated (swept with --no-gate); learning from it needs "
                                                  "--allow-ungated: nothing was written"));
}

int runTrainPredictor(const TrainPredictorFlags &flags) {
  const TrainingLibrary &training = trainingLibrary();
  const ConfigSchema schema = training.passPredictorSchema();
  // Pass lists belong to no problem: the built-in defaults, --config, then --set.
  const ConfigSchema::Resolved config = resolveTrainingConfig(schema, nullptr, "", flags.config, flags.sets);
  if (flags.printConfig) {
    std::printf("%s", describeResolvedConfig(schema, config).c_str());
    return exit_code::kSuccess;
  }
  PassPredictorOptions options;
  options.config = config.values;
  if (flags.sweep.empty() || flags.output.empty())
    throw UsageError("train-pass-predictor needs --sweep and --output");
  const autotune::SweepTable table = autotune::SweepTable::read(flags.sweep);
  options.table = &table;
  const std::filesystem::path coresetFile =
      flags.coreset.empty() ? autotune::defaultCoresetFile() : std::filesystem::path(flags.coreset);
  options.coreset =
      autotune::Coreset::read(coresetFile, autotune::SearchSpace::load(autotune::defaultSearchSpaceFile()));
  if (!options.coreset.excludedLists.empty())
    spdlog::warn("{}: {} of its lists use passes the search space excludes and are left out ({}, ...)",
                 coresetFile.string(), options.coreset.excludedLists.size(), options.coreset.excludedLists.front());
  requireGatedLists(table, options.coreset, flags.allowUngated);
  options.allowUngated = flags.allowUngated;
  options.seed = flags.seed;
  const int64_t epochs = readPassPredictorSettings(options.config).epochs;
  options.onMetrics = [epochs](const nlohmann::json &m) {
    // A fold's last epoch at info; the curve at debug (ten folds would flood the log).
    spdlog::log(m["epoch"].get<int64_t>() == epochs ? spdlog::level::info : spdlog::level::debug,
                "fold {} epoch {}: loss {:.4f}, top-1 geomean change train {:+.2f}%, validation {:+.2f}% "
                "(top-5 {:+.2f}%)",
                m["fold"].get<std::string>(), m["epoch"].get<int64_t>(), m["loss"].get<double>(),
                100 * m["train_top1_change"].get<double>(), 100 * m["validation_top1_change"].get<double>(),
                100 * m["validation_top5_change"].get<double>());
  };
  const auto outputLock = claimOutput(flags.output, "train-pass-predictor", freshOutput(flags.force));
  const PassPredictorResult result = training.trainPassPredictor(options);
  result.predictor.save(flags.output);
  std::printf(
      "validated on %zu modules of %zu projects in %zu folds, each module by a model that never saw its "
      "project; geomean change vs -Oz with the first 1 / 5 / all lists (and -Oz): model %+.2f%% / %+.2f%% / "
      "%+.2f%%, coreset order %+.2f%% / %+.2f%% / %+.2f%%: it ranks by the %s\n",
      result.validation.modules, result.validationProjects, result.validationFolds, 100 * result.validation.top1,
      100 * result.validation.top5, 100 * result.validation.topAll, 100 * result.coresetOrder.top1,
      100 * result.coresetOrder.top5, 100 * result.coresetOrder.topAll,
      autotune::rankingName(result.predictor.ranking));
  std::printf("trained on %zu modules: %+.2f%% / %+.2f%% / %+.2f%% there; predictor in %s; %.1f s\n",
              result.train.modules, 100 * result.train.top1, 100 * result.train.top5, 100 * result.train.topAll,
              flags.output.c_str(), result.seconds);
  return exit_code::kSuccess;
}

}  // namespace

void addTrainPassPredictorCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<TrainPredictorFlags>();
  command->add_option("--sweep", flags->sweep, "A sweep-passes output directory or sweep.json");
  command->add_option("--coreset", flags->coreset,
                      "Coreset file (default: configs/autotune/coreset.json of mlgo's data directory)");
  command->add_option("--output", flags->output, "Predictor directory to write");
  command->add_option("--config", flags->config, "JSON config over the built-in defaults");
  command->add_option("--set", flags->sets, "Override a config key: --set epochs=1000 (repeatable)");
  command->add_option("--seed", flags->seed, "Seed of initialization and the validation split")
      ->capture_default_str()
      ->check(wholeNumber());
  command->add_flag("--allow-ungated", flags->allowUngated, "Learn from lists the sweep did not gate");
  command->add_flag("--force", flags->force, "Replace what an earlier run left in --output");
  command->add_flag("--print-config", flags->printConfig,
                    "Print each config value, where it came from (default, problem file, --config, --set), and exit");
  command->callback([flags, &runner] { runner = [flags] { return runTrainPredictor(*flags); }; });
}

}  // namespace mlgo::cli
