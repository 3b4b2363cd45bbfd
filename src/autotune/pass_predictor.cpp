#include "mlgo/autotune/pass_predictor.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "mlgo/autotune/module_features.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/data_paths.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/portable_math.h"
#include "mlgo/support/text_input.h"

namespace mlgo::autotune {

namespace fs = std::filesystem;
using nlohmann::json;

PassPredictor::PassPredictor(Coreset coreset, std::vector<std::string> featureNames, std::vector<float> mean,
                             std::vector<float> deviation, std::vector<DenseLayer> layers)
    : coreset_(std::move(coreset)),
      featureNames_(std::move(featureNames)),
      mean_(std::move(mean)),
      deviation_(std::move(deviation)),
      layers_(std::move(layers)) {}

PassPredictor PassPredictor::withLayers(std::vector<DenseLayer> layers) const {
  PassPredictor copy(coreset_, featureNames_, mean_, deviation_, std::move(layers));
  copy.training = training;
  copy.ranking = ranking;
  return copy;
}

std::vector<float> PassPredictor::inputs(const std::vector<double> &features) const {
  std::vector<float> x(features.size());
  for (size_t i = 0; i < features.size(); ++i)
    x[i] = (float(portable::log1p(std::max(0.0, features[i]))) - mean_[i]) / deviation_[i];
  return x;
}

std::vector<float> PassPredictor::scores(const std::vector<double> &features) const {
  std::vector<float> x = inputs(features);
  for (size_t l = 0; l < layers_.size(); ++l) {
    const DenseLayer &layer = layers_[l];
    std::vector<float> y(layer.bias);
    for (size_t o = 0; o < layer.outputs; ++o)
      for (size_t i = 0; i < layer.inputs; ++i) y[o] += layer.weights[o * layer.inputs + i] * x[i];
    if (l + 1 < layers_.size())
      for (float &value : y) value = std::max(value, 0.0f);  // ReLU between layers
    x = std::move(y);
  }
  return x;
}

const char *rankingName(PredictorRanking ranking) {
  return ranking == PredictorRanking::Model ? "model" : "coreset order";
}

std::vector<size_t> PassPredictor::rank(const std::vector<double> &features, bool cxxModule) const {
  std::vector<size_t> order = coreset_.orderFor(cxxModule);
  if (ranking == PredictorRanking::CoresetOrder) return order;
  const std::vector<float> score = scores(features);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return score[a] > score[b]; });
  return order;
}

void PassPredictor::save(const fs::path &directory) const {
  const fs::path partial = fs::path(directory.string() + ".partial");
  fs::remove_all(partial);
  fs::create_directories(partial);
  json layers = json::array();
  std::vector<size_t> shape{featureNames_.size()};
  for (const DenseLayer &layer : layers_) {
    layers.push_back(
        {{"inputs", layer.inputs}, {"outputs", layer.outputs}, {"weights", layer.weights}, {"bias", layer.bias}});
    shape.push_back(layer.outputs);
  }
  writeFileAtomically(partial / kWeightsFile, json{{"layers", layers}}.dump() + "\n");
  const json metadata{{"format", kFormat},
                      {"version", kVersion},
                      {"feature_names", featureNames_},
                      {"input_transform", "(log(1 + count) - mean) / deviation"},
                      {"input_mean", mean_},
                      {"input_deviation", deviation_},
                      {"layer_sizes", shape},
                      {"activation", "relu"},
                      {"coreset", coreset_.toJson()},
                      {"ranking", rankingName(ranking)},
                      {"training", training}};
  writeFileAtomically(partial / kMetadataFile, metadata.dump(1) + "\n");
  replaceDirectory(partial, directory);
}

namespace {

json readPart(const fs::path &file) {
  if (!fs::exists(file))
    throw InputError(
        describeInputProblem(file.string(), "", "missing: not a predictor directory, or an unfinished one"));
  return readJsonFile(file);
}

DenseLayer layerFromJson(const json &entry, const std::string &file, size_t index) {
  const std::string where = "layers[" + std::to_string(index) + "]";
  try {
    DenseLayer layer{entry.at("inputs").get<size_t>(), entry.at("outputs").get<size_t>(),
                     entry.at("weights").get<std::vector<float>>(), entry.at("bias").get<std::vector<float>>()};
    if (layer.weights.size() != layer.inputs * layer.outputs || layer.bias.size() != layer.outputs)
      throw InputError(describeInputProblem(file, where, "weights or bias of the wrong size"));
    // 1e39 reads as an infinite float: a predictor that ranks by NaN.
    auto finite = [](const std::vector<float> &values) {
      return std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); });
    };
    if (!finite(layer.weights) || !finite(layer.bias))
      throw InputError(describeInputProblem(file, where, "a weight or bias that is not a finite float"));
    return layer;
  } catch (const json::exception &) {
    throw InputError(describeInputProblem(file, where, "missing or of the wrong type"));
  }
}

