#include "mlgo/support/text_input.h"

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace {

/// Thrown by the parser's callback when arrays and objects open deeper than
/// kMaxJsonDepth: the parse stops there, so no deep value is ever built.
struct NestedTooDeep {};

const std::string kTooDeep = "nested deeper than the " + std::to_string(kMaxJsonDepth) + " levels mlgo reads";

/// Where the parser is in the document, as "key.sub[3]": kept up to date by
/// nlohmann's parser callback so an error can name the entry it happened in.
class JsonPathTracker {
 public:
  bool onEvent(nlohmann::json::parse_event_t event, const nlohmann::json &parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        startElement();
        frames_.push_back({event == Event::array_start, -1, {}});
        if (frames_.size() > kMaxJsonDepth) throw NestedTooDeep{};
        break;
      case Event::key:
        if (!frames_.empty()) frames_.back().key = parsed.get<std::string>();
        break;
      case Event::value:
        startElement();
        break;
      case Event::object_end:
      case Event::array_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
    }
    return true;
  }

  /// The entry being parsed; in an array, the element after the last complete
  /// one. A deep one names its first and last levels: a message stays a line.
  std::string path() const {
    constexpr size_t kShownLevels = 4;
    std::string text;
    for (size_t i = 0; i < frames_.size(); ++i) {
      if (i == kShownLevels && frames_.size() > 3 * kShownLevels) {
        const size_t skipped = frames_.size() - 2 * kShownLevels;
        text += "[... " + std::to_string(skipped) + " levels ...]";
        i += skipped - 1;
        continue;
      }
      const Frame &frame = frames_[i];
      if (frame.isArray) {
        const long index = i + 1 == frames_.size() ? frame.index + 1 : frame.index;
        text += "[" + std::to_string(index) + "]";
      } else if (!frame.key.empty()) {
        text += (text.empty() ? "" : ".") + frame.key;
      }
    }
    return text;
  }

 private:
  struct Frame {
    bool isArray = false;
    long index = -1;
    std::string key;
  };
  void startElement() {
    if (!frames_.empty() && frames_.back().isArray) ++frames_.back().index;
  }
  std::vector<Frame> frames_;
};

/// What the library says, without its "[json.exception.parse_error.101] " tag.
std::string withoutLibraryTag(std::string text) {
  if (text.rfind("[json.exception.", 0) == 0 && text.find("] ") != std::string::npos)
    text = text.substr(text.find("] ") + 2);
  return text;
}

/// "an object", "a number", ... for the library's type names.
std::string withArticle(const std::string &type) {
  if (type == "null") return type;
  return (type == "object" || type == "array" ? "an " : "a ") + type;
}

/// The parser's "parse error at line L, column C: syntax error while
/// parsing value - invalid literal; last read: '...'; expected ..." as
/// "syntax error at line L, column C: invalid literal; expected ...". The
/// echo of the input goes: it may be a long line, or a secret.
std::string syntaxErrorText(std::string text, bool oneLine) {
  std::string position;
  const std::string prefix = "parse error";
  if (const size_t colon = text.find(": "); text.rfind(prefix, 0) == 0 && colon != std::string::npos) {
    position = text.substr(prefix.size(), colon - prefix.size());
    text = text.substr(colon + 2);
  }
  if (oneLine && position.rfind(" at line 1, column ", 0) == 0) position = " at column " + position.substr(19);
  if (text.rfind("syntax error", 0) == 0) {
    const size_t dash = text.find(" - ");
    const size_t colon = text.find(": ");
    const size_t cut = dash != std::string::npos ? dash + 3 : colon != std::string::npos ? colon + 2 : text.size();
    text = text.substr(cut);
  }
  if (const size_t echo = text.find("; last read: "); echo != std::string::npos) {
    const size_t expected = text.rfind("; expected ");
    text = text.substr(0, echo) + (expected == std::string::npos || expected < echo ? "" : text.substr(expected));
  }
  return "not valid JSON: syntax error" + position + (text.empty() ? "" : ": " + text);
}

/// type_error and out_of_range: the entry's problem in mlgo's words.
std::string accessErrorText(const nlohmann::json::exception &error, const std::string &text) {
  if (error.id == 302 && text.rfind("type must be ", 0) == 0 && text.find(", but is ") != std::string::npos) {
    const size_t but = text.find(", but is ");
    return "must be " + withArticle(text.substr(13, but - 13)) + ", not " + withArticle(text.substr(but + 9));
  }
  const std::string notFound = "' not found";
  if (error.id == 403 && text.rfind("key '", 0) == 0 && text.size() >= 5 + notFound.size() &&
      text.compare(text.size() - notFound.size(), notFound.size(), notFound) == 0)
    return "the entry \"" + text.substr(5, text.size() - 5 - notFound.size()) + "\" is missing";
  if (error.id == 406 && text.rfind("number overflow parsing '", 0) == 0)
    return "the number " + text.substr(25, text.size() - 26) + " is out of range (number overflow)";
  return text;
}

