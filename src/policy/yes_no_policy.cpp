#include "mlgo/policy/yes_no_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "mlgo/policy/policy_directory.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "mlgo/policy/vocab_files.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

using policy_directory::kFormat;
using policy_directory::kVersion;

YesNoPolicy::YesNoPolicy(std::string problem, FeaturePreprocessor preprocessor, std::vector<DenseLayer> layers,
                         Activation activation)
    : problem_(std::move(problem)), preprocessor_(std::move(preprocessor)), network_(std::move(layers), activation) {}

std::string YesNoPolicy::vocabFingerprint() const {
  return FeaturePreprocessor::fingerprint(preprocessor_.featureNames(), preprocessor_.vocab());
}

void YesNoPolicy::logitsFromInputs(const float *inputs, float out[2]) const { network_.forward(inputs, out); }

void YesNoPolicy::logits(const int64_t *features, float out[2]) const {
  thread_local std::vector<float> inputs;
  inputs.resize(preprocessor_.outputCount());
  preprocessor_.transform(features, inputs.data());
  logitsFromInputs(inputs.data(), out);
}

bool YesNoPolicy::decide(const int64_t *features) const {
  float out[2];
  logits(features, out);
  return out[1] > out[0];
}

json YesNoPolicy::metadata() const {
  const PreprocessingConfig &config = preprocessor_.config();
  return json{{"format", kFormat},
              {"version", kVersion},
              {"problem", problem_},
              {"feature_names", preprocessor_.featureNames()},
              {"vocab_fingerprint", vocabFingerprint()},
              {"preprocessing",
               {{"with_sqrt", config.withSqrt},
                {"with_z_score", config.withZScore},
                {"passthrough", config.passthrough},
                {"z_score_means", preprocessor_.zScoreMeans()},
                {"z_score_stddevs", preprocessor_.zScoreStddevs()}}},
              {"network",
               {{"inputs", preprocessor_.outputCount()},
                {"hidden_layers", hiddenSizes()},
                {"activation", activationName(activation())},
                {"outputs", 2}}},
              {"training", training},
              {"mlgo_version", MLGO_VERSION}};
}

void YesNoPolicy::save(const fs::path &directory) const {
  const fs::path partial = policy_directory::startPartial(directory);
  fs::create_directories(partial / "vocab");
  for (const auto &[feature, boundaries] : preprocessor_.vocab()) writeBuckets(partial / "vocab", feature, boundaries);
  policy_directory::write(partial, directory, metadata(), network_.layersToJson());
}

