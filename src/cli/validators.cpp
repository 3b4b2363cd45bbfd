#include "validators.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace mlgo::cli {

CLI::Validator wholeNumber(uint64_t minimum, uint64_t maximum) {
  const bool bounded = maximum != std::numeric_limits<uint64_t>::max();
  return CLI::Validator(
      [minimum, maximum, bounded](std::string &text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 19 &&
                            text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoull(text) < minimum || std::stoull(text) > maximum)
          return "expected a whole number of at least " + std::to_string(minimum) +
                 (bounded ? " and at most " + std::to_string(maximum) : std::string()) + ", got \"" + text + "\"";
        return "";
      },
      (minimum == 0 ? std::string("UINT") : "UINT>=" + std::to_string(minimum)) +
          (bounded ? "<=" + std::to_string(maximum) : std::string()));
}

CLI::Validator finiteSeconds(bool zeroAllowed) {
  return CLI::Validator(
      [zeroAllowed](std::string &text) -> std::string {
        char *end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(value) || value < 0 || (!zeroAllowed && value == 0))
          return std::string("expected a finite number of seconds") + (zeroAllowed ? " (0 or more)" : " above 0") +
                 ", got \"" + text + "\"";
        return "";
      },
      zeroAllowed ? "SECONDS>=0" : "SECONDS>0");
}

CLI::Validator outputFile() {
  return CLI::Validator(
      [](std::string &text) -> std::string {
        if (text.empty()) return "expected the name of a file to write, got \"\"";
        if (text.back() == '/' || std::filesystem::is_directory(text))
          return text + " names a directory: name the file to write";
        return "";
      },
      "FILE");
}

}  // namespace mlgo::cli
