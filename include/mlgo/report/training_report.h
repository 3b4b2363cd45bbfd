#pragma once
// `mlgo report`: a training run's curves, the per-module size changes of
// its evaluations and a project's builds (compare-builds) as PNG plots
// (rendered by gnuplot) and one self-contained HTML page with the tables.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "mlgo/report/build_curve.h"

namespace mlgo {

/// One evaluation (`mlgo eval --json`) summarized against its baseline.
struct EvaluationRow {
  std::string label;       ///< e.g. "training", "held-out"
  std::string candidate;   ///< what was evaluated, from the JSON
  std::string metric;      ///< "text" or "text+data"
  size_t modules = 0;      ///< compared modules (failed ones are left out)
  size_t failed = 0;
  double baselineTotal = 0;  ///< -Oz (the default heuristic)
  double candidateTotal = 0;
  size_t smaller = 0, larger = 0;
  std::vector<double> moduleChanges;  ///< candidate / baseline - 1, per compared module
  double change() const { return baselineTotal > 0 ? candidateTotal / baselineTotal - 1 : 0.0; }
};

/// Reads an `mlgo eval --json` file. Throws InputError naming the file and
/// the entry when it is not one.
EvaluationRow readEvaluation(const std::string &label, const std::filesystem::path &file,
                             const std::string &metric);

struct ReportOptions {
  /// A train-ppo or train-es output directory (its metrics.jsonl); optional.
  std::optional<std::filesystem::path> run;
  /// (label, eval JSON) pairs, in the order the table shows them.
  std::vector<std::pair<std::string, std::filesystem::path>> evaluations;
  /// (label, comparison.json of `mlgo compare-builds`) pairs, in the order
  /// the page shows them; each label names its plot, builds-LABEL.png.
  std::vector<std::pair<std::string, std::filesystem::path>> builds;
  /// What evaluations compare: "text", "text+data", or a problem's measure
  /// ("regalloc_score": `measures` of `mlgo eval --problem regalloc`).
  std::string metric = "text";
  std::filesystem::path output;
  std::string gnuplot = "gnuplot";  ///< program name or path
};

struct ReportSummary {
  std::filesystem::path html;
  std::vector<std::filesystem::path> plots;
  std::vector<EvaluationRow> rows;
  std::vector<BuildCurve> builds;  ///< in the order of ReportOptions::builds
  size_t iterations = 0;  ///< metrics.jsonl records read
  std::string trainer;    ///< the run's trainer ("train-ppo", "train-es"; empty without a run)
};

/// Writes <output>/index.html, <output>/*.png and the plotted data
/// (<output>/data/*.tsv, <output>/plots.gnuplot). Throws InputError for a
/// missing or malformed metrics.jsonl, eval JSON or comparison.json (file,
/// line or entry named), UsageError when there is nothing to report, a
/// build label cannot name a file or gnuplot is missing, std::runtime_error
/// when gnuplot fails (its message included). Every input is read before
/// anything is written.
ReportSummary writeTrainingReport(const ReportOptions &options);

}  // namespace mlgo
