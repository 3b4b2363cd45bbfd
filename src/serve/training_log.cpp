#include "mlgo/serve/training_log.h"

#include <map>

#include <nlohmann/json.hpp>

#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo::serve {

using nlohmann::json;

namespace {

/// Element sizes of the types LLVM's TensorSpec knows (TensorSpec.h).
const std::map<std::string, size_t> &elementSizes() {
  static const std::map<std::string, size_t> sizes{
      {"float", 4}, {"double", 8},   {"int8_t", 1},  {"uint8_t", 1},  {"int16_t", 2},
      {"uint16_t", 2}, {"int32_t", 4}, {"uint32_t", 4}, {"int64_t", 8}, {"uint64_t", 8}};
  return sizes;
}

TensorSpecification parseSpec(const json &spec, const std::string &source, const std::string &where) {
  TensorSpecification parsed;
  try {
    parsed.name = spec.at("name").get<std::string>();
    parsed.type = spec.at("type").get<std::string>();
    parsed.shape = spec.at("shape").get<std::vector<int64_t>>();
  } catch (const json::exception &) {
    throw InputError(describeInputProblem(source, where, "a tensor spec needs \"name\", \"type\" and \"shape\""));
  }
  auto size = elementSizes().find(parsed.type);
  if (size == elementSizes().end())
    throw InputError(describeInputProblem(source, where, "unknown tensor type \"" + parsed.type + "\""));
  parsed.elementSize = size->second;
  for (int64_t dimension : parsed.shape)
    if (dimension <= 0 || dimension > (1 << 20))
      throw InputError(describeInputProblem(source, where, "tensor " + parsed.name + " has a bad shape"));
  return parsed;
}

json parseLine(const std::string &line, const std::string &source, const char *what) {
  json parsed = parseJsonOrDiscarded(line);
  if (!parsed.is_discarded()) return parsed;
  std::string shown = line.substr(0, 80);
  for (char &c : shown)
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  throw InputError(describeInputProblem(source, what, "not JSON: \"" + shown + "\""));
}

json specToJson(const TensorSpecification &spec) {
  return {{"name", spec.name}, {"port", 0}, {"type", spec.type}, {"shape", spec.shape}};
}

}  // namespace

size_t TensorSpecification::elementCount() const {
  size_t count = 1;
  for (int64_t dimension : shape) count *= static_cast<size_t>(dimension);
  return count;
}

size_t LogHeader::observationBytes() const {
  size_t bytes = 0;
  for (const TensorSpecification &spec : features) bytes += spec.byteSize();
  return bytes;
}

LogHeader parseLogHeader(const std::string &line, const std::string &source) {
  const json header = parseLine(line, source, "header");
  if (!header.is_object() || !header.contains("features") || !header["features"].is_array())
    throw InputError(describeInputProblem(source, "header", "no \"features\" list: not an LLVM training log"));
  LogHeader parsed;
  for (size_t i = 0; i < header["features"].size(); ++i)
    parsed.features.push_back(parseSpec(header["features"][i], source, "header: feature " + std::to_string(i)));
  if (header.contains("advice")) parsed.advice = parseSpec(header["advice"], source, "header: advice");
  return parsed;
}

LogEvent parseLogEvent(const std::string &line, const std::string &source) {
  const json event = parseLine(line, source, "event");
  try {
    if (event.contains("observation")) return {LogEvent::Kind::Observation, "", event["observation"].get<int64_t>()};
    if (event.contains("context")) return {LogEvent::Kind::Context, event["context"].get<std::string>(), 0};
    if (event.contains("outcome")) return {LogEvent::Kind::Outcome, "", event["outcome"].get<int64_t>()};
  } catch (const json::exception &) {
  }
  throw InputError(describeInputProblem(source, "event", "expected a context, observation or outcome line"));
}

std::string formatLogHeader(const std::vector<TensorSpecification> &features,
                            const std::optional<TensorSpecification> &advice) {
  json header{{"features", json::array()}};
  for (const TensorSpecification &spec : features) header["features"].push_back(specToJson(spec));
  if (advice) header["advice"] = specToJson(*advice);
  return header.dump();
}

TensorSpecification scalarInt64(const std::string &name) { return {name, "int64_t", {1}, 8}; }

}  // namespace mlgo::serve
