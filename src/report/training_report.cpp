#include "mlgo/report/training_report.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/fmt/fmt.h>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/subprocess.h"
#include "mlgo/support/text_input.h"
#include "mlgo/training/metrics_keys.h"

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

/// One metrics.jsonl record: what the plots need, checked.
struct IterationMetrics {
  double iteration = 0;
  double mean = 0, p10 = 0, p25 = 0, p50 = 0, p75 = 0, p90 = 0;
  double sizeChange = 0, entropy = 0, kl = 0;
  double lossTotal = 0, lossPolicyGradient = 0, lossEntropy = 0, lossKl = 0;
  double decisionsPerSecond = 0, collectSeconds = 0, trainSeconds = 0;
};

std::vector<IterationMetrics> readMetrics(const fs::path &file) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot open (is --run a train-ppo output directory?)");
  std::vector<IterationMetrics> records;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string entry = "line " + std::to_string(number);
    json m = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!m.is_object()) throw InputError(describe(file, entry, "not a JSON object"));
    using namespace metrics_keys;
    if (!m.contains(kRewardDistribution) || !m.contains(kSize) || !m.contains(kLoss) || !m.contains(kSeconds))
      throw InputError(describe(file, entry, "not a train-ppo metrics record (reward_distribution, size, loss, "
                                             "seconds expected)"));
    IterationMetrics r;
    r.iteration = numberAt(m, file, entry, kIteration);
    const json &reward = m[kRewardDistribution];
    const std::string inReward = entry + " " + kRewardDistribution;
    r.mean = numberAt(reward, file, inReward, kMean);
    r.p10 = numberAt(reward, file, inReward, kP10);
    r.p25 = numberAt(reward, file, inReward, kP25);
    r.p50 = numberAt(reward, file, inReward, kP50);
    r.p75 = numberAt(reward, file, inReward, kP75);
    r.p90 = numberAt(reward, file, inReward, kP90);
    r.sizeChange = 100 * numberAt(m[kSize], file, entry + " " + kSize, kSizeChange);
    r.entropy = numberAt(m, file, entry, kEntropy);
    r.kl = numberAt(m, file, entry, kKl);
    const std::string inLoss = entry + " " + kLoss;
    r.lossTotal = numberAt(m[kLoss], file, inLoss, kLossTotal);
    r.lossPolicyGradient = numberAt(m[kLoss], file, inLoss, kLossPolicyGradient);
    r.lossEntropy = numberAt(m[kLoss], file, inLoss, kLossEntropy);
    r.lossKl = numberAt(m[kLoss], file, inLoss, kLossKl);
    r.decisionsPerSecond = numberAt(m, file, entry, kDecisionsPerSecond);
    r.collectSeconds = numberAt(m[kSeconds], file, entry + " " + kSeconds, kCollectSeconds);
    r.trainSeconds = numberAt(m[kSeconds], file, entry + " " + kSeconds, kTrainSeconds);
    records.push_back(r);
  }
  return records;
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

/// A gnuplot single-quoted string (a quote inside is doubled).
std::string gnuplotString(const std::string &text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

void writeTrainingData(const fs::path &file, const std::vector<IterationMetrics> &records) {
  std::ostringstream out;
  out << "# iteration\tmean\tp10\tp25\tp50\tp75\tp90\tsize_change_pct\tsize_change_avg20\tentropy\tkl\t"
         "loss_total\tloss_policy_gradient\tloss_entropy\tloss_kl\tdecisions_per_second\tcollect_s\ttrain_s\n";
  double window = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const IterationMetrics &r = records[i];
    // A 20-iteration moving average: single iterations sample different modules.
    window += r.sizeChange;
    if (i >= 20) window -= records[i - 20].sizeChange;
    const double average = window / double(std::min<size_t>(i + 1, 20));
    out << fmt::format("{}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t"
                       "{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\n",
                       r.iteration, r.mean, r.p10, r.p25, r.p50, r.p75, r.p90, r.sizeChange, average, r.entropy,
                       r.kl, r.lossTotal, r.lossPolicyGradient, r.lossEntropy, r.lossKl, r.decisionsPerSecond,
                       r.collectSeconds, r.trainSeconds);
  }
  writeFileAtomically(file, out.str());
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
    quantiles << fmt::format("{:.6g}\t{:.6g}\n", sorted.size() > 1 ? 100.0 * double(i) / double(sorted.size() - 1) : 50.0,
                             100 * sorted[i]);
  writeFileAtomically(directory / ("change-sorted-" + std::to_string(index) + ".tsv"), quantiles.str());
}

