#include "mlgo/support/text_input.h"

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"

namespace mlgo {

nlohmann::json readJsonFile(const std::filesystem::path &path) {
  const std::string text = readFile(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    throw InputError(describeInputProblem(path.string(), "", std::string("malformed JSON: ") + e.what()));
  }
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

std::regex compileUserRegex(const std::string &flag, const std::string &pattern) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error &e) {
    throw UsageError(flag + " \"" + pattern + "\" is not a valid regex: " + e.what());
  }
}

}  // namespace mlgo
