#include "mlgo/support/text_input.h"

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace {

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

  /// The entry being parsed; in an array, the element after the last complete one.
  std::string path() const {
    std::string text;
    for (size_t i = 0; i < frames_.size(); ++i) {
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

}  // namespace

std::string jsonErrorText(const std::exception &error) {
  std::string text = error.what();
  if (text.rfind("[json.exception.", 0) == 0 && text.find("] ") != std::string::npos)
    text = text.substr(text.find("] ") + 2);
  if (const size_t echo = text.find("; last read: "); echo != std::string::npos) {
    const size_t expected = text.find("; expected ", echo);
    text = text.substr(0, echo) + (expected == std::string::npos ? "" : text.substr(expected));
  }
  return text;
}

nlohmann::json parseJsonText(std::string_view text, const std::string &where) {
  JsonPathTracker tracker;
  try {
    return nlohmann::json::parse(
        text, [&](int, nlohmann::json::parse_event_t event, nlohmann::json &parsed) {
          return tracker.onEvent(event, parsed);
        });
  } catch (const nlohmann::json::exception &e) {
    // Syntax errors and numbers out of range (1e400) alike: the parser's own
    // text says what and at which byte; the tracker says in which entry.
    throw InputError(describeInputProblem(where, tracker.path(), "malformed JSON: " + jsonErrorText(e)));
  }
}

nlohmann::json readJsonFile(const std::filesystem::path &path) { return parseJsonText(readFile(path), path.string()); }

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
