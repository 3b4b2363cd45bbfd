// `mlgo report --builds`: compare-builds' comparison.json files, as it
// writes them, tabulated and plotted by the real report with the real
// gnuplot.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "mlgo/report/training_report.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "report/build_comparison_files.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
using test::TestWay;
namespace fs = std::filesystem;

namespace {

/// A project built every way compare-builds knows, with three store builds
/// that shrink it build after build (store-2 failed to build).
std::vector<TestWay> learningProject() {
  return {{"clang-19", 1000, 2000, 3000, 20},   {"mlgo-cc", 1000, 2000, 3000, 21},
          {"policy", 990, 1990, 2950, 40},      {"never-larger", 995, 1995, 2980, 42},
          {"pass-lists", 1010, 1980, 2900, 25}, {"predicted", 1005, 1960, 2940, 24},
          {"store-1", 1002, 1990, 2990, 30},    {"store-2", 0, 0, 0, 31, false, "none"},
          {"store-3", 990, 1930, 2910, 30},     {"choices", 985, 1940, 2920, 22}};
}

void writeComparison(const fs::path &file, const std::vector<TestWay> &ways) {
  writeFileAtomically(file, test::comparisonJson(ways).dump(2));
}

/// The rows of a TSV file below its header: its tab-separated cells.
std::vector<std::vector<std::string>> tsvRows(const fs::path &file) {
  std::ifstream in(file);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, '\t');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace

TEST_CASE("report --builds: the store builds as a curve beside the other ways, and each way's table",
          "[report][builds]") {
  test::ScratchDirectory scratch;
  const std::vector<TestWay> ways = learningProject();
  writeComparison(scratch / "pcre2.json", ways);
  // A comparison without store builds still has its table, and no plot.
  writeComparison(
      scratch / "zlib.json",
      {{"clang-19", 500, 800, 900, 10}, {"mlgo-cc", 500, 800, 900, 11}, {"policy", 480, 780, 870, 12, true, "failed"}});
  ReportOptions options;
  options.builds = {{"pcre2", scratch / "pcre2.json"}, {"zlib", scratch / "zlib.json"}};
  options.output = scratch / "report";
  const ReportSummary summary = writeTrainingReport(options);  // builds alone: no run, no evaluation

  REQUIRE(summary.plots == std::vector<fs::path>{scratch / "report/builds-pcre2.png"});
  const std::string png = readFile(summary.plots[0]);
  CHECK(png.substr(0, 8) == "\x89PNG\r\n\x1a\n");
  CHECK(png.size() > 2000);
  CHECK_FALSE(fs::exists(scratch / "report/builds-zlib.png"));
  CHECK_FALSE(fs::exists(scratch / "report/data/builds-zlib.tsv"));

  // The curve: the measured store builds by number, their linked changes in % of clang-19's.
  const auto rows = tsvRows(scratch / "report/data/builds-pcre2.tsv");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0][0] == "1");
  CHECK(rows[0][1] == "store-1");
  CHECK(rows[1][0] == "3");
  CHECK(rows[1][1] == "store-3");
  CHECK(std::stod(rows[0][2]) == Approx(100 * test::changeOf(1990, 2000)));
  CHECK(std::stod(rows[1][2]) == Approx(-3.5));  // store-3: 1930 against 2000
  CHECK(std::stod(rows[1][3]) == Approx(100 * test::changeOf(990, 1000)));

  // Beside it a line per other measured way, named as the file names it; not
  // mlgo-cc (the reference's program) nor the failed store build.
  const std::string script = readFile(scratch / "report/plots.gnuplot");
  for (const char *line :
       {"0 with lines dt 2 lw 1.5 lc rgb 'black' title 'clang-19'", "-2 with lines dt 2 lw 1.5 title 'predicted'",
        "-1 with lines dt 2 lw 1.5 title 'pass-lists'", "-0.5 with lines dt 2 lw 1.5 title 'policy'",
        "-0.25 with lines dt 2 lw 1.5 title 'never-larger'", "-3 with lines dt 2 lw 1.5 title 'choices'"}) {
    INFO(line);
    CHECK_THAT(script, Contains(line));
  }
  CHECK_THAT(script, !Contains("'mlgo-cc'") && !Contains("title 'store-") && Contains("set title 'pcre2: "));

  // The table: every way in the file's order, changes against clang-19, build time against its build.
  REQUIRE(summary.builds.size() == 2);
  const auto table = buildTableRows(summary.builds[0]);
  REQUIRE(table.size() == ways.size());
  for (size_t i = 0; i < ways.size(); ++i) CHECK(table[i][0] == ways[i].name);
  CHECK(table[8] == std::vector<std::string>{"store-3", "-3.50%", "-1.00%", "-3.00%", "passed", "30.0 s (1.50x)"});
  CHECK(table[0] == std::vector<std::string>{"clang-19", "+0.00%", "+0.00%", "+0.00%", "passed", "20.0 s (1.00x)"});
  CHECK(table[7] == std::vector<std::string>{"store-2", "build failed", "", "", "none", "31.0 s (1.55x)"});
  const auto zlib = buildTableRows(summary.builds[1]);
  REQUIRE(zlib.size() == 3);
  CHECK(zlib[2] == std::vector<std::string>{"policy", "-2.50%", "-4.00%", "-3.33%", "failed", "12.0 s (1.20x)"});

  const std::string html = readFile(summary.html);
  CHECK_THAT(html, Contains("<h2>Builds: pcre2</h2>") && Contains("<h2>Builds: zlib</h2>"));
  CHECK_THAT(html, Contains("<tr><td>store-3</td><td>-3.50%</td><td>-1.00%</td><td>-3.00%</td><td>passed</td>"));
  CHECK_THAT(html, Contains("no store builds"));
  CHECK_THAT(html, Contains("data:image/png;base64,") && Contains("<figcaption>builds-pcre2.png</figcaption>"));
  CHECK_THAT(html, !Contains("<h2>Plots</h2>"));  // no training or evaluation plots
}

