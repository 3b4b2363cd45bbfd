#include "mlgo/report/training_report.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/fmt/fmt.h>

#include "mlgo/report/gnuplot_text.h"
#include "mlgo/report/training_curves.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/subprocess.h"
#include "mlgo/support/text_input.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string describe(const fs::path &file, const std::string &entry, const std::string &problem) {
  return describeInputProblem(file.string(), entry, problem);
}

double numberAt(const json &object, const fs::path &file, const std::string &entry, const char *key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number())
    throw InputError(describe(file, entry, std::string("missing number \"") + key + "\""));
  return object[key].get<double>();
}

std::string htmlEscape(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string base64(const std::string &bytes) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size()) chunk |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) chunk |= uint32_t(uint8_t(bytes[i + 2]));
    out += kAlphabet[(chunk >> 18) & 63];
    out += kAlphabet[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[chunk & 63] : '=';
  }
  return out;
}

/// Per evaluation: the changed modules' size changes in equal-width bins
/// (share of all compared modules, in %) and every module's change sorted.
void writeChangeData(const fs::path &directory, size_t index, const EvaluationRow &row, double low, double high,
                     size_t bins) {
  std::vector<double> counts(bins, 0.0);
  const double width = (high - low) / double(bins);
  for (double change : row.moduleChanges) {
    if (change == 0) continue;
    const double percent = 100 * change;
    const auto bin = static_cast<long>(std::floor((percent - low) / width));
    counts[static_cast<size_t>(std::clamp<long>(bin, 0, long(bins) - 1))] += 1;
  }
  std::ostringstream histogram;
  histogram << "# bin_center_pct\tshare_of_modules_pct (clamped to the plotted range)\n";
  for (size_t i = 0; i < bins; ++i)
    histogram << fmt::format("{:.6g}\t{:.6g}\n", low + width * (double(i) + 0.5),
                             row.modules ? 100 * counts[i] / double(row.modules) : 0.0);
  writeFileAtomically(directory / ("change-histogram-" + std::to_string(index) + ".tsv"), histogram.str());

  std::vector<double> sorted = row.moduleChanges;
  std::sort(sorted.begin(), sorted.end());
  std::ostringstream quantiles;
  quantiles << "# module_rank_pct\tchange_pct\n";
  for (size_t i = 0; i < sorted.size(); ++i)
    quantiles << fmt::format("{:.6g}\t{:.6g}\n",
                             sorted.size() > 1 ? 100.0 * double(i) / double(sorted.size() - 1) : 50.0, 100 * sorted[i]);
  writeFileAtomically(directory / ("change-sorted-" + std::to_string(index) + ".tsv"), quantiles.str());
}

bool isSizeMetric(const std::string &metric) { return metric == "text" || metric == "text+data"; }

/// What a metric measures, for titles: "size", or the measure's own name.
std::string quantityName(const std::string &metric) { return isSizeMetric(metric) ? "size" : metric; }

/// A module's (baseline, candidate) values under `metric`: its sizes, or a
/// measure of its problem (`measures` of `mlgo eval --problem P --json`).
std::pair<double, double> comparedValues(const json &module, const fs::path &file, const std::string &entry,
                                         const std::string &metric) {
  if (isSizeMetric(metric))
    return {numberAt(module["baseline"], file, entry + " baseline", metric.c_str()),
            numberAt(module["candidate"], file, entry + " candidate", metric.c_str())};
  const json *measures = module.contains("measures") ? &module["measures"] : nullptr;
  if (!measures || !measures->is_object() || !measures->contains("baseline") ||
      !(*measures)["baseline"].contains(metric))
    throw InputError(describe(file, entry, "no measure \"" + metric +
                                               "\" (evaluate with --problem of a problem that measures it)"));
  return {numberAt((*measures)["baseline"], file, entry + " measures baseline", metric.c_str()),
          numberAt((*measures)["candidate"], file, entry + " measures candidate", metric.c_str())};
}

