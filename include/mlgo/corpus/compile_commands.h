#pragma once
// Reads the object files a build produced from its compile_commands.json (or
// from a plain list of object paths) and names the module each becomes.
#include <filesystem>
#include <string>
#include <vector>

namespace mlgo {

struct ObjectEntry {
  /// Where the entry came from, for messages: "compile_commands.json: entry 12".
  std::string origin;
  std::filesystem::path objectPath;  ///< absolute or relative to the cwd
  /// The directory the compile ran in: relative paths its command line
  /// records are relative to it.
  std::filesystem::path directory;
  /// The module name in the corpus: the object's path relative to the build
  /// directory, made safe (never absolute, never escaping the corpus).
  std::string moduleName;
  /// Non-empty when the entry is unusable (no -o, no directory, ...).
  std::string problem;
};

/// Parses a compile_commands.json. Throws InputError for a file that is not a
/// JSON array; entries that are unusable come back with `problem` set.
std::vector<ObjectEntry> readCompileCommands(const std::filesystem::path &file);

/// Parses a file listing one object path per line (blank lines and lines
/// starting with '#' are ignored); relative paths are relative to the file.
std::vector<ObjectEntry> readObjectList(const std::filesystem::path &file);

/// The corpus module name for an object: relative to `buildDirectory` when it
/// is inside it, otherwise its absolute path without the leading '/'.
std::string moduleNameForObject(const std::filesystem::path &object,
                                const std::filesystem::path &buildDirectory);

}  // namespace mlgo
