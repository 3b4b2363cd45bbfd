#pragma once
// Training configurations are JSON objects validated against a schema: every
// key is declared with a type and a default (settings_schema.h declares them,
// typed). An unknown key or a wrong type is an error naming the key (never
// silently ignored). A config is resolved in layers, each over the one
// before: the built-in defaults, the problem's file, --config, then each
// `--set key=value`; the resolved config records which layer set each key.
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlgo {

class ConfigSchema {
 public:
  enum class Type { Integer, Number, Boolean, String, IntegerList, StringList };
  struct Key {
    std::string name;
    Type type;
    nlohmann::json defaultValue;
    std::string help;
    /// The allowed range of a number, or of each item of a list; values
    /// outside it (and non-finite ones) are refused before training starts,
    /// so a learning rate of -1 never reaches LibTorch.
    double low = -std::numeric_limits<double>::max();
    double high = std::numeric_limits<double>::max();
    bool lowExclusive = false, highExclusive = false;
    /// The values a string may take (any when empty).
    std::vector<std::string> allowed;
    /// Whether a resumed run may change it: how long the run lasts, not what it learns.
    bool resumable = false;
  };

  /// A config file layered over the defaults, and how --print-config names
  /// its layer ("problem file", "--config").
  struct File {
    std::filesystem::path path;
    std::string layer;
  };
  /// Every key's value, and the layer that set it: "default", a File's
  /// layer, or "--set".
  struct Resolved {
    nlohmann::json values;
    std::map<std::string, std::string> origins;
  };

  ConfigSchema &add(std::string name, Type type, nlohmann::json defaultValue, std::string help);
  /// Restricts the key added last to [low, high] ((low, high] when `lowExclusive`).
  ConfigSchema &within(double low, double high, bool lowExclusive = false, bool highExclusive = false);
  /// Restricts the key added last to (0, high].
  ConfigSchema &positive(double high) { return within(0, high, true); }
  /// Restricts the string key added last to `allowed`.
  ConfigSchema &oneOf(std::vector<std::string> allowed);
  /// Lets a resumed run change the key added last.
  ConfigSchema &resumable();
  const std::vector<Key> &keys() const { return keys_; }
  const Key *find(const std::string &name) const;

  /// Defaults, then each file in order (InputError naming the file and key),
  /// then each "key=value" override (UsageError naming the key).
  Resolved resolveLayers(const std::vector<File> &files, const std::vector<std::string> &overrides) const;
  /// resolveLayers with at most one file (as --config): every key's value.
  nlohmann::json resolve(const std::optional<std::filesystem::path> &file,
                         const std::vector<std::string> &overrides) const;
  /// The defaults as a config file would hold them.
  nlohmann::json defaults() const;

 private:
  std::vector<Key> keys_;
};

/// The keys whose value in `config` differs from a saved run's (`saved`; a
/// key it lacks had its default) among those a resumed run may not change.
std::vector<std::string> changedOnResume(const ConfigSchema &schema, const nlohmann::json &saved,
                                         const nlohmann::json &config);
/// "a, b and c": the keys a resumed run may change, for messages.
std::string resumableKeys(const ConfigSchema &schema);

/// Checks `value` against `type`; returns the reason it does not fit, or "".
std::string checkConfigType(const nlohmann::json &value, ConfigSchema::Type type);
/// Checks `value` against the key's type and range; the reason, or "".
std::string checkConfigValue(const nlohmann::json &value, const ConfigSchema::Key &key);

}  // namespace mlgo