std::string gnuplotScript(const std::optional<TrainingCurves> &curves, const std::vector<EvaluationRow> &rows,
                          const std::vector<BuildCurve> &builds, double low, double high, size_t bins) {
  std::string s =
      "# Written by mlgo report; rerun with `gnuplot plots.gnuplot` in this directory.\n"
      "set terminal pngcairo size 960,540 noenhanced font 'sans,11'\n"
      "set datafile separator '\\t'\nset grid\nset key outside right top\n";
  if (curves) s += curves->gnuplot;
  if (!rows.empty()) {
    const double width = (high - low) / double(bins);
    const std::string what = quantityName(rows.front().metric);
    s += fmt::format(
        "set output 'size-change-histogram.png'\nset title {}\nset xlabel {}\nset ylabel 'share of the modules (%)'\n"
        "set style fill transparent solid 0.5\nset boxwidth {:.6g}\nset xrange [{:.6g}:{:.6g}]\n",
        gnuplotString("Per-module " + what +
                      " change vs the baseline (changed modules only; unchanged ones are in the table)"),
        gnuplotString(fmt::format("{} change (%, clamped to [{:.3g}, {:.3g}])", what, low, high)),
        width / double(rows.size()), low, high);
    std::string histogram = "plot ", sorted = "plot ";
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string title = gnuplotString(fmt::format("{} ({} modules)", rows[i].label, rows[i].modules));
      const double offset = width * (double(i) + 0.5) / double(rows.size()) - width / 2;
      histogram += fmt::format("{}'data/change-histogram-{}.tsv' using ($1+{:.6g}):2 with boxes title {}",
                               i ? ", \\\n     " : "", i, offset, title);
      sorted += fmt::format("{}'data/change-sorted-{}.tsv' using 1:2 with lines lw 2 title {}",
                            i ? ", \\\n     " : "", i, title);
    }
    s += histogram + "\nunset xrange\n";
    s += fmt::format("set output 'size-change-sorted.png'\nset title {}\n"
                     "set xlabel 'modules (%, from the largest reduction to the largest growth)'\nset ylabel {}\n",
                     gnuplotString("Per-module " + what + " change vs the baseline, modules sorted by change"),
                     gnuplotString(what + " change (%)")) +
         sorted + "\n";
  }
  for (const BuildCurve &curve : builds) s += buildCurveGnuplot(curve);
  return s;
}

std::string percent(double fraction) { return fmt::format("{:+.2f}%", 100 * fraction); }

std::string figure(const fs::path &plot) {
  return "<figure><img alt=\"" + htmlEscape(plot.stem().string()) + "\" src=\"data:image/png;base64," +
         base64(readFile(plot)) + "\"><figcaption>" + htmlEscape(plot.filename().string()) + "</figcaption></figure>\n";
}

std::string htmlTableRow(const std::vector<std::string> &cells, const char *tag) {
  std::string row = "<tr>";
  for (const std::string &cell : cells) row += fmt::format("<{0}>{1}</{0}>", tag, htmlEscape(cell));
  return row + "</tr>\n";
}

/// A project's builds: its table, then its plot when it has store builds.
std::string buildsSection(const BuildCurve &curve, const fs::path &output) {
  std::string section = "<h2>Builds: " + htmlEscape(curve.label) + "</h2>\n<p><code>" +
                        htmlEscape(curve.file.string()) + "</code>: linked and object sizes against " +
                        htmlEscape(curve.ways.front().name) + ", build time against its build";
  const size_t storeBuilds = curve.storeBuilds().size();
  section += storeBuilds ? fmt::format("; {} store builds.</p>\n", storeBuilds)
                         : "; no store builds (<code>compare-builds --store-builds N</code>), so no plot.</p>\n";
  section += "<table>" + htmlTableRow(buildTableHeader(), "th");
  for (const std::vector<std::string> &row : buildTableRows(curve)) section += htmlTableRow(row, "td");
  section += "</table>\n";
  if (curve.plotted()) section += figure(output / curve.plotName());
  return section;
}

std::string htmlPage(const ReportOptions &options, const std::optional<TrainingCurves> &curves,
                     const std::vector<EvaluationRow> &rows, const std::vector<BuildCurve> &builds,
                     const std::vector<fs::path> &plots) {
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>mlgo report</title>\n"
      "<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}"
      "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:4px 10px;text-align:right}"
      "th:first-child,td:first-child{text-align:left}img{max-width:100%;margin:1em 0}</style></head><body>\n"
      "<h1>mlgo report</h1>\n";
  if (curves)
    page += "<p>Training run <code>" + htmlEscape(options.run->string()) + "</code>: " + htmlEscape(curves->summary) +
            ".</p>\n";
  if (!rows.empty()) {
    const std::string what = quantityName(rows.front().metric);
    page += "<h2>" + htmlEscape(what) + " vs the baseline (" + htmlEscape(rows.front().metric) +
            ")</h2>\n<table><tr><th>set</th><th>evaluated</th><th>modules</th><th>baseline</th><th>candidate</th>"
            "<th>change</th><th>smaller</th><th>larger</th><th>failed</th></tr>\n";
    for (const EvaluationRow &row : rows)
      page += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.0f}</td><td>{:.0f}</td><td>{}</td><td>{}</td>"
                          "<td>{}</td><td>{}</td></tr>\n",
                          htmlEscape(row.label), htmlEscape(row.candidate), row.modules, row.baselineTotal,
                          row.candidateTotal, percent(row.change()), row.smaller, row.larger, row.failed);
    page += "</table>\n";
  }
  for (const BuildCurve &curve : builds) page += buildsSection(curve, options.output);
  if (!plots.empty()) page += "<h2>Plots</h2>\n";
  for (const fs::path &plot : plots) page += figure(plot);
  page +=
      "<p>Data behind the plots: <code>data/*.tsv</code>; script: <code>plots.gnuplot</code>.</p>\n</body></html>\n";
  return page;
}

}  // namespace

