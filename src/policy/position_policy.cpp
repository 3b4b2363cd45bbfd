#include "mlgo/policy/position_policy.h"
#include "mlgo/policy/sampling_policy.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "mlgo/policy/policy_directory.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
constexpr const char *kInputTransform = "signed-log1p-z-score";
}  // namespace

float signedLog1p(float x) { return std::copysign(std::log1p(std::fabs(x)), x); }

PositionPolicy::PositionPolicy(std::string problem, trace::DecisionSpec spec, std::vector<float> means,
                               std::vector<float> stddevs, DenseNetwork network)
    : problem_(std::move(problem)),
      spec_(std::move(spec)),
      layout_(spec_),
      means_(std::move(means)),
      stddevs_(std::move(stddevs)),
      network_(std::move(network)) {
  if (means_.size() != layout_.width() || stddevs_.size() != layout_.width())
    throw UsageError("position policy: " + std::to_string(layout_.width()) + " inputs need as many means and stddevs");
  if (network_.inputs() != layout_.width() || network_.outputs() != 1)
    throw UsageError("position policy: the network must map " + std::to_string(layout_.width()) +
                     " inputs to 1 score");
}

void PositionPolicy::inputs(const int64_t *words, float *out, uint8_t *mask) const {
  layout_.rawInputs(words, out, mask);
  const size_t width = layout_.width();
  for (size_t p = 0; p < layout_.positions(); ++p)
    for (size_t i = 0; i < width; ++i) {
      float &x = out[p * width + i];
      x = (signedLog1p(x) - means_[i]) / (stddevs_[i] + 1e-6f);
    }
}

void PositionPolicy::scores(const int64_t *words, float *out) const {
  thread_local std::vector<float> buffer;
  thread_local std::vector<uint8_t> mask;
  buffer.resize(layout_.positions() * layout_.width());
  mask.resize(layout_.positions());
  inputs(words, buffer.data(), mask.data());
  for (size_t p = 0; p < layout_.positions(); ++p) {
    if (mask[p])
      network_.forward(buffer.data() + p * layout_.width(), out + p);
    else
      out[p] = -std::numeric_limits<float>::infinity();
  }
}

int64_t PositionPolicy::decide(const int64_t *words) const {
  thread_local std::vector<float> scored;
  scored.resize(layout_.positions());
  scores(words, scored.data());
  return greedyAction(scored.data(), scored.size());
}

json PositionPolicy::metadata() const {
  return policy_directory::networkPolicyMetadata(problem_, kKind, spec_,
                                                 {{"transform", kInputTransform},
                                                  {"input_names", layout_.inputNames()},
                                                  {"means", means_},
                                                  {"stddevs", stddevs_}},
                                                 network_, training);
}

void PositionPolicy::save(const fs::path &directory) const {
  policy_directory::write(policy_directory::startPartial(directory), directory, metadata(), network_.layersToJson());
}

std::string PositionPolicy::serialize() const { return policy_directory::serializeNetworkPolicy(metadata(), network_); }

PositionPolicy PositionPolicy::load(const fs::path &given, const std::string &problem,
                                    const trace::DecisionSpec &spec) {
  return policy_directory::loadNetworkPolicy<PositionPolicy>(given, problem, kKind, spec, &fromJson);
}

PositionPolicy PositionPolicy::fromJson(const json &metadata, const json &layersJson, const fs::path &metadataPath,
                                        const fs::path &weightsPath) {
  auto fail = [&](const std::string &entry, const std::string &what) {
    return InputError(describeInputProblem(metadataPath.string(), entry, what));
  };
  if (!metadata.contains("decision_spec")) throw fail("decision_spec", "missing");
  trace::DecisionSpec spec = trace::DecisionSpec::fromJson(metadata["decision_spec"], metadataPath.string());
  const PositionLayout layout(spec);
  const json pre = metadata.value("preprocessing", json::object());
  if (policy_directory::textField(pre, "transform") != kInputTransform)
    throw fail("preprocessing.transform", std::string("expected ") + kInputTransform);
  std::vector<float> means = policy_directory::preprocessingFloats(pre, "means", layout.width(), metadataPath);
  std::vector<float> stddevs = policy_directory::preprocessingFloats(pre, "stddevs", layout.width(), metadataPath);
  PositionPolicy policy(policy_directory::textField(metadata, "problem"), std::move(spec), std::move(means),
                        std::move(stddevs),
                        policy_directory::readNetwork(metadata, layersJson, metadataPath, weightsPath, layout.width()));
  policy.training = metadata.value("training", json::object());
  return policy;
}

PositionPolicy PositionPolicy::deserialize(std::string_view bytes) {
  return policy_directory::deserializeNetworkPolicy<PositionPolicy>(bytes, "position", &fromJson);
}

}  // namespace mlgo
