#include "mlgo/support/table.h"

#include <algorithm>
#include <cstdio>

namespace mlgo {

TextTable::TextTable(std::vector<std::string> header) : header_(std::move(header)) {}

void TextTable::addRow(std::vector<std::string> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

void TextTable::addRule() { rows_.emplace_back(); }

std::string TextTable::render() const {
  std::vector<size_t> widths(header_.size());
  for (size_t c = 0; c < header_.size(); ++c) widths[c] = header_[c].size();
  for (const auto &row : rows_)
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  size_t total = 0;
  for (size_t w : widths) total += w + 2;
  auto line = [&](const std::vector<std::string> &cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      std::string pad(widths[c] - cells[c].size(), ' ');
      out += c == 0 ? cells[c] + pad : pad + cells[c];
      if (c + 1 < cells.size()) out += "  ";
    }
    return out + "\n";
  };
  std::string out = line(header_);
  out += std::string(total - 2, '-') + "\n";
  for (const auto &row : rows_) out += row.empty() ? std::string(total - 2, '-') + "\n" : line(row);
  return out;
}

std::string formatPercentChange(double value, double base) {
  if (base == 0) return value == 0 ? "0.00%" : "n/a";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%+.2f%%", 100.0 * (value - base) / base);
  return buffer;
}

}  // namespace mlgo
