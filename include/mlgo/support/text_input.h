#pragma once
// Small readers shared by every place that takes text or JSON from a user, so
// they all report problems the same way (file, entry, what is wrong).
#include <filesystem>
#include <functional>
#include <regex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mlgo {

/// Parses a JSON file; InputError naming the file when it is missing or
/// malformed, and the entry (e.g. "modules[3]", "config.learning_rate") where
/// the parser stopped, also for a number out of range such as 1e400.
nlohmann::json readJsonFile(const std::filesystem::path &path);
/// The same for JSON text read from `where` (a file name, or a description).
nlohmann::json parseJsonText(std::string_view text, const std::string &where);

/// Calls `visit(lineNumber, line)` for each line of `text`, trailing white
/// space and '\r' removed; lines numbered from 1.
void forEachLine(std::string_view text, const std::function<void(size_t, std::string_view)> &visit);

/// Compiles a regex given on the command line; UsageError naming the flag.
std::regex compileUserRegex(const std::string &flag, const std::string &pattern);

}  // namespace mlgo