std::string gnuplotScript(bool haveRun, const std::vector<EvaluationRow> &rows, double low, double high,
                          size_t bins) {
  std::string s =
      "# Written by mlgo report; rerun with `gnuplot plots.gnuplot` in this directory.\n"
      "set terminal pngcairo size 960,540 noenhanced font 'sans,11'\n"
      "set datafile separator '\\t'\nset grid\nset key outside right top\n";
  if (haveRun) {
    s += "set xlabel 'policy iteration'\n"
         "set output 'reward.png'\nset title 'Reward vs -Oz of the sampled modules (1 - size/baseline)'\n"
         "set ylabel 'reward'\n"
         "plot 'data/training.tsv' using 1:4:6 with filledcurves lc rgb '#c6dbef' title 'p25-p75', \\\n"
         "     '' using 1:3 with lines lc rgb '#9ecae1' title 'p10', \\\n"
         "     '' using 1:5 with lines lc rgb '#3182bd' title 'p50', \\\n"
         "     '' using 1:7 with lines lc rgb '#08519c' title 'p90', \\\n"
         "     '' using 1:2 with lines lw 2 lc rgb '#d62728' title 'mean'\n"
         "set output 'size.png'\nset title 'Total size of the sampled modules vs -Oz'\n"
         "set ylabel 'change (%)'\n"
         "plot 'data/training.tsv' using 1:8 with points pt 7 ps 0.4 lc rgb '#9ecae1' title 'iteration', \\\n"
         "     '' using 1:9 with lines lw 2 lc rgb '#08519c' title '20-iteration mean', 0 with lines lc rgb 'black' "
         "notitle\n"
         "set output 'policy.png'\nset title 'Policy entropy and KL divergence per update'\n"
         "set ylabel 'entropy (nats)'\nset y2label 'KL'\nset y2tics\nset ytics nomirror\n"
         "plot 'data/training.tsv' using 1:10 with lines lw 2 title 'entropy', \\\n"
         "     '' using 1:11 axes x1y2 with lines title 'KL'\n"
         "unset y2label\nunset y2tics\nset ytics mirror\n"
         "set output 'loss.png'\nset title 'PPO loss terms (mean over the gradient steps of an iteration)'\n"
         "set ylabel 'loss'\n"
         "plot 'data/training.tsv' using 1:12 with lines lw 2 title 'total', \\\n"
         "     '' using 1:13 with lines title 'policy gradient', '' using 1:14 with lines title 'entropy', \\\n"
         "     '' using 1:15 with lines title 'KL penalty'\n";
  }
  if (!rows.empty()) {
    const double width = (high - low) / double(bins);
    s += fmt::format(
        "set output 'size-change-histogram.png'\n"
        "set title 'Per-module size change vs -Oz (changed modules only; unchanged ones are in the table)'\n"
        "set xlabel 'size change (%, clamped to [{:.3g}, {:.3g}])'\nset ylabel 'share of the modules (%)'\n"
        "set style fill transparent solid 0.5\nset boxwidth {:.6g}\nset xrange [{:.6g}:{:.6g}]\n",
        low, high, width / double(rows.size()), low, high);
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
    s += "set output 'size-change-sorted.png'\nset title 'Per-module size change vs -Oz, modules sorted by change'\n"
         "set xlabel 'modules (%, from the largest reduction to the largest growth)'\n"
         "set ylabel 'size change (%)'\n" +
         sorted + "\n";
  }
  return s;
}

std::string percent(double fraction) { return fmt::format("{:+.2f}%", 100 * fraction); }

