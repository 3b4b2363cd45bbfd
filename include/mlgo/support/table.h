#pragma once
// A plain text table for the human-readable output of subcommands: columns are
// right-aligned except the first, widths fit the content.
#include <string>
#include <vector>

namespace mlgo {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void addRow(std::vector<std::string> row);
  /// Adds a horizontal rule before the next row (e.g. before a totals line).
  void addRule();
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;  // an empty row is a rule
};

/// "+1.23%" style relative change of `value` against `base` (base 0: "n/a").
std::string formatPercentChange(double value, double base);

}  // namespace mlgo
