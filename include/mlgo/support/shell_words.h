#pragma once
// Splits a shell command string the way a POSIX shell does (quotes and
// backslashes), for compile_commands.json entries that give "command" rather
// than "arguments".
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// Returns the words, or std::nullopt when a quote is left open.
std::optional<std::vector<std::string>> splitShellWords(const std::string &command);

}  // namespace mlgo