std::string htmlPage(const ReportOptions &options, const std::vector<IterationMetrics> &records,
                     const std::vector<EvaluationRow> &rows, const std::vector<fs::path> &plots) {
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>mlgo report</title>\n"
      "<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}"
      "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:4px 10px;text-align:right}"
      "th:first-child,td:first-child{text-align:left}img{max-width:100%;margin:1em 0}</style></head><body>\n"
      "<h1>mlgo report</h1>\n";
  if (options.run) {
    page += "<p>Training run <code>" + htmlEscape(options.run->string()) + "</code>: " +
            std::to_string(records.size()) + " policy iterations";
    if (!records.empty()) {
      double seconds = 0;
      for (const IterationMetrics &r : records) seconds += r.collectSeconds + r.trainSeconds;
      const IterationMetrics &last = records.back();
      page += fmt::format(", {:.0f} s of collection and training; last iteration {:.0f}: mean reward vs -Oz {:+.4f}, "
                          "sampled modules {:+.2f}% vs -Oz, entropy {:.4f}",
                          seconds, last.iteration, last.mean, last.sizeChange, last.entropy);
    }
    page += ".</p>\n";
  }
  if (!rows.empty()) {
    page += "<h2>Size vs -Oz (" + htmlEscape(rows.front().metric) +
            ")</h2>\n<table><tr><th>set</th><th>evaluated</th><th>modules</th><th>-Oz size</th><th>size</th>"
            "<th>change</th><th>smaller</th><th>larger</th><th>failed</th></tr>\n";
    for (const EvaluationRow &row : rows)
      page += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.0f}</td><td>{:.0f}</td><td>{}</td><td>{}</td>"
                          "<td>{}</td><td>{}</td></tr>\n",
                          htmlEscape(row.label), htmlEscape(row.candidate), row.modules, row.baselineTotal,
                          row.candidateTotal, percent(row.change()), row.smaller, row.larger, row.failed);
    page += "</table>\n";
  }
  page += "<h2>Plots</h2>\n";
  for (const fs::path &plot : plots)
    page += "<figure><img alt=\"" + htmlEscape(plot.stem().string()) + "\" src=\"data:image/png;base64," +
            base64(readFile(plot)) + "\"><figcaption>" + htmlEscape(plot.filename().string()) +
            "</figcaption></figure>\n";
  page += "<p>Data behind the plots: <code>data/*.tsv</code>; script: <code>plots.gnuplot</code>.</p>\n</body></html>\n";
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
    const double baseline = numberAt(module["baseline"], file, entry + " baseline", metric.c_str());
    const double candidate = numberAt(module["candidate"], file, entry + " candidate", metric.c_str());
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
  if (!options.run && options.evaluations.empty())
    throw UsageError("nothing to report: give a training run (--run) or evaluations (--eval LABEL=FILE)");
  if (options.metric != "text" && options.metric != "text+data")
    throw UsageError("unknown metric \"" + options.metric + "\" (text or text+data)");
  const std::optional<std::string> gnuplot = findProgramOnPath(options.gnuplot);
  if (!gnuplot)
    throw UsageError("gnuplot not found (\"" + options.gnuplot + "\"): install Debian's gnuplot-nox or pass --gnuplot");

  ReportSummary summary;
  std::vector<IterationMetrics> records;
  if (options.run) {
    records = readMetrics(*options.run / "metrics.jsonl");
    if (records.empty()) throw InputError((*options.run / "metrics.jsonl").string() + ": no iterations recorded yet");
  }
  for (const auto &[label, file] : options.evaluations) summary.rows.push_back(readEvaluation(label, file, options.metric));

  const fs::path data = options.output / "data";
  fs::create_directories(data);
  if (!records.empty()) writeTrainingData(data / "training.tsv", records);

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

  writeFileAtomically(options.output / "plots.gnuplot", gnuplotScript(!records.empty(), summary.rows, low, high, kBins));
  // gnuplot runs in the output directory so that the script stays relocatable.
  const fs::path absoluteOutput = fs::absolute(options.output);
  const ProcessOutcome outcome = runProcess(
      {"/bin/sh", "-c", "cd \"$1\" && exec \"$2\" plots.gnuplot", "sh", absoluteOutput.string(), *gnuplot},
      std::chrono::minutes(2));
  if (!outcome.succeeded())
    throw std::runtime_error("gnuplot failed on " + (options.output / "plots.gnuplot").string() + ": " +
                             (outcome.timedOut ? std::string("timed out") : outcome.error + outcome.stderrText));

  if (!records.empty())
    for (const char *name : {"reward.png", "size.png", "policy.png", "loss.png"}) summary.plots.push_back(options.output / name);
  if (!summary.rows.empty())
    for (const char *name : {"size-change-histogram.png", "size-change-sorted.png"})
      summary.plots.push_back(options.output / name);
  for (const fs::path &plot : summary.plots)
    if (!fs::exists(plot)) throw std::runtime_error("gnuplot did not write " + plot.string());

  summary.html = options.output / "index.html";
  summary.iterations = records.size();
  writeFileAtomically(summary.html, htmlPage(options, records, summary.rows, summary.plots));
  return summary;
}

}  // namespace mlgo
