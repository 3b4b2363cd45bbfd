#include "mlgo/support/shell_words.h"

#include <cctype>

namespace mlgo {

std::optional<std::vector<std::string>> splitShellWords(const std::string &command) {
  std::vector<std::string> words;
  std::string current;
  bool inWord = false;
  enum class Quote { None, Single, Double } quote = Quote::None;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    switch (quote) {
      case Quote::Single:
        if (c == '\'') quote = Quote::None;
        else current += c;
        continue;
      case Quote::Double:
        if (c == '"') {
          quote = Quote::None;
        } else if (c == '\\' && i + 1 < command.size() &&
                   (command[i + 1] == '"' || command[i + 1] == '\\' || command[i + 1] == '$' ||
                    command[i + 1] == '`')) {
          current += command[++i];
        } else {
          current += c;
        }
        continue;
      case Quote::None:
        break;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (inWord) {
        words.push_back(std::move(current));
        current.clear();
        inWord = false;
      }
    } else if (c == '\'') {
      quote = Quote::Single;
      inWord = true;
    } else if (c == '"') {
      quote = Quote::Double;
      inWord = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      current += command[++i];
      inWord = true;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (quote != Quote::None) return std::nullopt;
  if (inWord) words.push_back(std::move(current));
  return words;
}

}  // namespace mlgo
