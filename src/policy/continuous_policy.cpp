#include "mlgo/policy/continuous_policy.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "mlgo/policy/policy_directory.h"
#include "mlgo/policy/position_policy.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/portable_math.h"
#include "mlgo/support/text_input.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
constexpr const char *kInputTransform = "signed-log1p-z-score";
constexpr const char *kOutputTransform = "log2-1p";

bool scalarContinuous(const trace::DecisionSpec &spec) {
  if (spec.kind() != trace::DecisionKind::Continuous) return false;
  return std::all_of(spec.features.begin(), spec.features.end(),
                     [](const trace::FeatureTensor &feature) { return feature.elements() == 1; });
}
}  // namespace

ContinuousPolicy::ContinuousPolicy(std::string problem, trace::DecisionSpec spec, std::vector<float> means,
                                   std::vector<float> stddevs, TargetScale scale, DenseNetwork network)
    : problem_(std::move(problem)),
      spec_(std::move(spec)),
      means_(std::move(means)),
      stddevs_(std::move(stddevs)),
      scale_(scale),
      network_(std::move(network)) {
  if (!scalarContinuous(spec_))
    throw UsageError("continuous policy: the decisions must be real values of scalar features");
  const size_t width = spec_.features.size();
  if (means_.size() != width || stddevs_.size() != width)
    throw UsageError("continuous policy: " + std::to_string(width) + " inputs need as many means and stddevs");
  if (network_.inputs() != width || network_.outputs() != 1)
    throw UsageError("continuous policy: the network must map " + std::to_string(width) + " inputs to 1 value");
}

void ContinuousPolicy::squashedInputs(const trace::DecisionSpec &spec, const int64_t *words, float *out) {
  const char *bytes = reinterpret_cast<const char *>(words);
  for (size_t f = 0; f < spec.features.size(); ++f) {
    const char *at = bytes + spec.offsetOf(f);
    double value;
    if (spec.features[f].type == trace::FeatureTensor::Type::Float) {
      float x;
      std::memcpy(&x, at, sizeof x);
      value = x;
    } else {
      int64_t x;
      std::memcpy(&x, at, sizeof x);
      value = static_cast<double>(x);
    }
    // LLVM gives a range that must not be spilled an infinite weight.
    out[f] = std::isfinite(value) ? signedLog1p(static_cast<float>(value)) : std::copysign(100.0f, float(value));
  }
}

void ContinuousPolicy::inputs(const int64_t *words, float *out) const {
  squashedInputs(spec_, words, out);
  for (size_t f = 0; f < features(); ++f) out[f] = (out[f] - means_[f]) / (stddevs_[f] + 1e-6f);
}

float ContinuousPolicy::output(const int64_t *words) const {
  thread_local std::vector<float> buffer;
  buffer.resize(features());
  inputs(words, buffer.data());
  float output;
  network_.forward(buffer.data(), &output);
  return output;
}

double ContinuousPolicy::valueOf(double output) const {
  const double target = output * scale_.stddev + scale_.mean;
  // 2^target - 1, with mlgo's portable exp: glibc's double functions differ between CPUs.
  return std::max(0.0, portable::exp(target * kLn2) - 1.0);
}

float ContinuousPolicy::floatAnswer(const int64_t *words, double largest) const {
  const double value = decide(words);
  return static_cast<float>(largest > 0 ? std::min(value, largest) : value);
}

float ContinuousPolicy::target(double value) {
  return static_cast<float>(portable::log1p(std::max(value, 0.0)) / kLn2);
}

json ContinuousPolicy::metadata() const {
  json metadata = policy_directory::networkPolicyMetadata(
      problem_, kKind, spec_, {{"transform", kInputTransform}, {"means", means_}, {"stddevs", stddevs_}}, network_,
      training);
  metadata["output"] = {{"transform", kOutputTransform}, {"mean", scale_.mean}, {"stddev", scale_.stddev}};
  return metadata;
}

void ContinuousPolicy::save(const fs::path &directory) const {
  policy_directory::write(policy_directory::startPartial(directory), directory, metadata(), network_.layersToJson());
}

ContinuousPolicy ContinuousPolicy::load(const fs::path &given, const std::string &problem,
                                        const trace::DecisionSpec &spec) {
  return policy_directory::loadNetworkPolicy<ContinuousPolicy>(given, problem, kKind, spec, &fromJson);
}

ContinuousPolicy ContinuousPolicy::fromJson(const json &metadata, const json &layers, const fs::path &metadataPath,
                                            const fs::path &weightsPath) {
  using policy_directory::textField;
  const json output = metadata.value("output", json::object());
  if (textField(output, "transform") != kOutputTransform)
    throw InputError(
        describeInputProblem(metadataPath.string(), "output.transform", std::string("expected ") + kOutputTransform));
  TargetScale scale;
  for (auto [key, field] : {std::pair{"mean", &scale.mean}, std::pair{"stddev", &scale.stddev}}) {
    if (!output.contains(key) || !output[key].is_number() || !std::isfinite(output[key].get<double>()))
      throw InputError(
          describeInputProblem(metadataPath.string(), std::string("output.") + key, "missing or not a finite number"));
    *field = output[key].get<float>();
  }
  const json pre = metadata.value("preprocessing", json::object());
  if (textField(pre, "transform") != kInputTransform)
    throw InputError(describeInputProblem(metadataPath.string(), "preprocessing.transform",
                                          std::string("expected ") + kInputTransform));
  const trace::DecisionSpec spec = trace::DecisionSpec::fromJson(metadata["decision_spec"], metadataPath.string());
  const size_t width = spec.features.size();
  std::vector<float> means = policy_directory::preprocessingFloats(pre, "means", width, metadataPath);
  std::vector<float> stddevs = policy_directory::preprocessingFloats(pre, "stddevs", width, metadataPath);
  ContinuousPolicy policy(textField(metadata, "problem"), spec, std::move(means), std::move(stddevs), scale,
                          policy_directory::readNetwork(metadata, layers, metadataPath, weightsPath, width));
  policy.training = metadata.value("training", json::object());
  return policy;
}

std::string ContinuousPolicy::serialize() const {
  return policy_directory::serializeNetworkPolicy(metadata(), network_);
}

ContinuousPolicy ContinuousPolicy::deserialize(std::string_view bytes) {
  return policy_directory::deserializeNetworkPolicy<ContinuousPolicy>(bytes, "continuous", &fromJson);
}

}  // namespace mlgo
