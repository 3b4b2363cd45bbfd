#include "mlgo/support/byte_size.h"

#include <cctype>
#include <cstdio>
#include <limits>

namespace mlgo {

std::optional<uint64_t> parseByteSize(const std::string &text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 19) return std::nullopt;
  const uint64_t number = std::stoull(text.substr(0, digits));
  std::string unit = text.substr(digits);
  auto endsWith = [&unit](const std::string &suffix) {
    return unit.size() >= suffix.size() && unit.compare(unit.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (unit.size() > 2 && endsWith("iB")) unit.resize(unit.size() - 2);  // "MiB"
  else if (endsWith("B")) unit.resize(unit.size() - 1);                 // "MB", "B"
  int shift = 0;
  if (unit == "K" || unit == "k") shift = 10;
  else if (unit == "M") shift = 20;
  else if (unit == "G") shift = 30;
  else if (unit == "T") shift = 40;
  else if (!unit.empty()) return std::nullopt;
  if (shift > 0 && number > (std::numeric_limits<uint64_t>::max() >> shift)) return std::nullopt;
  return number << shift;
}

std::string formatByteSize(uint64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = double(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

}  // namespace mlgo
