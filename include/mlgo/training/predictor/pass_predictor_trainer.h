#pragma once
// `mlgo train-pass-predictor`: learns, from a sweep (pass_sweep.h), which
// lists of a coreset suit a module. Per module the target is a distribution
// over the coreset's usable lists, softmax(gain / temperature) with gain =
// log(-Oz size / list size): Coreset-NVP's normalized value made a ranking
// target (a list twice as close to the module's best gets most of the mass).
// The loss is the cross-entropy to the network's softmax over the same
// lists; full-batch Adam, one thread, so a seed gives one predictor.
//
// Validation is cross-validation over whole projects: they are dealt into
// folds, and each fold's modules are ranked by a model trained on the other
// folds; pooled over every module, those rankings are compared with the
// coreset's own order. The predictor written is trained on every module and
// ranks by its model only when the models did better (PredictorRanking).
#include <cstdint>
#include <filesystem>
#include <functional>

#include <nlohmann/json.hpp>

#include "mlgo/autotune/coreset.h"
#include "mlgo/autotune/pass_predictor.h"
#include "mlgo/autotune/pass_sweep.h"
#include "mlgo/training/shared/config_schema.h"

namespace mlgo {

ConfigSchema passPredictorSchema();

struct PassPredictorOptions {
  const autotune::SweepTable *table = nullptr;
  autotune::Coreset coreset;
  bool allowUngated = false;
  nlohmann::json config;  ///< resolved with passPredictorSchema()
  uint64_t seed = 0;
  /// Called with every metrics record of a fold's model (fold "k/n", epoch,
  /// loss, train/validation figures).
  std::function<void(const nlohmann::json &)> onMetrics;
};

/// Geometric-mean change vs -Oz with the K first-ranked lists plus -Oz.
struct RankingFigures {
  double top1 = 0, top5 = 0, topAll = 0;
  size_t modules = 0;
};

struct PassPredictorResult {
  autotune::PassPredictor predictor;
  /// `train`: the written predictor on the modules it was trained on (all);
  /// `validation`: each module ranked by the model of the fold that never saw
  /// its project; `coresetOrder`: every module in the coreset's order.
  RankingFigures train, validation, coresetOrder;
  size_t validationProjects = 0, validationFolds = 0;
  double loss = 0;
  double seconds = 0;
};

/// Trains a predictor. Cross-validation over `validation_folds` folds of
/// projects (dealt by a hash of name and seed) decides its ranking. Throws
/// UsageError for an invalid config or a sweep of one project, and
/// InputError for a sweep that lacks the coreset.
PassPredictorResult trainPassPredictor(const PassPredictorOptions &options);

}  // namespace mlgo
