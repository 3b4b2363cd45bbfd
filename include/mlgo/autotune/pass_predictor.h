#pragma once
// A pass-list predictor: from a module's features (module_features.h) to a
// score for each list of a coreset (coreset.h), higher meaning a smaller
// module expected; `autotune --strategy predicted --budget K` compiles the K
// best-ranked lists and -Oz and keeps the smallest, `predict-passes` prints
// the ranking without compiling. Inputs are log(1 + count), standardized
// with the training set's mean and deviation; a small MLP (trained by
// `mlgo train-pass-predictor`, LibTorch) scores the lists, evaluated here in
// plain C++.
//
// A model ranks only where it earned it: train-pass-predictor compares it
// with the coreset's own order (the order the lists were selected in) on
// projects training never saw, and a predictor whose model lost ranks in
// that fixed order (`ranking`), which predict-passes and autotune report.
//
// On disk a predictor is a directory, like a policy:
//   predictor.json  format, version, feature names, the coreset, the input
//                   standardization, the network's shape, how it was trained
//   model.json      the layers' weights and biases
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/autotune/coreset.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/policy/yes_no_policy.h"

namespace mlgo::autotune {

/// How a predictor orders its coreset's lists for a module.
enum class PredictorRanking {
  Model,        ///< by the network's scores
  CoresetOrder  ///< the coreset's selection order, whatever the module
};
/// "model" or "coreset order" (as predictor.json and the commands say it).
const char *rankingName(PredictorRanking ranking);

class PassPredictor {
 public:
  static constexpr const char *kFormat = "mlgo-pass-predictor";
  static constexpr int kVersion = 1;
  static constexpr const char *kMetadataFile = "predictor.json";
  static constexpr const char *kWeightsFile = "model.json";
  /// What train-pass-predictor writes into its output: what --force may remove.
  static std::vector<std::string> directoryEntries() { return {kMetadataFile, kWeightsFile}; }

  PassPredictor(Coreset coreset, std::vector<std::string> featureNames, std::vector<float> mean,
                std::vector<float> deviation, std::vector<DenseLayer> layers);

  /// The network's inputs for raw feature values.
  std::vector<float> inputs(const std::vector<double> &features) const;
  /// One score per coreset list.
  std::vector<float> scores(const std::vector<double> &features) const;
  /// The coreset lists usable for a module of this language, best first
  /// (ties: coreset order). Under PredictorRanking::CoresetOrder, the
  /// coreset's order whatever the features.
  std::vector<size_t> rank(const std::vector<double> &features, bool cxxModule) const;

  const Coreset &coreset() const { return coreset_; }
  const std::vector<std::string> &featureNames() const { return featureNames_; }
  const std::vector<DenseLayer> &layers() const { return layers_; }
  /// This predictor with other layers (a network in training).
  PassPredictor withLayers(std::vector<DenseLayer> layers) const;

  /// Free-form record of how it was trained (sweep, config, seed, losses).
  nlohmann::json training = nlohmann::json::object();
  /// Files without the key (written before it existed) rank by the model.
  PredictorRanking ranking = PredictorRanking::Model;

  /// Writes the directory atomically (DIR.partial, then renamed over DIR).
  void save(const std::filesystem::path &directory) const;
  /// Loads a predictor directory. Throws InputError naming the file and what
  /// is wrong: another format or version, features other than this mlgo
  /// computes, layers that do not fit.
  /// Its coreset's lists must be passes of `space` (SearchSpace::checkedPipeline);
  /// a list using an element the space excludes is left out with its output
  /// (coreset().excludedLists), which leaves the ranking of the others as it was.
  static PassPredictor load(const std::filesystem::path &directory, const SearchSpace &space);

 private:
  Coreset coreset_;
  std::vector<std::string> featureNames_;
  std::vector<float> mean_, deviation_;
  std::vector<DenseLayer> layers_;
};

/// The standardization of log(1 + count) inputs over a set of modules' raw
/// features: mean and deviation per feature (deviation 1 where it is 0).
void inputStatistics(const std::vector<std::vector<double>> &features, std::vector<float> &mean,
                     std::vector<float> &deviation);

/// The coreset's lists as indices into `space` (what the autotuner compiles).
/// Throws InputError naming the list and the pass the search space lacks.
std::vector<std::vector<int>> predictedLists(const PassPredictor &predictor, const SearchSpace &space,
                                             const std::string &file);

/// configs/autotune/pass-predictor of mlgo's data directory: the predictor
/// shipped with mlgo, trained on the demo corpus's training projects.
std::filesystem::path defaultPredictorDirectory();

}  // namespace mlgo::autotune
