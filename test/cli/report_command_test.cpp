// `mlgo combine-corpus` and `mlgo report` as scripts drive them.
#include <catch2/catch.hpp>

#include <filesystem>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
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
