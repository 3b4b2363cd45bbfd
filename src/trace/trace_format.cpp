#include "mlgo/trace/trace_format.h"

#include <cstdio>

#include "mlgo/support/varint.h"

namespace mlgo::trace {

void ModuleTrace::addDecision(const int64_t *values, int64_t defaultDecision, bool action) {
  features.insert(features.end(), values, values + featureCount);
  defaultDecisions.push_back(static_cast<int8_t>(defaultDecision));
  actions.push_back(action ? 1 : 0);
}

// Layout: position, name, native size, decision count, then per decision its
// features (zigzag varints), the default decision (+1: 0 unknown, 1 no,
// 2 yes) and the action.
std::string encodeModule(const ModuleTrace &module) {
  std::string out;
  out.reserve(32 + module.name.size() + module.decisions() * (module.featureCount + 2));
  putVarint(out, module.position);
  putBytes(out, module.name);
  putVarint(out, module.nativeSize);
  putVarint(out, module.decisions());
  for (size_t d = 0; d < module.decisions(); ++d) {
    const int64_t *values = module.featuresOf(d);
    for (size_t f = 0; f < module.featureCount; ++f) putZigzag(out, values[f]);
    out.push_back(static_cast<char>(module.defaultDecisions[d] + 1));
    out.push_back(static_cast<char>(module.actions[d]));
  }
  return out;
}

ModuleTrace decodeModule(std::string_view bytes, size_t featureCount) {
  ByteReader reader(bytes);
  ModuleTrace module;
  module.featureCount = featureCount;
  module.position = reader.varint();
  module.name = std::string(reader.bytes());
  module.nativeSize = reader.varint();
  const uint64_t decisions = reader.varint();
  // Each decision takes at least featureCount + 2 bytes: reject counts the
  // record cannot hold before allocating for them.
  if (decisions > bytes.size() / (featureCount + 2)) throw ByteReader::DecodeError("decision count too large");
  module.features.reserve(decisions * featureCount);
  module.defaultDecisions.reserve(decisions);
  module.actions.reserve(decisions);
  for (uint64_t d = 0; d < decisions; ++d) {
    for (size_t f = 0; f < featureCount; ++f) module.features.push_back(reader.zigzag());
    const uint8_t defaultCode = reader.byte();
    const uint8_t action = reader.byte();
    if (defaultCode > 2 || action > 1) throw ByteReader::DecodeError("invalid decision value");
    module.defaultDecisions.push_back(static_cast<int8_t>(defaultCode) - 1);
    module.actions.push_back(action);
  }
  if (!reader.atEnd()) throw ByteReader::DecodeError("trailing bytes after the module");
  return module;
}

std::string shardFileName(const std::string &problem, size_t shard, size_t shards) {
  char name[96];
  std::snprintf(name, sizeof name, "%s-%05zu-of-%05zu%s", problem.c_str(), shard, shards, kShardSuffix);
  return name;
}

}  // namespace mlgo::trace
