#include "mlgo/training/shared/config_schema.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo {

using nlohmann::json;

ConfigSchema &ConfigSchema::add(std::string name, Type type, json defaultValue, std::string help) {
  keys_.push_back({std::move(name), type, std::move(defaultValue), std::move(help)});
  return *this;
}

ConfigSchema &ConfigSchema::within(double low, double high, bool lowExclusive, bool highExclusive) {
  Key &key = keys_.back();
  key.low = low;
  key.high = high;
  key.lowExclusive = lowExclusive;
  key.highExclusive = highExclusive;
  return *this;
}

ConfigSchema &ConfigSchema::oneOf(std::vector<std::string> allowed) {
  keys_.back().allowed = std::move(allowed);
  return *this;
}

ConfigSchema &ConfigSchema::resumable() {
  keys_.back().resumable = true;
  return *this;
}

std::vector<std::string> changedOnResume(const ConfigSchema &schema, const json &saved, const json &config) {
  std::vector<std::string> changed;
  for (const ConfigSchema::Key &key : schema.keys()) {
    if (key.resumable || !config.contains(key.name)) continue;
    if (saved.value(key.name, key.defaultValue) != config.at(key.name)) changed.push_back(key.name);
  }
  return changed;
}

std::string resumableKeys(const ConfigSchema &schema) {
  std::vector<std::string> names;
  for (const ConfigSchema::Key &key : schema.keys())
    if (key.resumable) names.push_back(key.name);
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return text;
}

const ConfigSchema::Key *ConfigSchema::find(const std::string &name) const {
  for (const Key &key : keys_)
    if (key.name == name) return &key;
  return nullptr;
}

json ConfigSchema::defaults() const {
  json out = json::object();
  for (const Key &key : keys_) out[key.name] = key.defaultValue;
  return out;
}

std::string checkConfigType(const json &value, ConfigSchema::Type type) {
  switch (type) {
    case ConfigSchema::Type::Integer:
      return value.is_number_integer() ? "" : "must be an integer";
    case ConfigSchema::Type::Number:
      return value.is_number() ? "" : "must be a number";
    case ConfigSchema::Type::Boolean:
      return value.is_boolean() ? "" : "must be true or false";
    case ConfigSchema::Type::String:
      return value.is_string() ? "" : "must be a string";
    case ConfigSchema::Type::IntegerList:
      if (!value.is_array()) return "must be a list of integers";
      for (const json &item : value)
        if (!item.is_number_integer()) return "must be a list of integers";
      return "";
    case ConfigSchema::Type::StringList:
      if (!value.is_array()) return "must be a list of strings";
      for (const json &item : value)
        if (!item.is_string()) return "must be a list of strings";
      return "";
  }
  return "unknown type";
}

namespace {

std::string formatBound(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

std::string checkRange(const json &number, const ConfigSchema::Key &key) {
  const double value = number.get<double>();
  const bool tooLow = key.lowExclusive ? !(value > key.low) : !(value >= key.low);
  const bool tooHigh = key.highExclusive ? !(value < key.high) : !(value <= key.high);
  if (std::isfinite(value) && !tooLow && !tooHigh) return "";
  return "must be in " + std::string(key.lowExclusive ? "(" : "[") + formatBound(key.low) + ", " +
         formatBound(key.high) + (key.highExclusive ? ")" : "]");
}

}  // namespace

std::string checkConfigValue(const json &value, const ConfigSchema::Key &key) {
  if (std::string why = checkConfigType(value, key.type); !why.empty()) return why;
  if (value.is_string() && !key.allowed.empty() &&
      std::find(key.allowed.begin(), key.allowed.end(), value.get<std::string>()) == key.allowed.end()) {
    std::string names;
    for (const std::string &name : key.allowed) names += (names.empty() ? "" : ", ") + name;
    return "must be one of " + names;
  }
  if (value.is_number()) return checkRange(value, key);
  if (key.type == ConfigSchema::Type::IntegerList)
    for (const json &item : value)
      if (std::string why = checkRange(item, key); !why.empty()) return "each item " + why;
  return "";
}

namespace {

/// Parses the text of a --set value for a key of `type`: JSON when it parses
/// as such, else a bare string; "40,40,20" is accepted for integer lists.
json parseOverrideValue(const std::string &text, ConfigSchema::Type type) {
  if (type == ConfigSchema::Type::String) {
    json parsed = parseJsonOrDiscarded(text);
    return parsed.is_string() ? parsed : json(text);
  }
  if (type == ConfigSchema::Type::IntegerList && !text.empty() && text.front() != '[') {
    json list = json::array();
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find(',', start);
      if (end == std::string::npos) end = text.size();
      json item = parseJsonOrDiscarded(text.substr(start, end - start));
      list.push_back(item);
      start = end + 1;
    }
    return list;
  }
  json parsed = parseJsonOrDiscarded(text);
  return parsed.is_discarded() ? json(text) : parsed;
}

}  // namespace

namespace {

/// One config file's keys over `resolved` (InputError naming the file and key).
void applyFile(const ConfigSchema &schema, const ConfigSchema::File &file, ConfigSchema::Resolved &resolved) {
  const std::string path = file.path.string();
  const json loaded = readJsonFile(file.path);
  if (!loaded.is_object()) throw InputError(describeInputProblem(path, "", "must be a JSON object"));
  for (const auto &[name, value] : loaded.items()) {
    const ConfigSchema::Key *key = schema.find(name);
    if (!key) throw InputError(describeInputProblem(path, name, "unknown config key"));
    if (std::string why = checkConfigValue(value, *key); !why.empty())
      throw InputError(describeInputProblem(path, name, why + ", got " + shortJsonText(value)));
    resolved.values[name] = value;
    resolved.origins[name] = file.layer + " " + path;
  }
}

/// One "key=value" of --set over `resolved` (UsageError naming the key).
void applyOverride(const ConfigSchema &schema, const std::string &assignment, ConfigSchema::Resolved &resolved) {
  const size_t equals = assignment.find('=');
  if (equals == std::string::npos) throw UsageError("--set " + assignment + ": expected key=value");
  const std::string name = assignment.substr(0, equals);
  const ConfigSchema::Key *key = schema.find(name);
  if (!key) {
    std::string known;
    for (const ConfigSchema::Key &k : schema.keys()) known += (known.empty() ? "" : ", ") + k.name;
    throw UsageError("--set " + name + ": unknown config key (known: " + known + ")");
  }
  json value = parseOverrideValue(assignment.substr(equals + 1), key->type);
  if (std::string why = checkConfigValue(value, *key); !why.empty()) {
    const std::string given = assignment.substr(equals + 1);
    throw UsageError("--set " + name + ": " + why + ", got " + (given.size() > 60 ? given.substr(0, 57) + "..." : given));
  }
  resolved.values[name] = value;
  resolved.origins[name] = "--set";
}

}  // namespace

ConfigSchema::Resolved ConfigSchema::resolveLayers(const std::vector<File> &files,
                                                   const std::vector<std::string> &overrides) const {
  Resolved resolved{defaults(), {}};
  for (const Key &key : keys_) resolved.origins[key.name] = "default";
  for (const File &file : files) applyFile(*this, file, resolved);
  for (const std::string &assignment : overrides) applyOverride(*this, assignment, resolved);
  return resolved;
}

json ConfigSchema::resolve(const std::optional<std::filesystem::path> &file,
                           const std::vector<std::string> &overrides) const {
  std::vector<File> files;
  if (file) files.push_back({*file, "--config"});
  return resolveLayers(files, overrides).values;
}

}  // namespace mlgo
