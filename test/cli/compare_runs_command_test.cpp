// mlgo compare-runs on the real binary: CI's own pipelines (train-bc, then
// train-ppo or train-es warm-started from it) rerun in another folder are the
// same run with the same result, a policy changed after the run is named, and
// broken or hostile manifests end with the README's exit codes.
#include <catch2/catch.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/run_manifest.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

void requireSuccess(const test::CommandOutcome &outcome) {
  INFO(outcome.err);
  REQUIRE(outcome.exitCode == exit_code::kSuccess);
}

/// train-bc, then train-ppo and train-es warm-started from its output
/// directory (as a CI pipeline gives it), all in `folder` with its own copy
/// of the trace and vocab (which the BC policy records by path), with one seed.
void runPipelines(const test::TracedTestCorpus &traced, const std::string &folder) {
  const fs::path trace = traced / folder / "trace", vocab = traced / folder / "vocab";
  fs::create_directories(traced / folder);
  fs::copy(traced / "trace", trace, fs::copy_options::recursive);
  fs::copy(traced / "vocab", vocab, fs::copy_options::recursive);
  const std::string bc = (traced / folder / "bc").string();
  requireSuccess(test::runMlgo({"train-bc", "--trace", trace.string(), "--vocab", vocab.string(), "--output", bc,
                                "--seed", "3", "--set", "iterations=40", "--set", "report_every=20"}));
  requireSuccess(test::runMlgo({"train-ppo",
                                "--corpus",
                                (traced / "corpus").string(),
                                "--vocab",
                                vocab.string(),
                                "--baselines",
                                trace.string(),
                                "--warmstart",
                                bc,
                                "--output",
                                (traced / folder / "ppo").string(),
                                "--seed",
                                "3",
                                "--set",
                                "num_policy_iterations=1",
                                "--set",
                                "num_modules=5",
                                "--set",
                                "num_iterations=40",
                                "--set",
                                "batch_size=8",
                                "--set",
                                "train_sequence_length=4"}));
  requireSuccess(test::runMlgo({"train-es", "--corpus", (traced / "corpus").string(), "--warmstart", bc, "--baselines",
                                trace.string(), "--output", (traced / folder / "es").string(), "--seed", "3", "--set",
                                "iterations=1", "--set", "perturbations=2", "--set", "modules_per_iteration=2", "--set",
                                "checkpoint_every=0"}));
}

test::CommandOutcome compare(const fs::path &first, const fs::path &second) {
  return test::runMlgo({"compare-runs", first.string(), second.string()});
}

/// A finished run made up for the test: a policy and a metrics file, and
/// its manifest.
fs::path writeRun(const test::ScratchDirectory &scratch, const std::string &name) {
  const fs::path output = scratch / name;
  writeFileAtomically(output / "policy/policy.json", R"({"w": [1, 2]})");
  writeFileAtomically(output / "metrics.jsonl", R"({"iteration": 1, "loss": 0.5})"
                                                "\n");
  writeRunManifest(RunDescription{"train-x", {{"--output", {output.string()}}, {"--seed", {"1"}}}, "--output", {}});
  return output;
}

}  // namespace

TEST_CASE(
    "compare-runs: BC then PPO and BC then ES, run twice in two folders with one seed, are the same run, "
    "and a policy file changed or removed after the run is named",
    "[cli][manifest]") {
  test::TracedTestCorpus traced;
  for (const char *folder : {"one", "two"}) runPipelines(traced, folder);
  for (const char *run : {"bc", "ppo", "es"}) {
    INFO(run);
    const auto outcome = compare(traced / "one" / run, traced / "two" / run);
    INFO(outcome.err);
    CHECK(outcome.out == "same run, same result\n");
    CHECK(outcome.exitCode == exit_code::kSuccess);
  }

  writeFileAtomically(traced / "two/ppo/policy/model.json",
                      readFile(traced / "two/ppo/policy/model.json") + "\n");  // JSON-equal, other bytes
  const auto edited = compare(traced / "one/ppo", traced / "two/ppo");
  CHECK(edited.exitCode == exit_code::kRunsDiffer);
  CHECK(edited.out ==
        "same run, different result: output policy/model.json of the second run changed since its manifest was "
        "written\n");

  fs::remove_all(traced / "one/es/policy");
  const auto removed = compare(traced / "one/es", traced / "two/es");
  CHECK(removed.exitCode == exit_code::kRunsDiffer);
  CHECK_THAT(removed.out, Contains("same run, different result: output policy/model.json of the first run is missing "
                                   "(its manifest lists it)"));
}

TEST_CASE("compare-runs: broken and hostile manifests end with the README's exit codes", "[cli][manifest][errors]") {
  test::ScratchDirectory scratch;
  const fs::path first = writeRun(scratch, "first"), second = writeRun(scratch, "second");
  REQUIRE(compare(first, second).exitCode == exit_code::kSuccess);
  const std::string manifest = readFile(second / "manifest.json");

  SECTION("fields of the wrong JSON type: exit 3, naming the manifest and the entry") {
    auto changed = nlohmann::json::parse(manifest);
    changed["flags"]["--seed"] = 1;
    writeFileAtomically(second / "manifest.json", changed.dump());
    const auto outcome = compare(first, second);
    CHECK(outcome.exitCode == exit_code::kBadInput);
    CHECK_THAT(outcome.err, Contains((second / "manifest.json").string() + ": flags.--seed: expected a list"));
    CHECK_THAT(outcome.err, !Contains("json.exception"));
  }
  SECTION("a run directory that is a loop of symbolic links: exit 3, naming it") {
    fs::create_symlink(scratch / "loop", scratch / "loop");
    const auto outcome = compare(scratch / "loop", second);
    CHECK(outcome.exitCode == exit_code::kBadInput);
    CHECK_THAT(outcome.err, Contains((scratch / "loop").string() + ": cannot be read"));
  }
  SECTION("an output named outside the run: exit 3, the file never read") {
    // Runs at two depths: "../secret.json" is another file beside each.
    const fs::path deeper = writeRun(scratch, "deeper/second");
    writeFileAtomically(scratch / "secret.json", R"({"password": "hunter2"})");
    writeFileAtomically(scratch / "deeper/secret.json", R"({"password": "swordfish"})");
    for (const fs::path &run : {first, deeper}) {
      auto changed = nlohmann::json::parse(readFile(run / "manifest.json"));
      changed["outputs"]["../secret.json"] = "sha256:" + run.filename().string();
      writeFileAtomically(run / "manifest.json", changed.dump());
    }
    const auto outcome = compare(first, deeper);
    CHECK(outcome.exitCode == exit_code::kBadInput);
    CHECK_THAT(outcome.err, Contains("outputs.../secret.json: not a path inside the run's output"));
    CHECK_THAT(outcome.out + outcome.err, !Contains("hunter2") && !Contains("swordfish"));
  }
  SECTION("outputs nested 200,000 levels deep that differ: exit 8, the difference named") {
    writeFileAtomically(first / "deep.json", std::string(200000, '[') + "1" + std::string(200000, ']'));
    writeFileAtomically(second / "deep.json", std::string(200000, '[') + "2" + std::string(200000, ']'));
    for (const fs::path &run : {first, second})
      writeRunManifest(RunDescription{"train-x", {{"--output", {run.string()}}, {"--seed", {"1"}}}, "--output", {}});
    const auto outcome = compare(first, second);
    CHECK(outcome.exitCode == exit_code::kRunsDiffer);
    CHECK_THAT(outcome.out, Contains("same run, different result: output deep.json: /0/0/") &&
                                Contains(" levels .../0/") && Contains("(1 vs 2)"));
  }
}