namespace {

template <typename T>
T field(const json &object, const char *key, const fs::path &file) {
  try {
    return object.at(key).get<T>();
  } catch (const json::exception &) {
    throw InputError(describeInputProblem(file.string(), key, "missing or of the wrong type"));
  }
}

std::vector<double> finiteDoubles(const json &object, const char *key, const fs::path &file) {
  auto values = field<std::vector<double>>(object, key, file);
  for (size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      throw InputError(
          describeInputProblem(file.string(), std::string(key) + "[" + std::to_string(i) + "]", "not a finite number"));
  return values;
}

std::string describeFeatureDifference(const std::vector<std::string> &policy, const std::vector<std::string> &ours) {
  for (size_t i = 0; i < std::max(policy.size(), ours.size()); ++i) {
    const std::string a = i < policy.size() ? policy[i] : "(none)";
    const std::string b = i < ours.size() ? ours[i] : "(none)";
    if (a != b)
      return "feature " + std::to_string(i) + " is " + a + " in the policy but " + b + " in this compiler (" +
             std::to_string(policy.size()) + " vs " + std::to_string(ours.size()) + " features)";
  }
  return "";
}

}  // namespace

YesNoPolicy YesNoPolicy::load(const fs::path &given, const std::string &problem,
                              const std::vector<std::string> &expectedFeatures) {
  const fs::path directory = policy_directory::resolve(given);
  const fs::path metadataPath = directory / kMetadataFile;
  const json metadata = policy_directory::readFile(metadataPath);
  policy_directory::checkFormat(metadata, metadataPath);
  if (field<std::string>(metadata, "problem", metadataPath) != problem)
    throw InputError(
        describeInputProblem(metadataPath.string(), "problem",
                             "the policy is for " + metadata["problem"].get<std::string>() + ", not " + problem));
  const auto features = field<std::vector<std::string>>(metadata, "feature_names", metadataPath);
  if (features != expectedFeatures)
    throw InputError(describeInputProblem(metadataPath.string(), "feature_names",
                                          describeFeatureDifference(features, expectedFeatures)));
  const json &pre = metadata.at("preprocessing");
  PreprocessingConfig config;
  config.withSqrt = field<bool>(pre, "with_sqrt", metadataPath);
  config.withZScore = field<bool>(pre, "with_z_score", metadataPath);
  config.passthrough = field<std::vector<std::string>>(pre, "passthrough", metadataPath);
  std::vector<std::string> normalized;
  for (const std::string &name : features)
    if (std::find(config.passthrough.begin(), config.passthrough.end(), name) == config.passthrough.end())
      normalized.push_back(name);
  FeaturePreprocessor preprocessor(features, readVocab(directory / "vocab", normalized), config);
  preprocessor.setZScoreStatistics(finiteDoubles(pre, "z_score_means", metadataPath),
                                   finiteDoubles(pre, "z_score_stddevs", metadataPath));
  if (preprocessor.zScoreMeans().size() != features.size() || preprocessor.zScoreStddevs().size() != features.size())
    throw InputError(
        describeInputProblem(metadataPath.string(), "preprocessing", "z-score statistics of the wrong size"));
  const std::string fingerprint = field<std::string>(metadata, "vocab_fingerprint", metadataPath);
  if (FeaturePreprocessor::fingerprint(features, preprocessor.vocab()) != fingerprint)
    throw InputError(describeInputProblem((directory / "vocab").string(), "",
                                          "its boundaries do not match the policy's vocab fingerprint " + fingerprint));

  const json &network = metadata.at("network");
  const Activation activation = parseActivation(field<std::string>(network, "activation", metadataPath));
  const auto hidden = field<std::vector<size_t>>(network, "hidden_layers", metadataPath);
  const fs::path weightsPath = directory / kWeightsFile;
  const json weights = policy_directory::readFile(weightsPath);
  std::vector<size_t> widths = hidden;
  widths.push_back(2);
  std::vector<DenseLayer> layers =
      DenseNetwork::layersFromJson(weights.value("layers", json()), weightsPath, preprocessor.outputCount(), widths);
  YesNoPolicy model(problem, std::move(preprocessor), std::move(layers), activation);
  model.training = metadata.value("training", json::object());
  return model;
}

std::string YesNoPolicy::serialize() const {
  const json whole{{"metadata", metadata()}, {"vocab", preprocessor_.vocab()}, {"layers", network_.layersToJson()}};
  // CBOR keeps every float and double exactly (JSON text would too, slower).
  const std::vector<uint8_t> bytes = json::to_cbor(whole);
  return std::string(bytes.begin(), bytes.end());
}

YesNoPolicy YesNoPolicy::deserialize(std::string_view bytes) {
  try {
    const json whole = json::from_cbor(bytes.begin(), bytes.end());
    const json &metadata = whole.at("metadata");
    const json &pre = metadata.at("preprocessing");
    PreprocessingConfig config;
    config.withSqrt = pre.at("with_sqrt").get<bool>();
    config.withZScore = pre.at("with_z_score").get<bool>();
    config.passthrough = pre.at("passthrough").get<std::vector<std::string>>();
    FeaturePreprocessor preprocessor(metadata.at("feature_names").get<std::vector<std::string>>(),
                                     whole.at("vocab").get<std::map<std::string, std::vector<double>>>(), config);
    preprocessor.setZScoreStatistics(pre.at("z_score_means").get<std::vector<double>>(),
                                     pre.at("z_score_stddevs").get<std::vector<double>>());
    std::vector<DenseLayer> layers;
    size_t expectedInputs = preprocessor.outputCount();
    for (const json &entry : whole.at("layers")) {
      DenseLayer layer;
      layer.inputs = entry.at("inputs").get<size_t>();
      layer.outputs = entry.at("outputs").get<size_t>();
      layer.weights = entry.at("weights").get<std::vector<float>>();
      layer.bias = entry.at("bias").get<std::vector<float>>();
      if (layer.inputs != expectedInputs || layer.weights.size() != layer.inputs * layer.outputs ||
          layer.bias.size() != layer.outputs)
        throw std::runtime_error("not a serialized policy: layer shapes do not chain");
      expectedInputs = layer.outputs;
      layers.push_back(std::move(layer));
    }
    if (expectedInputs != 2) throw std::runtime_error("not a serialized policy: the network does not end in 2 logits");
    YesNoPolicy model(metadata.at("problem").get<std::string>(), std::move(preprocessor), std::move(layers),
                      parseActivation(metadata.at("network").at("activation").get<std::string>()));
    model.training = metadata.value("training", json::object());
    return model;
  } catch (const json::exception &e) {
    throw std::runtime_error("not a serialized policy: " + jsonErrorText(e));
  }
}

void YesNoPolicy::checkVocab(const fs::path &vocabDirectory) const {
  std::vector<std::string> normalized;
  for (const auto &[name, boundaries] : preprocessor_.vocab()) normalized.push_back(name);
  const auto vocab = readVocab(vocabDirectory, normalized);
  if (FeaturePreprocessor::fingerprint(preprocessor_.featureNames(), vocab) != vocabFingerprint())
    throw InputError(describeInputProblem(
        vocabDirectory.string(), "",
        "this vocab differs from the one the policy was trained with (" + vocabFingerprint() + ")"));
}

}  // namespace mlgo
