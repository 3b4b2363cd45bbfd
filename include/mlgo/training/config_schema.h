#pragma once
// Training configurations are JSON objects validated against a schema: every
// key is declared with a type and a default. An unknown key or a wrong type is
// an error naming the key (never silently ignored); `--set key=value`
// overrides any key from the command line.
#include <filesystem>
#include <limits>
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
    bool lowExclusive = false;
  };

  ConfigSchema &add(std::string name, Type type, nlohmann::json defaultValue, std::string help);
  /// Restricts the key added last to [low, high] ((low, high] when `lowExclusive`).
  ConfigSchema &within(double low, double high, bool lowExclusive = false);
  /// Restricts the key added last to (0, high].
  ConfigSchema &positive(double high) { return within(0, high, true); }
  const std::vector<Key> &keys() const { return keys_; }

  /// Defaults, then the file (InputError naming the file and key), then each
  /// "key=value" override (UsageError naming the key). Returns every key.
  nlohmann::json resolve(const std::optional<std::filesystem::path> &file,
                         const std::vector<std::string> &overrides) const;
  /// The defaults as a config file would hold them.
  nlohmann::json defaults() const;

 private:
  const Key *find(const std::string &name) const;
  std::vector<Key> keys_;
};

/// Checks `value` against `type`; returns the reason it does not fit, or "".
std::string checkConfigType(const nlohmann::json &value, ConfigSchema::Type type);
/// Checks `value` against the key's type and range; the reason, or "".
std::string checkConfigValue(const nlohmann::json &value, const ConfigSchema::Key &key);

}  // namespace mlgo
