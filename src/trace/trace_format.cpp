#include "mlgo/trace/trace_format.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "mlgo/support/errors.h"
#include "mlgo/support/varint.h"

namespace mlgo::trace {

void ModuleTrace::addDecision(const int64_t *words, int64_t defaultDecision, int64_t action) {
  features.insert(features.end(), words, words + featureCount);
  defaultDecisions.push_back(static_cast<int8_t>(defaultDecision));
  actions.push_back(static_cast<uint8_t>(action));
}

void ModuleTrace::addContinuousDecision(const int64_t *words, float defaultValue, float value) {
  features.insert(features.end(), words, words + featureCount);
  defaultValues.push_back(defaultValue);
  values.push_back(value);
}

namespace {

/// The features of one decision: int64 elements as zigzag varints, float
/// elements as their 4 bytes (for int64 scalars: one varint a feature).
void encodeFeatures(std::string &out, const int64_t *words, size_t featureCount, const DecisionSpec *spec) {
  if (!spec) {
    for (size_t f = 0; f < featureCount; ++f) putZigzag(out, words[f]);
    return;
  }
  const char *bytes = reinterpret_cast<const char *>(words);
  for (const FeatureTensor &tensor : spec->features) {
    if (tensor.type == FeatureTensor::Type::Float) {
      out.append(bytes, tensor.bytes());
    } else {
      for (size_t e = 0; e < tensor.elements(); ++e) {
        int64_t value;
        std::memcpy(&value, bytes + e * sizeof value, sizeof value);
        putZigzag(out, value);
      }
    }
    bytes += tensor.bytes();
  }
}

void decodeFeatures(ByteReader &reader, int64_t *words, size_t featureCount, const DecisionSpec *spec) {
  if (!spec) {
    for (size_t f = 0; f < featureCount; ++f) words[f] = reader.zigzag();
    return;
  }
  char *bytes = reinterpret_cast<char *>(words);
  for (const FeatureTensor &tensor : spec->features) {
    if (tensor.type == FeatureTensor::Type::Float) {
      for (size_t b = 0; b < tensor.bytes(); ++b) bytes[b] = static_cast<char>(reader.byte());
    } else {
      for (size_t e = 0; e < tensor.elements(); ++e) {
        const int64_t value = reader.zigzag();
        std::memcpy(bytes + e * sizeof value, &value, sizeof value);
      }
    }
    bytes += tensor.bytes();
  }
}

bool continuous(const DecisionSpec *spec) { return spec && spec->kind() == DecisionKind::Continuous; }

void putFloat(std::string &out, float value) { out.append(reinterpret_cast<const char *>(&value), sizeof value); }

float takeFloat(ByteReader &reader) {
  char bytes[sizeof(float)];
  for (char &byte : bytes) byte = static_cast<char>(reader.byte());
  float value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

/// Each decision takes at least this many bytes of a record.
size_t minimumDecisionBytes(size_t featureCount, const DecisionSpec *spec) {
  if (!spec) return featureCount + 2;
  size_t bytes = continuous(spec) ? 2 * sizeof(float) : 2;
  for (const FeatureTensor &tensor : spec->features)
    bytes += tensor.type == FeatureTensor::Type::Float ? tensor.bytes() : tensor.elements();
  return bytes;
}

ModuleTrace decode(std::string_view bytes, size_t featureCount, const DecisionSpec *spec) {
  const int64_t actions = spec ? spec->actions : 2;
  ByteReader reader(bytes);
  ModuleTrace module;
  module.featureCount = featureCount;
  module.spec = spec;
  module.position = reader.varint();
  module.name = std::string(reader.bytes());
  module.nativeSize = reader.varint();
  const uint64_t decisions = reader.varint();
  // Reject counts the record cannot hold before allocating for them.
  if (decisions > bytes.size() / minimumDecisionBytes(featureCount, spec))
    throw ByteReader::DecodeError("decision count too large");
  module.features.assign(decisions * featureCount, 0);
  const bool realValued = continuous(spec);
  if (realValued) {
    module.defaultValues.reserve(decisions);
    module.values.reserve(decisions);
  } else {
    module.defaultDecisions.reserve(decisions);
    module.actions.reserve(decisions);
  }
  for (uint64_t d = 0; d < decisions; ++d) {
    decodeFeatures(reader, module.features.data() + d * featureCount, featureCount, spec);
    if (realValued) {
      module.defaultValues.push_back(takeFloat(reader));
      module.values.push_back(takeFloat(reader));
      continue;
    }
    const uint8_t defaultCode = reader.byte();
    const uint8_t action = reader.byte();
    if (defaultCode > actions || action >= actions) throw ByteReader::DecodeError("invalid decision value");
    module.defaultDecisions.push_back(static_cast<int8_t>(defaultCode - 1));
    module.actions.push_back(action);
  }
  if (!reader.atEnd()) throw ByteReader::DecodeError("trailing bytes after the module");
  return module;
}

}  // namespace

// Layout: position, name, native size, decision count, then per decision its
// features, the default action + 1 (0: not computed) and the action; for a
// continuous decision, the default's value (NaN: not computed) and the value,
// each 4 little-endian bytes of a float.
std::string encodeModule(const ModuleTrace &module) {
  std::string out;
  out.reserve(32 + module.name.size() + module.decisions() * (module.featureCount + 2));
  putVarint(out, module.position);
  putBytes(out, module.name);
  putVarint(out, module.nativeSize);
  putVarint(out, module.decisions());
  const bool realValued = continuous(module.spec);
  for (size_t d = 0; d < module.decisions(); ++d) {
    encodeFeatures(out, module.featuresOf(d), module.featureCount, module.spec);
    if (realValued) {
      putFloat(out, module.defaultValues[d]);
      putFloat(out, module.values[d]);
      continue;
    }
    out.push_back(static_cast<char>(module.defaultDecisions[d] + 1));
    out.push_back(static_cast<char>(module.actions[d]));
  }
  return out;
}

ModuleTrace decodeModule(std::string_view bytes, size_t featureCount) { return decode(bytes, featureCount, nullptr); }

const DecisionSpec *recordedSpec(const DecisionSpec &spec) {
  switch (spec.kind()) {
    case DecisionKind::YesNo: return nullptr;
    case DecisionKind::Position:
    case DecisionKind::Continuous: return &spec;
  }
  throw std::logic_error("unknown decision kind");
}

ModuleTrace decodeModule(std::string_view bytes, const DecisionSpec &spec) {
  const DecisionSpec *recorded = recordedSpec(spec);
  return decode(bytes, recorded ? spec.decisionWords() : spec.features.size(), recorded);
}

nlohmann::json traceHeader(const std::string &problem, const DecisionSpec &spec) {
  return {{"format", kFormatName},
          {"version", kFormatVersion},
          {"problem", problem},
          {"feature_names", spec.names()},
          {"decision_spec", spec.toJson()}};
}

std::string shardFileName(const std::string &problem, size_t shard, size_t shards) {
  char name[96];
  std::snprintf(name, sizeof name, "%s-%05zu-of-%05zu%s", problem.c_str(), shard, shards, kShardSuffix);
  return name;
}

}  // namespace mlgo::trace
