// mlgo report: plots and one HTML page for a training run, its evaluations
// and a project's builds.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "common_options.h"
#include "mlgo/problems/problem.h"
#include "mlgo/report/training_report.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/table.h"

namespace mlgo::cli {

namespace {

struct ReportFlags {
  std::string run;
  std::vector<std::string> evaluations;
  std::vector<std::string> builds;
  std::string metric = "text";
  std::string output;
  std::string gnuplot = "gnuplot";
};

/// Sizes, and every measure a registered problem records in eval JSON.
std::vector<std::string> comparableMetrics() {
  std::vector<std::string> metrics{"text", "text+data"};
  for (const std::string &name : problemNames())
    for (const std::string &measure : findProblem(name).measureNames())
      if (std::find(metrics.begin(), metrics.end(), measure) == metrics.end()) metrics.push_back(measure);
  return metrics;
}

/// A LABEL=FILE value of `flag`; UsageError (with `example`) for another spelling.
std::pair<std::string, std::filesystem::path> labelledFile(const std::string &flag, const std::string &value,
                                                           const std::string &example) {
  const size_t equals = value.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == value.size())
    throw UsageError(flag + " \"" + value + "\": expected LABEL=FILE, e.g. " + flag + " " + example);
  return {value.substr(0, equals), value.substr(equals + 1)};
}

void printBuilds(const BuildCurve &curve) {
  const std::string plot =
      curve.plotted() ? "plotted as " + curve.plotName() : "no store builds (compare-builds --store-builds N), no plot";
  std::printf("builds %s (%s): %s\n", curve.label.c_str(), curve.file.c_str(), plot.c_str());
  TextTable table(buildTableHeader());
  for (std::vector<std::string> &row : buildTableRows(curve)) table.addRow(std::move(row));
  std::printf("%s", table.render().c_str());
}

int runReport(const ReportFlags &flags) {
  ReportOptions options;
  if (!flags.run.empty()) options.run = flags.run;
  for (const std::string &evaluation : flags.evaluations)
    options.evaluations.push_back(labelledFile("--eval", evaluation, "held-out=heldout-eval.json"));
  for (const std::string &builds : flags.builds)
    options.builds.push_back(labelledFile("--builds", builds, "pcre2=compared/comparison.json"));
  options.metric = flags.metric;
  options.output = flags.output;
  const auto outputLock = claimOutput(flags.output, "report", ExistingOutput::Keep);
  options.gnuplot = flags.gnuplot;
  const ReportSummary summary = writeTrainingReport(options);
  for (const EvaluationRow &row : summary.rows)
    std::printf("%-12s %5zu modules  baseline %10.0f  candidate %10.0f  %+7.2f%%  "
                "(%zu smaller, %zu larger, %zu failed)\n",
                row.label.c_str(), row.modules, row.baselineTotal, row.candidateTotal, 100 * row.change(),
                row.smaller, row.larger, row.failed);
  for (const BuildCurve &curve : summary.builds) printBuilds(curve);
  std::printf("report: %s (%zu plots", summary.html.c_str(), summary.plots.size());
  if (options.run) std::printf(", %zu %s iterations", summary.iterations, summary.trainer.c_str());
  std::printf(")\n");
  return exit_code::kSuccess;
}

}  // namespace

void addReportCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<ReportFlags>();
  command->add_option("--run", flags->run, "train-ppo or train-es output directory (its metrics.jsonl is plotted)");
  command->add_option("--eval", flags->evaluations,
                      "LABEL=FILE: an `mlgo eval --json` result to tabulate and plot (repeatable, in table order)");
  command->add_option("--builds", flags->builds,
                      "LABEL=FILE: an `mlgo compare-builds` comparison.json to tabulate, its store builds plotted "
                      "as builds-LABEL.png (repeatable)");
  command->add_option("--metric", flags->metric,
                      "What the table and plots compare: a size, or a problem's measure (e.g. regalloc_score)")
      ->check(CLI::IsMember(comparableMetrics()))
      ->capture_default_str();
  command->add_option("--output", flags->output, "Directory to write index.html, *.png and data/ into")->required();
  command->add_option("--gnuplot", flags->gnuplot, "gnuplot program")->capture_default_str();
  command->callback([flags, &runner] { runner = [flags] { return runReport(*flags); }; });
}

}  // namespace mlgo::cli
