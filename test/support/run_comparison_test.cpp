// Run manifests and their comparison on real directories written for the
// test: what a planted difference is reported as.
#include <catch2/catch.hpp>

#include <fstream>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/run_comparison.h"
#include "mlgo/support/run_manifest.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// A run of a made-up training: a corpus of three modules and a config as
/// inputs, a metrics line per iteration and a policy as outputs. The metrics
/// diverge from `divergeAt` (0: never); every line's "seconds" differs.
struct FakeRun {
  fs::path corpus, config, output;
};

FakeRun writeRun(const test::ScratchDirectory &scratch, const std::string &name, int divergeAt,
                 const std::string &config = R"({"learning_rate": 0.01, "hidden": [40, 20]})",
                 const std::string &changedModule = "") {
  FakeRun run{scratch / (name + "-corpus"), scratch / (name + "-config.json"), scratch / name};
  fs::create_directories(run.corpus);
  for (const char *module : {"a.bc", "b.bc", "c.bc"})
    writeFileAtomically(run.corpus / module,
                        std::string("bitcode of ") + module + (changedModule == module ? "!" : ""));
  writeFileAtomically(run.config, config);
  fs::create_directories(run.output / "policy");
  std::string metrics;
  for (int iteration = 1; iteration <= 5; ++iteration) {
    const double loss = divergeAt > 0 && iteration >= divergeAt ? 2.0 / iteration : 1.0 / iteration;
    const double seconds = 0.1 * iteration + divergeAt + double(name.size());
    metrics += nlohmann::json{{"iteration", iteration}, {"loss", loss}, {"seconds", seconds}}.dump() + "\n";
  }
  writeFileAtomically(run.output / "metrics.jsonl", metrics);
  writeFileAtomically(run.output / "policy/policy.json", divergeAt > 0 ? R"({"w": [1, 2]})" : R"({"w": [1, 3]})");
  RunDescription description{"train-x",
                             {{"--corpus", {run.corpus.string()}},
                              {"--config", {run.config.string()}},
                              {"--output", {run.output.string()}},
                              {"--seed", {"1"}},
                              {"--threads", {name}}},
                             "--output"};
  writeRunManifest(description);
  return run;
}

}  // namespace

TEST_CASE("run manifest: inputs and outputs hashed, input paths and thread counts not compared",
          "[support][manifest]") {
  test::ScratchDirectory scratch;
  const FakeRun first = writeRun(scratch, "first", 0), second = writeRun(scratch, "second", 0);
  const auto manifest = nlohmann::json::parse(readFile(first.output / "manifest.json"));
  CHECK(manifest["command"] == "train-x");
  CHECK(manifest["inputs"]["--corpus"]["files"].size() == 3);
  CHECK(manifest["inputs"]["--config"]["json"]["learning_rate"] == 0.01);
  CHECK(manifest["outputs"].contains("policy/policy.json"));
  CHECK_FALSE(manifest["outputs"].contains("manifest.json"));
  CHECK(manifest["outputs"]["metrics.jsonl"].get<std::string>().rfind("sha256:", 0) == 0);

  // Other paths, other --threads, other seconds: the same run, the same result.
  const RunComparison same = compareRuns(first.output, second.output);
  CHECK(same.sameRun());
  CHECK(same.sameResult());
}

TEST_CASE("run comparison: names a changed config key, a changed module and the iteration that diverges",
          "[support][manifest]") {
  test::ScratchDirectory scratch;
  const FakeRun base = writeRun(scratch, "base", 0);

  const FakeRun otherKey = writeRun(scratch, "key", 0, R"({"learning_rate": 0.02, "hidden": [40, 20]})");
  const RunComparison key = compareRuns(base.output, otherKey.output);
  REQUIRE_FALSE(key.sameRun());
  CHECK(key.differences.front().kind == "input");
  CHECK_THAT(key.differences.front().what, Contains("--config") && Contains("/learning_rate (0.01 vs 0.02)"));

  const FakeRun otherModule = writeRun(scratch, "module", 0, R"({"learning_rate": 0.01, "hidden": [40, 20]})", "b.bc");
  const RunComparison module = compareRuns(base.output, otherModule.output);
  REQUIRE_FALSE(module.sameRun());
  CHECK(module.differences.front().what == "file b.bc differs in input --corpus");

  const FakeRun diverged = writeRun(scratch, "diverged", 3);
  const RunComparison result = compareRuns(base.output, diverged.output);
  CHECK(result.sameRun());
  REQUIRE_FALSE(result.sameResult());
  CHECK_THAT(result.differences.front().what, Contains("metrics.jsonl") && Contains("iteration 3 (line 3)") &&
                                                  Contains("/loss"));
  CHECK_THAT(result.differences.at(1).what, Contains("policy/policy.json: /w/1 (3 vs 2)"));
}

TEST_CASE("run comparison: a missing or foreign manifest names the file", "[support][manifest][errors]") {
  test::ScratchDirectory scratch;
  const FakeRun base = writeRun(scratch, "base", 0);
  fs::create_directories(scratch / "empty");
  CHECK_THAT(test::messageOf<InputError>([&] { compareRuns(base.output, scratch / "empty"); }),
             Contains((scratch / "empty/manifest.json").string()) && Contains("no run manifest"));
  writeFileAtomically(scratch / "empty/manifest.json", R"({"format": "something else"})");
  CHECK_THAT(test::messageOf<InputError>([&] { compareRuns(scratch / "empty", base.output); }),
             Contains("not an mlgo run manifest"));
}

TEST_CASE("run comparison: first JSON difference, leaving out what measures time", "[support][manifest]") {
  using nlohmann::json;
  CHECK(firstJsonDifference(json{{"a", 1}, {"seconds", 2}}, json{{"a", 1}, {"seconds", 3}}) == "");
  CHECK(firstJsonDifference(json{{"collect_seconds", 1.5}}, json{{"collect_seconds", 9}}) == "");
  CHECK(firstJsonDifference(json{{"a", {1, 2}}}, json{{"a", {1, 5}}}) == "/a/1 (2 vs 5)");
  const json before = json::parse(R"({"modules": [{"module": "x.o", "text": 1}, {"module": "y.o", "text": 2}]})");
  const json after = json::parse(R"({"modules": [{"module": "x.o", "text": 1}, {"module": "y.o", "text": 3}]})");
  CHECK(firstJsonDifference(before, after) == "/modules/y.o/text (2 vs 3)");
  CHECK(firstJsonDifference(json{{"a", 1}}, json{{"b", 1}}) == "/a (in only one run)");
}
