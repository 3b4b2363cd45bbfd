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

/// The description of a FakeRun's run (its thread count differs by name).
RunDescription descriptionOf(const FakeRun &run, const std::string &name) {
  return RunDescription{"train-x",
                        {{"--corpus", {run.corpus.string()}},
                         {"--config", {run.config.string()}},
                         {"--output", {run.output.string()}},
                         {"--seed", {"1"}},
                         {"--threads", {name}}},
                        "--output",
                        {}};
}

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
  writeRunManifest(descriptionOf(run, name));
  return run;
}

/// Arrays nested `levels` deep around `innermost`: "[[[1]]]".
std::string nestedArrays(size_t levels, const std::string &innermost) {
  return std::string(levels, '[') + innermost + std::string(levels, ']');
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

TEST_CASE("run manifest: TensorBoard event files in an input directory are not part of the input",
          "[support][manifest]") {
  // A warm start from a rerun's training directory holds event files named
  // by the time, host and pid of the run that wrote them.
  test::ScratchDirectory scratch;
  const FakeRun first = writeRun(scratch, "first", 0), second = writeRun(scratch, "second", 0);
  writeFileAtomically(first.corpus / "events.out.tfevents.1700000000.hostA.123.0", "log of the first");
  writeFileAtomically(second.corpus / "events.out.tfevents.1700000099.hostB.456.0", "log of the second");
  writeRunManifest(descriptionOf(first, "first"));
  writeRunManifest(descriptionOf(second, "second"));
  CHECK(nlohmann::json::parse(readFile(first.output / "manifest.json"))["inputs"]["--corpus"]["files"].size() == 3);
  const RunComparison comparison = compareRuns(first.output, second.output);
  std::string differences;
  for (const RunDifference &difference : comparison.differences) differences += difference.what + "\n";
  INFO(differences);
  CHECK(comparison.sameResult());
}

TEST_CASE("run comparison: hashes the outputs as they are, naming one changed, missing or added since its manifest",
          "[support][manifest]") {
  test::ScratchDirectory scratch;
  const FakeRun first = writeRun(scratch, "first", 0), second = writeRun(scratch, "second", 0);
  writeFileAtomically(second.output / "policy/policy.json", R"({"w": [1, 4]})");
  const RunComparison edited = compareRuns(first.output, second.output);
  CHECK(edited.sameRun());
  REQUIRE(edited.differences.size() == 2);
  CHECK(edited.differences[0].what ==
        "output policy/policy.json of the second run changed since its manifest was written");
  CHECK(edited.differences[1].what == "output policy/policy.json: /w/1 (3 vs 4)");

  // The same edit in both runs: equal files, each changed since its manifest.
  writeFileAtomically(first.output / "policy/policy.json", R"({"w": [1, 4]})");
  const RunComparison both = compareRuns(first.output, second.output);
  REQUIRE(both.differences.size() == 2);
  CHECK_THAT(both.differences[0].what, Contains("policy/policy.json of the first run changed"));
  CHECK_THAT(both.differences[1].what, Contains("policy/policy.json of the second run changed"));

  fs::remove_all(second.output / "policy");
  writeFileAtomically(first.output / "policy/policy.json", R"({"w": [1, 3]})");
  writeFileAtomically(first.output / "notes.json", "{}");
  const RunComparison removed = compareRuns(first.output, second.output);
  REQUIRE_FALSE(removed.differences.empty());
  CHECK(removed.differences[0].what == "output notes.json of the first run is not in its manifest (written after it)");
  CHECK(removed.differences.at(1).what ==
        "output policy/policy.json of the second run is missing (its manifest lists it)");
}

TEST_CASE("run comparison: every path read from a manifest stays inside its run", "[support][manifest][errors]") {
  test::ScratchDirectory scratch;
  const FakeRun first = writeRun(scratch, "first", 0), second = writeRun(scratch, "second", 0);
  writeFileAtomically(scratch / "secret.json", R"({"password": "hunter2"})");
  writeFileAtomically(scratch / "other-secret.json", R"({"password": "swordfish"})");
  const auto original = nlohmann::json::parse(readFile(first.output / "manifest.json"));
  const std::string outside[][2] = {{"../secret.json", "../other-secret.json"},
                                    {(scratch / "secret.json").string(), (scratch / "other-secret.json").string()},
                                    {"policy/../../secret.json", "policy/../../other-secret.json"}};
  for (const auto &[mine, theirs] : outside) {
    INFO(mine);
    for (const auto &[run, name] : {std::pair(first, mine), std::pair(second, theirs)}) {
      nlohmann::json manifest = original;
      manifest["outputs"][name] = "sha256:" + name;
      writeFileAtomically(run.output / "manifest.json", manifest.dump());
    }
    const std::string message = test::messageOf<InputError>([&] { compareRuns(first.output, second.output); });
    CHECK_THAT(message, Contains((first.output / "manifest.json").string()) && Contains("outputs." + mine) &&
                            Contains("not a path inside the run's output"));
    CHECK_THAT(message, !Contains("hunter2") && !Contains("swordfish"));
  }

  // A link in a run's output to a file outside it is not the run's file.
  writeRunManifest(descriptionOf(first, "first"));
  fs::create_symlink(scratch / "secret.json", second.output / "leak.json");
  writeRunManifest(descriptionOf(second, "second"));
  fs::copy_file(scratch / "other-secret.json", first.output / "leak.json");
  writeRunManifest(descriptionOf(first, "first"));
  const std::string message = test::messageOf<InputError>([&] { compareRuns(first.output, second.output); });
  CHECK_THAT(message, Contains((second.output / "leak.json").string()) && Contains("outside the run's output"));
  CHECK_THAT(message, !Contains("hunter2") && !Contains("swordfish"));
}

TEST_CASE("run comparison: manifest entries of the wrong JSON type name the manifest and the entry",
          "[support][manifest][errors]") {
  using nlohmann::json;
  test::ScratchDirectory scratch;
  const FakeRun first = writeRun(scratch, "first", 0), second = writeRun(scratch, "second", 0);
  const fs::path file = second.output / "manifest.json";
  const json original = json::parse(readFile(file));
  const std::vector<std::tuple<std::string, json, std::string>> cases{
      {"/format", 3, ": not an mlgo run manifest"},
      {"/command", 5, ": command: expected a string"},
      {"/mlgo_version", json::array(), ": mlgo_version: expected a string"},
      {"/output_flag", json::object(), ": output_flag: expected a string"},
      {"/flags", "--seed", ": flags: expected an object"},
      {"/flags/--seed", 1, ": flags.--seed: expected a list of strings"},
      {"/flags/--seed", json::array({1}), ": flags.--seed[0]: expected a string"},
      {"/inputs", json::array(), ": inputs: expected an object"},
      {"/inputs/--corpus", 3, ": inputs.--corpus: expected an object"},
      {"/inputs/--corpus/path", 3, ": inputs.--corpus.path: expected a string"},
      {"/inputs/--corpus/files/a.bc", 3, ": inputs.--corpus.files.a.bc: expected a string"},
      {"/inputs/--config/sha256", false, ": inputs.--config.sha256: expected a string"},
      {"/outputs", 7, ": outputs: expected an object of strings"},
      {"/outputs/metrics.jsonl", json::object(), ": outputs.metrics.jsonl: expected a string"}};
  for (const auto &[pointer, value, expected] : cases) {
    INFO(pointer);
    json manifest = original;
    manifest[json::json_pointer(pointer)] = value;
    writeFileAtomically(file, manifest.dump());
    const std::string message = test::messageOf<InputError>([&] { compareRuns(first.output, second.output); });
    CHECK_THAT(message, Contains(file.string() + expected));
    CHECK_THAT(message, !Contains("json.exception"));
  }
  writeFileAtomically(file, R"({"format": "mlgo-run-manifest", "command": )");
  CHECK_THAT(test::messageOf<InputError>([&] { compareRuns(first.output, second.output); }),
             Contains(file.string()) && Contains("not valid JSON: syntax error at line 1") &&
                 !Contains("json.exception"));
}

TEST_CASE("run comparison: a run directory that is a loop of symbolic links is named", "[support][manifest][errors]") {
  test::ScratchDirectory scratch;
  const FakeRun base = writeRun(scratch, "base", 0);
  fs::create_symlink(scratch / "loop", scratch / "loop");
  CHECK_THAT(test::messageOf<InputError>([&] { compareRuns(scratch / "loop", base.output); }),
             Contains((scratch / "loop").string() + ": cannot be read: ") && Contains("symbolic links"));
}

TEST_CASE("run comparison: JSON nested 200,000 levels deep is compared without recursion", "[support][manifest]") {
  using nlohmann::json;
  // nlohmann's parser reads any depth without recursing (so such an output
  // is no malformed input), and so must the comparison.
  const json one = json::parse(nestedArrays(200000, "1")), two = json::parse(nestedArrays(200000, "2"));
  CHECK(firstJsonDifference(one, one) == "");
  const std::string zeros = [] {
    std::string text;
    for (int i = 0; i < 16; ++i) text += "/0";
    return text;
  }();
  const std::string where = zeros + "/... 199975 levels .../0/0/0/0/0/0/0/0/0 (1 vs 2)";
  CHECK(firstJsonDifference(one, two) == where);
  // (Parsed, not built: json's copy constructor recurses once per level.)
  CHECK(firstJsonDifference(json::parse("{\"a\": " + nestedArrays(200000, "1") + "}"), json{{"a", 3}}) ==
        "/a/ ([...] vs 3)");

  test::ScratchDirectory scratch;
  const FakeRun first = writeRun(scratch, "first", 0), second = writeRun(scratch, "second", 0);
  writeFileAtomically(first.output / "deep.json", nestedArrays(200000, "1"));
  writeFileAtomically(second.output / "deep.json", nestedArrays(200000, "2"));
  writeFileAtomically(first.output / "deep.jsonl", "{\"iteration\": " + nestedArrays(200000, "1") + ", \"a\": 1}\n");
  writeFileAtomically(second.output / "deep.jsonl", "{\"iteration\": " + nestedArrays(200000, "1") + ", \"a\": 2}\n");
  writeRunManifest(descriptionOf(first, "first"));
  writeRunManifest(descriptionOf(second, "second"));
  const RunComparison comparison = compareRuns(first.output, second.output);
  REQUIRE(comparison.differences.size() == 2);
  CHECK(comparison.differences[0].what == "output deep.jsonl: iteration [...] (line 1), /a (1 vs 2)");
  CHECK(comparison.differences[1].what == "output deep.json: " + where);
}

TEST_CASE("run manifest: a JSON input is kept whole only when nested no deeper than a config", "[support][manifest]") {
  // 30,000 levels fit in 64 KiB; kept whole, the manifest's dump(2) would
  // recurse 30,000 deep and indent each level further.
  test::ScratchDirectory scratch;
  const std::string config = "{\"a\": " + nestedArrays(30000, "1") + "}";
  REQUIRE(config.size() <= 64 * 1024);
  const FakeRun deep = writeRun(scratch, "deep", 0, config);
  const auto manifest = nlohmann::json::parse(readFile(deep.output / "manifest.json"));
  CHECK(manifest["inputs"]["--config"].contains("sha256"));
  CHECK_FALSE(manifest["inputs"]["--config"].contains("json"));
  const FakeRun shallow = writeRun(scratch, "shallow", 0, "{\"a\": " + nestedArrays(63, "1") + "}");
  CHECK(nlohmann::json::parse(readFile(shallow.output / "manifest.json"))["inputs"]["--config"].contains("json"));
}
