#pragma once
// Splits a shell command string the way a POSIX shell does (quotes and
// backslashes), for compile_commands.json entries that give "command" rather
// than "arguments".
//
// Kept instead of clang::tooling::JSONCompilationDatabase, on purpose: clang's
// tokenizer takes an unterminated quote as the end of the last argument, so
// `clang -c 'a.c -o a.o` silently becomes a command without -o, and its loader
// rejects a whole file for one malformed entry. mlgo reports each unusable
// entry by number and extracts the rest (test "compile commands: unusable
// entries are reported, not fatal"); Windows-syntax commands, which clang's
// loader also accepts, do not occur in builds of Linux objects.
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// Returns the words, or std::nullopt when a quote is left open.
std::optional<std::vector<std::string>> splitShellWords(const std::string &command);

}  // namespace mlgo