PredictorRanking rankingOf(const json &metadata, const std::string &file) {
  const json ranking = metadata.value("ranking", json(rankingName(PredictorRanking::Model)));
  for (PredictorRanking known : {PredictorRanking::Model, PredictorRanking::CoresetOrder})
    if (ranking == rankingName(known)) return known;
  throw InputError(describeInputProblem(file, "ranking", "neither \"model\" nor \"coreset order\""));
}

}  // namespace

PassPredictor PassPredictor::load(const fs::path &requested, const SearchSpace &space) {
  const fs::path directory = existingDirectory(requested).empty() ? requested : existingDirectory(requested);
  const fs::path metadataFile = directory / kMetadataFile, weightsFile = directory / kWeightsFile;
  const std::string file = metadataFile.string();
  const json metadata = readPart(metadataFile);
  requireFormat(metadata, file, kFormat, kVersion, "a predictor",
                "train it again with this mlgo's train-pass-predictor");
  std::vector<std::string> names;
  std::vector<float> mean, deviation;
  try {
    names = metadata.at("feature_names").get<std::vector<std::string>>();
    mean = metadata.at("input_mean").get<std::vector<float>>();
    deviation = metadata.at("input_deviation").get<std::vector<float>>();
  } catch (const json::exception &) {
    throw InputError(describeInputProblem(file, "feature_names", "feature names or input statistics missing"));
  }
  if (names != moduleFeatureNames())
    throw InputError(describeInputProblem(file, "feature_names",
                                          "trained on " + std::to_string(names.size()) + " features other than the " +
                                              std::to_string(moduleFeatureNames().size()) + " this mlgo computes"));
  if (mean.size() != names.size() || deviation.size() != names.size() ||
      std::any_of(deviation.begin(), deviation.end(), [](float d) { return !(d > 0) || !std::isfinite(d); }) ||
      std::any_of(mean.begin(), mean.end(), [](float m) { return !std::isfinite(m); }))
    throw InputError(
        describeInputProblem(file, "input_mean", "not one finite mean and one finite positive deviation per feature"));
  Coreset coreset = Coreset::fromJson(metadata.value("coreset", json()), file + ": coreset", space);
  const json weights = readPart(weightsFile);
  std::vector<DenseLayer> layers;
  for (size_t l = 0; l < weights.value("layers", json::array()).size(); ++l)
    layers.push_back(layerFromJson(weights["layers"][l], weightsFile.string(), l));
  size_t width = names.size();
  for (const DenseLayer &layer : layers) {
    if (layer.inputs != width)
      throw InputError(describeInputProblem(weightsFile.string(), "layers", "layer sizes do not chain"));
    width = layer.outputs;
  }
  if (layers.empty() || width != coreset.lists.size() + coreset.excludedLists.size())
    throw InputError(describeInputProblem(weightsFile.string(), "layers",
                                          "the last layer does not give one score per coreset list"));
  // Lists the search space now excludes are left out with their scores: one
  // output each, so the others rank as they did.
  if (!coreset.excludedLists.empty()) {
    DenseLayer &last = layers.back();
    DenseLayer kept{last.inputs, coreset.fileIndices.size(), {}, {}};
    for (size_t k : coreset.fileIndices) {
      kept.weights.insert(kept.weights.end(), last.weights.begin() + k * last.inputs,
                          last.weights.begin() + (k + 1) * last.inputs);
      kept.bias.push_back(last.bias[k]);
    }
    last = std::move(kept);
  }
  PassPredictor predictor(std::move(coreset), std::move(names), std::move(mean), std::move(deviation),
                          std::move(layers));
  predictor.training = metadata.value("training", json::object());
  predictor.ranking = rankingOf(metadata, file);
  return predictor;
}

void inputStatistics(const std::vector<std::vector<double>> &features, std::vector<float> &mean,
                     std::vector<float> &deviation) {
  const size_t width = features.empty() ? 0 : features.front().size();
  mean.assign(width, 0);
  deviation.assign(width, 1);
  if (features.empty()) return;
  for (size_t f = 0; f < width; ++f) {
    double sum = 0, squares = 0;
    for (const std::vector<double> &row : features) {
      const double x = portable::log1p(std::max(0.0, row[f]));
      sum += x;
      squares += x * x;
    }
    const double n = double(features.size()), average = sum / n;
    const double spread = std::sqrt(std::max(0.0, squares / n - average * average));
    mean[f] = float(average);
    deviation[f] = spread > 1e-6 ? float(spread) : 1.0f;
  }
}

std::vector<std::vector<int>> predictedLists(const PassPredictor &predictor, const SearchSpace &space,
                                             const std::string &file) {
  std::vector<std::vector<int>> lists;
  for (size_t k = 0; k < predictor.coreset().lists.size(); ++k) {
    std::vector<int> list;
    for (const std::string &element : predictor.coreset().lists[k].passes) {
      const int index = space.find(element);
      if (index < 0)
        throw InputError(describeInputProblem(file, "coreset.lists[" + std::to_string(k) + "]",
                                              "'" + element + "' is not a pass of the search space"));
      list.push_back(index);
    }
    lists.push_back(std::move(list));
  }
  return lists;
}

fs::path defaultPredictorDirectory() { return dataPath(fs::path("configs") / "autotune" / "pass-predictor"); }

}  // namespace mlgo::autotune
