#include "mlgo/trace/decision_spec.h"

#include "mlgo/support/errors.h"

namespace mlgo::trace {

using nlohmann::json;

size_t FeatureTensor::elements() const {
  size_t count = 1;
  for (int64_t dimension : shape) count *= static_cast<size_t>(dimension);
  return count;
}

DecisionSpec DecisionSpec::int64Scalars(const std::vector<std::string> &names, int64_t actions) {
  DecisionSpec spec;
  for (const std::string &name : names) spec.features.push_back({name, FeatureTensor::Type::Int64, {1}});
  spec.actions = actions;
  return spec;
}

const char *decisionKindName(DecisionKind kind) {
  switch (kind) {
    case DecisionKind::YesNo: return "yes/no";
    case DecisionKind::Position: return "a position among candidates";
    case DecisionKind::Continuous: return "a continuous value";
  }
  return "";
}

DecisionSpec DecisionSpec::continuousOf(std::vector<FeatureTensor> features) {
  DecisionSpec spec;
  spec.features = std::move(features);
  spec.actions = 0;
  return spec;
}

DecisionKind DecisionSpec::kind() const {
  if (actions == 0) return DecisionKind::Continuous;
  return isInt64Scalars() && actions == 2 ? DecisionKind::YesNo : DecisionKind::Position;
}

bool DecisionSpec::isInt64Scalars() const {
  for (const FeatureTensor &feature : features)
    if (feature.type != FeatureTensor::Type::Int64 || feature.elements() != 1) return false;
  return true;
}

std::vector<std::string> DecisionSpec::names() const {
  std::vector<std::string> names;
  for (const FeatureTensor &feature : features) names.push_back(feature.name);
  return names;
}

size_t DecisionSpec::decisionBytes() const { return offsetOf(features.size()); }

size_t DecisionSpec::offsetOf(size_t index) const {
  size_t offset = 0;
  for (size_t f = 0; f < index && f < features.size(); ++f) offset += features[f].bytes();
  return offset;
}

size_t DecisionSpec::indexOf(const std::string &name) const {
  for (size_t f = 0; f < features.size(); ++f)
    if (features[f].name == name) return f;
  return features.size();
}

json DecisionSpec::toJson() const {
  json tensors = json::array();
  for (const FeatureTensor &feature : features)
    tensors.push_back({{"name", feature.name}, {"type", feature.typeName()}, {"shape", feature.shape}});
  return {{"features", tensors}, {"actions", actions}};
}

DecisionSpec DecisionSpec::fromJson(const json &value, const std::string &source) {
  auto fail = [&](const std::string &entry, const std::string &problem) {
    throw InputError(describeInputProblem(source, entry, problem));
  };
  if (!value.is_object() || !value.contains("features") || !value["features"].is_array())
    fail("features", "missing or not an array");
  const json actions = value.value("actions", json());
  if (!actions.is_number_integer() || actions.get<int64_t>() == 1 || actions.get<int64_t>() < 0 ||
      actions.get<int64_t>() > 127)
    fail("actions", "missing or not a count from 2 to 127 (0: a continuous decision)");
  DecisionSpec spec;
  spec.actions = value["actions"].get<int64_t>();
  for (size_t f = 0; f < value["features"].size(); ++f) {
    const json &tensor = value["features"][f];
    const std::string entry = "features[" + std::to_string(f) + "]";
    if (!tensor.is_object() || !tensor.contains("name") || !tensor["name"].is_string())
      fail(entry + ".name", "missing or not a string");
    FeatureTensor feature;
    feature.name = tensor["name"].get<std::string>();
    const json type = tensor.value("type", json());
    if (type == "int64_t")
      feature.type = FeatureTensor::Type::Int64;
    else if (type == "float")
      feature.type = FeatureTensor::Type::Float;
    else
      fail(entry + ".type", "expected \"int64_t\" or \"float\", got " + type.dump());
    const json shape = tensor.value("shape", json());
    if (!shape.is_array() || shape.empty()) fail(entry + ".shape", "missing or empty");
    feature.shape.clear();
    for (const json &dimension : shape) {
      if (!dimension.is_number_integer() || dimension.get<int64_t>() < 1 || dimension.get<int64_t>() > 4096)
        fail(entry + ".shape", "dimensions must be from 1 to 4096");
      feature.shape.push_back(dimension.get<int64_t>());
    }
    if (feature.elements() > 4096) fail(entry + ".shape", "more than 4096 elements");
    spec.features.push_back(std::move(feature));
  }
  return spec;
}

bool operator==(const FeatureTensor &a, const FeatureTensor &b) {
  return a.name == b.name && a.type == b.type && a.shape == b.shape;
}

bool operator==(const DecisionSpec &a, const DecisionSpec &b) {
  return a.features == b.features && a.actions == b.actions;
}

}  // namespace mlgo::trace
