// A ThinLTO build through the real mlgo binary: both extraction flavours, then
// the stages that take a corpus.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;


TEST_CASE("cli: a ThinLTO build extracts in both flavours, traces and evaluates", "[cli][thinlto]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build");
  const std::string local = (scratch / "local").string(), distributed = (scratch / "distributed").string();

  auto extractLocal = test::runMlgo({"extract-ir", "--thinlto-build", "local", "--input", build.local.string(),
                               "--output-dir", local});
  REQUIRE(extractLocal.exitCode == exit_code::kSuccess);
  CHECK_THAT(extractLocal.out, Contains("2 modules extracted"));
  auto extractDistributed =
      test::runMlgo({"extract-ir", "--thinlto-build", "distributed", "--input",
               (build.distributed / "compile_commands.json").string(), "--output-dir", distributed});
  REQUIRE(extractDistributed.exitCode == exit_code::kSuccess);
  CHECK_THAT(extractDistributed.err, Contains("main.o") && Contains("not a ThinLTO backend compile"));
  CHECK(nlohmann::json::parse(readFile(scratch / "distributed" / "corpus_description.json"))["has_thinlto"] == true);

  // The default heuristic's decisions on imported callees are traced.
  auto trace = test::runMlgo({"default-trace", "--corpus", local, "--output", (scratch / "trace").string()});
  REQUIRE(trace.exitCode == exit_code::kSuccess);
  const auto baselines = nlohmann::json::parse(readFile(scratch / "trace" / "baselines.json"));
  CHECK(baselines["sizes"].size() == 2);
  auto info = test::runMlgo({"trace-info", (scratch / "trace").string()});
  REQUIRE(info.exitCode == exit_code::kSuccess);

  // The driver agrees with clang's own ThinLTO backend, and never inlining
  // the imported helpers changes main.o.
  for (const std::string &corpus : {local, distributed}) {
    INFO(corpus);
    const std::string json = corpus + ".eval.json";
    auto eval = test::runMlgo({"eval", "--corpus", corpus, "--inline", "never", "--check-fidelity", "--json", json});
    REQUIRE(eval.exitCode == exit_code::kSuccess);
    const auto report = nlohmann::json::parse(readFile(json));
    CHECK(report["fidelity"]["matching"] == 2);
    CHECK(report["totals"]["compared"] == 2);
    CHECK(report["totals"]["change"]["text"].get<double>() != 0.0);
  }

  // Pass lists replace the backend's pipeline; the recorded compile (the
  // ThinLTO backend's) stays the baseline they must beat.
  auto tuned = test::runMlgo({"autotune", "--corpus", local, "--output", (scratch / "tuned").string(), "--budget", "8",
                        "--no-gate", "--isolation", "thread", "--threads", "2"});
  INFO(tuned.err);
  REQUIRE(tuned.exitCode == exit_code::kSuccess);
  const auto best = nlohmann::json::parse(readFile(scratch / "tuned" / "best.json"));
  CHECK(best["summary"]["modules"] == 2);
  const auto evaluated = nlohmann::json::parse(readFile(local + ".eval.json"));
  size_t compared = 0;
  for (const auto &module : best["modules"]) {
    INFO(module["name"]);
    for (const auto &reference : evaluated["modules"])
      if (reference["name"] == module["name"]) {
        CHECK(module["oz"]["text"] == reference["baseline"]["text"]);
        ++compared;
      }
  }
  CHECK(compared == 2);
}

TEST_CASE("cli: ThinLTO extraction flags and inputs are checked", "[cli][thinlto][errors]") {
  test::ScratchDirectory scratch;
  CHECK(test::runMlgo({"extract-ir", "--thinlto-build", "remote", "--input", scratch.path().string(), "--output-dir",
                 (scratch / "out").string()})
            .exitCode == exit_code::kUsage);
  CHECK(test::runMlgo({"extract-ir", "--thinlto-build", "local", "--thinlto-opt-level", "4", "--input",
                 scratch.path().string(), "--output-dir", (scratch / "out").string()})
            .exitCode == exit_code::kUsage);
  // A directory is a local build's input only.
  auto notAFile = test::runMlgo({"extract-ir", "--thinlto-build", "distributed", "--input", scratch.path().string(),
                           "--output-dir", (scratch / "out").string()});
  CHECK(notAFile.exitCode == exit_code::kBadInput);
  CHECK_THAT(notAFile.err, Contains(scratch.path().string()) && Contains("not a file"));
  // A build with no saved post-import module extracts nothing.
  auto nothing = test::runMlgo({"extract-ir", "--thinlto-build", "local", "--input", scratch.path().string(),
                          "--output-dir", (scratch / "out").string()});
  CHECK(nothing.exitCode == exit_code::kFailure);
  CHECK_FALSE(fs::exists(scratch / "out" / "corpus_description.json"));
}
