#pragma once
// A project's builds as `mlgo report --builds` shows them: the ways one
// `mlgo compare-builds` run built it (its comparison.json), each way's
// linked and object sizes against the reference build, and the store's
// builds (`--store-builds N`: store-1 .. store-N) as a curve of what the
// project's builds learned, build after build, beside the other ways.
// comparison.json is read as JSON here rather than through builds/ (the
// report stage includes no other stage).
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlgo {

/// One way the project was built, as comparison.json records it.
struct BuildWay {
  std::string name;                  ///< "clang-19", "mlgo-cc", "policy", ..., "store-3", "choices"
  std::optional<size_t> storeBuild;  ///< k of "store-k"
  bool built = false;
  bool measured = false;  ///< built and its linked files measured (sizes below are meaningful)
  std::string tests;      ///< "passed", "failed", "none"
  double buildSeconds = 0;
  /// Fractions against the reference (the first way, clang-19).
  double linkedTextPlusDataChange = 0, linkedTextChange = 0, objectsTextPlusDataChange = 0;
};

/// One comparison.json, its ways in the file's order (the reference first).
struct BuildCurve {
  std::string label;  ///< names the plot, builds-LABEL.png
  std::filesystem::path file;
  std::vector<BuildWay> ways;

  /// The measured store builds, in build order: what the plot's curve shows.
  std::vector<const BuildWay *> storeBuilds() const;
  /// Whether the plot exists: some store build was measured.
  bool plotted() const { return !storeBuilds().empty(); }
  std::string plotName() const { return "builds-" + label + ".png"; }
  std::string dataName() const { return "builds-" + label + ".tsv"; }
};

/// Reads an `mlgo compare-builds` comparison.json. Throws InputError naming
/// the file and the entry (e.g. "variants[2] (predicted): linked_sum") when
/// it is missing, not a build comparison, or lacks what the table shows.
BuildCurve readBuildCurve(const std::string &label, const std::filesystem::path &file);

/// Throws UsageError for a label that cannot name the plot's file (only
/// letters, digits, '.', '_' and '-'), and for two curves with one label.
void checkBuildLabels(const std::vector<std::pair<std::string, std::filesystem::path>> &builds);

/// data/builds-LABEL.tsv: one row per measured store build (build number,
/// way, linked .text+.data and .text change in %).
std::string buildCurveData(const BuildCurve &curve);

/// gnuplot commands that plot data/builds-LABEL.tsv into builds-LABEL.png,
/// with a horizontal line for each other measured way (mlgo-cc left out: it
/// builds the reference's program). Empty when the curve has no store build.
std::string buildCurveGnuplot(const BuildCurve &curve);

/// The table of the ways, as stdout and index.html show it: a header and
/// one row of cells per way, in the file's order.
std::vector<std::string> buildTableHeader();
std::vector<std::vector<std::string>> buildTableRows(const BuildCurve &curve);

}  // namespace mlgo