/// A JSON library error in mlgo's words; `oneLine`: the parsed text was one
/// line (of a JSON Lines file), so only the column is named.
std::string describeJsonError(const std::exception &error, bool oneLine) {
  const std::string text = withoutLibraryTag(error.what());
  if (dynamic_cast<const nlohmann::json::parse_error *>(&error)) return syntaxErrorText(text, oneLine);
  if (const auto *json = dynamic_cast<const nlohmann::json::exception *>(&error)) return accessErrorText(*json, text);
  return errorText(error);
}

}  // namespace

std::string jsonErrorText(const std::exception &error) { return describeJsonError(error, false); }

namespace {

/// `entry` (a line, say) and the entry inside the document the parser is at.
std::string entryOf(const std::string &entry, const JsonPathTracker &tracker) {
  const std::string inside = tracker.path();
  return entry.empty() ? inside : inside.empty() ? entry : entry + ": " + inside;
}

/// Parses `text`; InputError naming `file`, then `entry` (if any) and the
/// entry inside the document where the parser stopped.
nlohmann::json parseNaming(std::string_view text, const std::string &file, const std::string &entry, bool oneLine) {
  JsonPathTracker tracker;
  try {
    return nlohmann::json::parse(
        text, [&](int, nlohmann::json::parse_event_t event, nlohmann::json &parsed) {
          return tracker.onEvent(event, parsed);
        });
  } catch (const nlohmann::json::exception &e) {
    // Syntax errors and numbers out of range (1e400) alike: the parser says
    // what and where; the tracker says in which entry.
    throw InputError(describeInputProblem(file, entryOf(entry, tracker), describeJsonError(e, oneLine)));
  } catch (const NestedTooDeep &) {
    throw InputError(describeInputProblem(file, entryOf(entry, tracker), kTooDeep));
  }
}

}  // namespace

nlohmann::json parseJsonText(std::string_view text, const std::string &where) {
  return parseNaming(text, where, "", false);
}

nlohmann::json parseJsonLine(std::string_view line, const std::string &file, size_t number) {
  return parseNaming(line, file, "line " + std::to_string(number), true);
}

nlohmann::json readJsonFile(const std::filesystem::path &path) { return parseJsonText(readFile(path), path.string()); }

nlohmann::json parseJsonOrDiscarded(std::string_view text) {
  size_t depth = 0;
  try {
    return nlohmann::json::parse(
        text,
        [&](int, nlohmann::json::parse_event_t event, nlohmann::json &) {
          using Event = nlohmann::json::parse_event_t;
          if (event == Event::object_start || event == Event::array_start) {
            if (++depth > kMaxJsonDepth) throw NestedTooDeep{};
          } else if (event == Event::object_end || event == Event::array_end) {
            --depth;
          }
          return true;
        },
        /*allow_exceptions=*/false);
  } catch (const NestedTooDeep &) {
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
}

bool jsonNestedDeeperThan(const nlohmann::json &value, size_t levels) {
  std::vector<std::pair<const nlohmann::json *, size_t>> pending{{&value, 0}};
  while (!pending.empty()) {
    const auto [element, depth] = pending.back();
    pending.pop_back();
    if (!element->is_structured()) continue;
    if (depth + 1 > levels) return true;
    for (const nlohmann::json &child : *element) pending.emplace_back(&child, depth + 1);
  }
  return false;
}

std::string shortJsonText(const nlohmann::json &value, size_t maxChars) {
  // Deep enough to say what the value is, shallow enough that dump() cannot
  // exhaust the stack.
  constexpr size_t kDumpableLevels = 64;
  if (jsonNestedDeeperThan(value, kDumpableLevels)) return value.is_array() ? "[...]" : "{...}";
  std::string text = value.dump();
  return text.size() > maxChars && maxChars >= 3 ? text.substr(0, maxChars - 3) + "..." : text;
}

void forEachLine(std::string_view text, const std::function<void(size_t, std::string_view)> &visit) {
  size_t start = 0, number = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    visit(++number, line);
    start = end + 1;
  }
}

void requireFormat(const nlohmann::json &document, const std::string &file, const std::string &format, int version,
                   const std::string &what, const std::string &hint) {
  if (!document.is_object() || !document.contains("format") || document["format"] != format)
    throw InputError(describeInputProblem(file, "format", "not " + what + " (format " + format + ")"));
  if (!document.contains("version") || document["version"] != version)
    throw InputError(describeInputProblem(
        file, "version",
        what + " of version " + (document.contains("version") ? shortJsonText(document["version"]) : "none") +
            "; this mlgo reads version " + std::to_string(version) + (hint.empty() ? "" : " (" + hint + ")")));
}

}  // namespace mlgo