TEST_CASE("report --builds: a bad comparison is an input error naming the file and the entry, and nothing is written",
          "[report][builds][errors]") {
  test::ScratchDirectory scratch;
  ReportOptions options;
  options.output = scratch / "report";
  const fs::path file = scratch / "comparison.json";
  options.builds = {{"p", file}};
  auto fails = [&](const std::string &what) {
    INFO(what);
    CHECK_THROWS_AS(writeTrainingReport(options), InputError);
    CHECK_FALSE(fs::exists(scratch / "report"));
  };

  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("comparison.json: missing"));
  fails("missing file");

  writeFileAtomically(file, R"({"modules": []})");  // an eval JSON
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("comparison.json: format: not a build comparison"));
  fails("another format");

  nlohmann::json comparison = test::comparisonJson(learningProject());
  comparison["variants"][5].erase("linked_sum");
  writeFileAtomically(file, comparison.dump());
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("comparison.json: variants[5] (predicted): the entry "
                                                           "\"linked_sum\" is missing"));
  fails("no linked_sum");

  comparison = test::comparisonJson(learningProject());
  comparison["variants"][8]["linked_sum"].erase("text+data_change");
  writeFileAtomically(file, comparison.dump());
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("variants[8] (store-3) linked_sum: the entry "
                                                           "\"text+data_change\" is missing"));
  fails("no change in linked_sum");

  comparison = test::comparisonJson(learningProject());
  comparison["variants"][2]["build_seconds"] = "long";
  writeFileAtomically(file, comparison.dump());
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("variants[2] (policy): \"build_seconds\" must be a number"));
  fails("a string for a number");

  comparison["variants"] = nlohmann::json::array();
  writeFileAtomically(file, comparison.dump());
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("comparison.json: variants: no ways"));
  fails("no ways");

  // A label names the plot's file: only a name, and each once.
  writeComparison(file, learningProject());
  options.builds = {{"a/b", file}};
  CHECK_THROWS_AS(writeTrainingReport(options), UsageError);
  options.builds = {{"p", file}, {"p", file}};
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("\"p\" is given twice"));
  CHECK_FALSE(fs::exists(scratch / "report"));

  options.builds = {{"p", file}};
  writeTrainingReport(options);  // the same file, well-formed
  CHECK(fs::exists(scratch / "report/builds-p.png"));
}
