#pragma once
// Every training setting is declared once, typed: its key, the member of the
// trainer's settings struct it fills, its default, its range or allowed
// values and one line of documentation,
//
//   schema.field("batch_size", &PPOSettings::batchSize, 256, "sequences per gradient step").within(1, 1e7);
//
// The declaration is the only place a key is spelled: resolving a config
// (config_schema.h) checks values against it, and `read` turns a resolved
// config into the filled struct, so trainers read members, never keys.
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "mlgo/training/shared/config_schema.h"

namespace mlgo {

namespace settings_detail {

/// The config type a member of type `Value` is written as.
template <typename Value>
constexpr ConfigSchema::Type configTypeOf() {
  if constexpr (std::is_same_v<Value, bool>)
    return ConfigSchema::Type::Boolean;
  else if constexpr (std::is_integral_v<Value>)
    return ConfigSchema::Type::Integer;
  else if constexpr (std::is_floating_point_v<Value>)
    return ConfigSchema::Type::Number;
  else if constexpr (std::is_same_v<Value, std::string>)
    return ConfigSchema::Type::String;
  else if constexpr (std::is_same_v<Value, std::vector<std::string>>)
    return ConfigSchema::Type::StringList;
  else {
    static_assert(std::is_same_v<Value, std::vector<int64_t>>, "a setting is a number, flag, string or list");
    return ConfigSchema::Type::IntegerList;
  }
}

/// Keeps a default's braces ({40, 40, 20}) from taking part in deduction.
template <typename T>
struct Identity {
  using type = T;
};

}  // namespace settings_detail

template <typename Settings>
class SettingsSchema {
 public:
  /// A setting held as `Value` (an integer, a double, a bool, a string, or a
  /// list of integers or strings).
  template <typename Value>
  SettingsSchema &field(std::string name, Value Settings::*member,
                        typename settings_detail::Identity<Value>::type defaultValue, std::string doc) {
    keys_.add(name, settings_detail::configTypeOf<Value>(), nlohmann::json(defaultValue), std::move(doc));
    fields_.push_back({std::move(name), [member](Settings &settings, const nlohmann::json &value) {
                         settings.*member = value.get<Value>();
                       }});
    return *this;
  }

  /// A setting written as one of a few names and held as the value each names
  /// (an enum): the names are the allowed values.
  template <typename Value>
  SettingsSchema &choice(std::string name, Value Settings::*member, Value defaultValue,
                         std::vector<std::pair<std::string, Value>> names, std::string doc) {
    std::vector<std::string> allowed;
    std::string defaultName;
    for (const auto &[text, value] : names) {
      allowed.push_back(text);
      if (value == defaultValue) defaultName = text;
    }
    keys_.add(name, ConfigSchema::Type::String, defaultName, std::move(doc)).oneOf(std::move(allowed));
    fields_.push_back({std::move(name), [member, names](Settings &settings, const nlohmann::json &value) {
                         for (const auto &[text, named] : names)
                           if (text == value.get<std::string>()) settings.*member = named;
                       }});
    return *this;
  }

  /// Restricts the setting declared last to [low, high] (numbers, or each
  /// item of a list of integers).
  SettingsSchema &within(double low, double high) {
    keys_.within(low, high);
    return *this;
  }
  /// Restricts the setting declared last to (low, high): both ends excluded.
  SettingsSchema &withinOpen(double low, double high) {
    keys_.within(low, high, true, true);
    return *this;
  }
  /// Restricts the setting declared last to (0, high].
  SettingsSchema &positive(double high) {
    keys_.positive(high);
    return *this;
  }
  /// Restricts the string setting declared last to these values.
  SettingsSchema &oneOf(std::vector<std::string> allowed) {
    keys_.oneOf(std::move(allowed));
    return *this;
  }

  /// Lets a resumed run change the setting declared last.
  SettingsSchema &resumable() {
    keys_.resumable();
    return *this;
  }

  /// The untyped view: resolving files and --set, defaults, documentation.
  const ConfigSchema &keys() const { return keys_; }

  /// The settings a resolved config holds. A key the config lacks (a config
  /// saved by an older mlgo) takes its default; an unknown key or a value
  /// that does not fit its declaration is a UsageError naming the key, so a
  /// config built by hand is checked as a resolved one is.
  Settings read(const nlohmann::json &config) const {
    if (!config.is_object()) throw UsageError("a training config must be a JSON object");
    for (const auto &item : config.items())
      if (!keys_.find(item.key())) throw UsageError(item.key() + ": unknown config key");
    Settings settings;
    for (const Field &field : fields_) {
      const ConfigSchema::Key &key = *keys_.find(field.name);
      const nlohmann::json &value = config.contains(field.name) ? config.at(field.name) : key.defaultValue;
      if (std::string why = checkConfigValue(value, key); !why.empty())
        throw UsageError(field.name + ": " + why + ", got " + shortJsonText(value));
      field.assign(settings, value);
    }
    return settings;
  }

 private:
  struct Field {
    std::string name;
    std::function<void(Settings &, const nlohmann::json &)> assign;
  };
  ConfigSchema keys_;
  std::vector<Field> fields_;
};

}  // namespace mlgo
