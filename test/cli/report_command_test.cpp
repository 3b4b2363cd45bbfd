// `mlgo combine-corpus` and `mlgo report` as scripts drive them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <iterator>
#include <sstream>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/output_directory.h"
#include "report/build_comparison_files.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

TEST_CASE("cli: combine-corpus, eval of the combined corpus, report with its table", "[cli][report]") {
  test::ScratchDirectory scratch;
  for (const char *part : {"one", "two"}) test::extractTestCorpus(scratch / "corpora" / part);
  auto combined = test::runProgram(test::mlgoBinary(), {"combine-corpus", "--root", (scratch / "corpora").string()});
  INFO(combined.err);
  REQUIRE(combined.exitCode == exit_code::kSuccess);
  CHECK_THAT(combined.out, Contains("14 modules of 2 corpora"));

  auto eval = test::runProgram(test::mlgoBinary(),
                               {"eval", "--corpus", (scratch / "corpora").string(), "--inline", "never", "--threads",
                                "2", "--json", (scratch / "never.json").string()});
  INFO(eval.err);
  REQUIRE(eval.exitCode == exit_code::kSuccess);

  auto report = test::runProgram(test::mlgoBinary(), {"report", "--eval", "never=" + (scratch / "never.json").string(),
                                                      "--output", (scratch / "report").string()});
  INFO(report.err);
  REQUIRE(report.exitCode == exit_code::kSuccess);
  CHECK_THAT(report.out, Contains("never") && Contains("14 modules") && Contains("index.html"));
  CHECK(fs::exists(scratch / "report/index.html"));
  CHECK(fs::exists(scratch / "report/size-change-histogram.png"));
  CHECK_FALSE(fs::exists(scratch / "report/reward.png"));  // no run, no training curves

  // Bad flags and inputs.
  CHECK(test::runProgram(test::mlgoBinary(), {"report", "--eval", "no-label", "--output", (scratch / "r").string()})
            .exitCode == exit_code::kUsage);
  CHECK(test::runProgram(test::mlgoBinary(), {"report", "--output", (scratch / "r").string()}).exitCode ==
        exit_code::kUsage);
  // --metric: sizes and the problems' measures; anything else is a usage error.
  auto unknownMetric =
      test::runProgram(test::mlgoBinary(), {"report", "--eval", "never=" + (scratch / "never.json").string(),
                                            "--metric", "spills", "--output", (scratch / "r").string()});
  CHECK(unknownMetric.exitCode == exit_code::kUsage);
  CHECK_THAT(unknownMetric.err, Contains("regalloc_score"));
  auto missing = test::runProgram(test::mlgoBinary(), {"report", "--eval", "x=" + (scratch / "none.json").string(),
                                                       "--output", (scratch / "r").string()});
  CHECK(missing.exitCode == exit_code::kBadInput);
  CHECK_THAT(missing.err, Contains("none.json"));
  CHECK(test::runProgram(test::mlgoBinary(), {"combine-corpus", "--root", (scratch / "absent").string()}).exitCode ==
        exit_code::kBadInput);
  fs::create_directories(scratch / "no-parts");
  auto noParts = test::runProgram(test::mlgoBinary(), {"combine-corpus", "--root", (scratch / "no-parts").string()});
  CHECK(noParts.exitCode == exit_code::kBadInput);
  CHECK_THAT(noParts.err, Contains("no-parts"));
}

TEST_CASE("cli: report --builds alone prints each way's table, and bad comparisons and spellings stop it",
          "[cli][report][builds]") {
  test::ScratchDirectory scratch;
  const fs::path file = scratch / "comparison.json";
  writeFileAtomically(file, test::comparisonJson({{"clang-19", 1000, 2000, 3000, 20},
                                                  {"mlgo-cc", 1000, 2000, 3000, 21},
                                                  {"predicted", 1005, 1960, 2940, 24},
                                                  {"store-1", 1002, 1990, 2990, 30},
                                                  {"store-2", 995, 1950, 2950, 30},
                                                  {"store-3", 990, 1930, 2910, 30},
                                                  {"choices", 985, 1940, 2920, 22}})
                                .dump());
  auto report =
      test::runMlgo({"report", "--builds", "pcre2=" + file.string(), "--output", (scratch / "report").string()});
  INFO(report.err);
  REQUIRE(report.exitCode == exit_code::kSuccess);
  CHECK_THAT(report.out, Contains("builds pcre2 (" + file.string() + "): plotted as builds-pcre2.png"));
  // The table's store-3 line: linked .text+data, linked .text, objects .text+data, tests, build time.
  const size_t store3 = report.out.find("\nstore-3 ");
  REQUIRE(store3 != std::string::npos);
  std::istringstream cells(report.out.substr(store3 + 1, report.out.find('\n', store3 + 1) - store3 - 1));
  std::vector<std::string> words{std::istream_iterator<std::string>(cells), {}};
  CHECK(words == std::vector<std::string>{"store-3", "-3.50%", "-1.00%", "-3.00%", "passed", "30.0", "s", "(1.50x)"});
  CHECK_THAT(report.out, Contains("report: ") && Contains("index.html (1 plots)"));
  CHECK(fs::exists(scratch / "report/builds-pcre2.png"));
  CHECK(fs::exists(scratch / "report/data/builds-pcre2.tsv"));

  // A usage error (exit 2) for a LABEL=FILE spelled otherwise or a label that cannot name a file.
  for (const std::string &value :
       {std::string("no-label"), "=" + file.string(), std::string("p="), "a/b=" + file.string()}) {
    auto bad = test::runMlgo({"report", "--builds", value, "--output", (scratch / "r").string()});
    INFO(value);
    CHECK(bad.exitCode == exit_code::kUsage);
    CHECK_THAT(bad.err, Contains("--builds"));
  }

  // Input errors (exit 3) name the file and the entry; nothing is written.
  auto inputError = [&](const std::string &contents, const std::string &message) {
    const fs::path bad = scratch / "bad.json";
    if (!contents.empty()) writeFileAtomically(bad, contents);
    auto outcome = test::runMlgo({"report", "--builds", "p=" + bad.string(), "--output", (scratch / "r").string()});
    INFO(outcome.err);
    CHECK(outcome.exitCode == exit_code::kBadInput);
    CHECK_THAT(outcome.err, Contains(bad.string() + ": " + message));
    CHECK_FALSE(holdsOutput(scratch / "r"));
    fs::remove(bad);
  };
  inputError("", "missing");
  inputError(R"({"format": "mlgo-unit-choices", "version": 1, "units": {}})", "format: not a build comparison");
  nlohmann::json noLinkedSum = test::comparisonJson({{"clang-19", 1000, 2000, 3000, 20}, {"store-1", 990, 1990, 2990}});
  noLinkedSum["variants"][1].erase("linked_sum");
  inputError(noLinkedSum.dump(), "variants[1] (store-1): the entry \"linked_sum\" is missing");
}
