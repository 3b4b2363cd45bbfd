#pragma once
// Small readers shared by every place that takes text or JSON from a user, so
// they all report problems the same way (file, entry, what is wrong).
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mlgo {

/// How deep arrays and objects may nest in any JSON text mlgo reads. Far
/// deeper than any file of mlgo's (a few levels), and shallow enough that
/// copying, comparing and writing a value, which nlohmann's library does
/// recursively, can never exhaust the stack: every parser below stops at it,
/// so no deeper value is ever built.
constexpr size_t kMaxJsonDepth = 256;

/// Parses a JSON file; InputError naming the file when it is missing or
/// malformed or nested deeper than kMaxJsonDepth, and the entry (e.g.
/// "modules[3]", "config.learning_rate") where the parser stopped, also for a
/// number out of range such as 1e400.
nlohmann::json readJsonFile(const std::filesystem::path &path);
/// The same for JSON text read from `where` (a file name, or a description).
/// A syntax error reads "FILE: ENTRY: not valid JSON: syntax error at line
/// L, column C: invalid literal", without the library's tag or an echo of
/// the input.
nlohmann::json parseJsonText(std::string_view text, const std::string &where);
/// Line `number` of a JSON Lines `file`: "FILE: line N: not valid JSON:
/// syntax error at column C: ...".
nlohmann::json parseJsonLine(std::string_view line, const std::string &file, size_t number);

/// Parses JSON text whose problems the caller handles itself (a log line, a
/// message): a discarded value (is_discarded()) when it is not valid JSON or
/// nested deeper than kMaxJsonDepth. Never throws for the text.
nlohmann::json parseJsonOrDiscarded(std::string_view text);

/// Checks a versioned file's "format" and "version": InputError naming the
/// file and the field otherwise, e.g. "FILE: version: a coreset of version 2;
/// this mlgo reads version 1" (`what` is "a coreset"), plus `hint` if any.
void requireFormat(const nlohmann::json &document, const std::string &file, const std::string &format, int version,
                   const std::string &what, const std::string &hint = "");

/// What a JSON library error says, in mlgo's words: "not valid JSON: syntax
/// error at line L, column C: ...", "must be a number, not a string", "the
/// entry \"metric\" is missing"; never the library's
/// "[json.exception.parse_error.101]" tag or its "last read: ..." echo of the
/// input. Other exceptions: errorText (mlgo/support/errors.h).
std::string jsonErrorText(const std::exception &error);

/// Whether `value` holds arrays or objects nested more than `levels` deep
/// (a scalar is 0 deep). Walks without recursion: nlohmann's parser reads
/// any depth without recursing, but its copy, comparison and dump recurse
/// once per level, and 200,000 levels overflow the stack.
bool jsonNestedDeeperThan(const nlohmann::json &value, size_t levels);

/// `value` as JSON text for a message, cut to `maxChars` ("..." at the end),
/// and without dumping a value nested too deep to dump safely ("[...]").
std::string shortJsonText(const nlohmann::json &value, size_t maxChars = 60);

/// Calls `visit(lineNumber, line)` for each line of `text`, trailing white
/// space and '\r' removed; lines numbered from 1.
void forEachLine(std::string_view text, const std::function<void(size_t, std::string_view)> &visit);

}  // namespace mlgo