EvaluationRow readEvaluation(const std::string &label, const fs::path &file, const std::string &metric) {
  const json report = readJsonFile(file);
  if (!report.is_object() || !report.contains("modules") || !report["modules"].is_array())
    throw InputError(describe(file, "modules", "missing: not an `mlgo eval --json` file"));
  EvaluationRow row;
  row.label = label;
  row.metric = metric;
  row.candidate = report.value("candidate", "");
  const json &modules = report["modules"];
  for (size_t i = 0; i < modules.size(); ++i) {
    const json &module = modules[i];
    const std::string entry = "modules[" + std::to_string(i) + "]" +
                              (module.is_object() && module.contains("name") && module["name"].is_string()
                                   ? " (" + module["name"].get<std::string>() + ")"
                                   : "");
    if (!module.is_object() || module.value("status", "") != "ok") {
      ++row.failed;
      continue;
    }
    if (!module.contains("candidate"))
      throw InputError(describe(file, entry, "no candidate sizes (evaluate with --policy, --inline or --pass-lists)"));
    const auto [baseline, candidate] = comparedValues(module, file, entry, metric);
    row.baselineTotal += baseline;
    row.candidateTotal += candidate;
    ++row.modules;
    if (candidate < baseline) ++row.smaller;
    if (candidate > baseline) ++row.larger;
    row.moduleChanges.push_back(baseline > 0 ? candidate / baseline - 1 : 0.0);
  }
  return row;
}

ReportSummary writeTrainingReport(const ReportOptions &options) {
  if (!options.run && options.evaluations.empty() && options.builds.empty())
    throw UsageError(
        "nothing to report: give a training run (--run), evaluations (--eval LABEL=FILE) or builds "
        "(--builds LABEL=COMPARISON_JSON)");
  checkBuildLabels(options.builds);
  if (options.metric.empty()) throw UsageError("--metric is empty (text, text+data or a problem's measure)");
  const std::optional<std::string> gnuplot = findProgramOnPath(options.gnuplot);
  if (!gnuplot)
    throw UsageError("gnuplot not found (\"" + options.gnuplot + "\"): install Debian's gnuplot-nox or pass --gnuplot");

  ReportSummary summary;
  std::optional<TrainingCurves> curves;
  if (options.run) curves = readTrainingCurves(*options.run / "metrics.jsonl");
  for (const auto &[label, file] : options.evaluations)
    summary.rows.push_back(readEvaluation(label, file, options.metric));
  for (const auto &[label, file] : options.builds) summary.builds.push_back(readBuildCurve(label, file));

  const fs::path data = options.output / "data";
  fs::create_directories(data);
  if (curves) writeFileAtomically(data / "training.tsv", curves->table);
  for (const BuildCurve &curve : summary.builds)
    if (curve.plotted()) writeFileAtomically(data / curve.dataName(), buildCurveData(curve));

  // One histogram range for every evaluation, clamped so that one outlier
  // does not squeeze the rest into a single bar.
  constexpr size_t kBins = 40;
  double low = 0, high = 0;
  for (const EvaluationRow &row : summary.rows)
    for (double change : row.moduleChanges) {
      low = std::min(low, 100 * change);
      high = std::max(high, 100 * change);
    }
  low = std::max(std::floor(low), -20.0);
  high = std::min(std::ceil(high), 20.0);
  if (high - low < 2) low -= 1, high += 1;
  for (size_t i = 0; i < summary.rows.size(); ++i) writeChangeData(data, i, summary.rows[i], low, high, kBins);

  writeFileAtomically(options.output / "plots.gnuplot",
                      gnuplotScript(curves, summary.rows, summary.builds, low, high, kBins));
  // gnuplot runs in the output directory so that the script stays relocatable.
  const fs::path absoluteOutput = fs::absolute(options.output);
  const ProcessOutcome outcome = runProcess(
      {"/bin/sh", "-c", "cd \"$1\" && exec \"$2\" plots.gnuplot", "sh", absoluteOutput.string(), *gnuplot},
      std::chrono::minutes(2));
  if (!outcome.succeeded())
    throw std::runtime_error("gnuplot failed on " + (options.output / "plots.gnuplot").string() + ": " +
                             (outcome.timedOut ? std::string("timed out") : outcome.error + outcome.stderrText));

  if (curves)
    for (const std::string &name : curves->plots) summary.plots.push_back(options.output / name);
  if (!summary.rows.empty())
    for (const char *name : {"size-change-histogram.png", "size-change-sorted.png"})
      summary.plots.push_back(options.output / name);
  // The page shows each project's plot in its own section.
  const std::vector<fs::path> pagePlots = summary.plots;
  for (const BuildCurve &curve : summary.builds)
    if (curve.plotted()) summary.plots.push_back(options.output / curve.plotName());
  for (const fs::path &plot : summary.plots)
    if (!fs::exists(plot)) throw std::runtime_error("gnuplot did not write " + plot.string());

  summary.html = options.output / "index.html";
  summary.iterations = curves ? curves->iterations : 0;
  summary.trainer = curves ? curves->trainer : "";
  writeFileAtomically(summary.html, htmlPage(options, curves, summary.rows, summary.builds, pagePlots));
  return summary;
}

}  // namespace mlgo
