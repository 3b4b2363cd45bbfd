#include "mlgo/policy/vocab_files.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo {

std::string formatFloat(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, result.ptr);
  if (std::isfinite(value) && text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

void writeBuckets(const std::filesystem::path &directory, const std::string &feature,
                  const std::vector<double> &boundaries) {
  std::string text;
  for (double boundary : boundaries) text += formatFloat(boundary) + "\n";
  writeFileAtomically(directory / (feature + ".buckets"), text);
}

std::vector<double> readBuckets(const std::filesystem::path &file) {
  std::vector<double> values;
  forEachLine(readFile(file), [&](size_t line, std::string_view view) {
    const std::string text(view);
    if (text.empty()) return;
    char *parsedEnd = nullptr;
    const double value = std::strtod(text.c_str(), &parsedEnd);
    if (parsedEnd != text.c_str() + text.size() || !std::isfinite(value))
      throw InputError(describeInputProblem(file.string(), "line " + std::to_string(line),
                                            "\"" + text + "\" is not a number"));
    if (!values.empty() && value < values.back())
      throw InputError(describeInputProblem(file.string(), "line " + std::to_string(line),
                                            "boundaries must be ascending"));
    values.push_back(value);
  });
  if (values.empty()) throw InputError(describeInputProblem(file.string(), "", "no boundaries"));
  return values;
}

std::map<std::string, std::vector<double>> readVocab(const std::filesystem::path &directory,
                                                     const std::vector<std::string> &features) {
  std::map<std::string, std::vector<double>> vocab;
  for (const std::string &feature : features) {
    const std::filesystem::path file = directory / (feature + ".buckets");
    if (!std::filesystem::exists(file))
      throw InputError(
          describeInputProblem(file.string(), "", "missing: the vocab has no file for feature " + feature));
    vocab[feature] = readBuckets(file);
  }
  return vocab;
}

}  // namespace mlgo
