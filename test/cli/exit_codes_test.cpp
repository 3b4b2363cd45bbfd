// The README's exit codes under hostile flags and inputs (issue 60): a flag
// value that cannot work is exit 2 before anything runs, a damaged input is
// exit 3 naming the file in mlgo's words, and a rerun meets no leftovers.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/temporary_directory.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// The pid of a process that has ended.
pid_t endedProcess() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

}  // namespace

TEST_CASE("cli exit codes: a directory where a file is to be written is a bad flag value, before the run",
          "[cli][errors]") {
  test::ScratchDirectory scratch;
  const std::string corpus = (scratch / "corpus").string();
  test::extractTestCorpus(corpus);
  fs::create_directories(scratch / "dir");
  const std::string directory = (scratch / "dir").string();
  auto usage = [](const std::vector<std::string> &args, const std::string &flag, const std::string &path) {
    const test::CommandOutcome outcome = test::runMlgo(args);
    INFO(outcome.err);
    CHECK(outcome.exitCode == exit_code::kUsage);
    CHECK_THAT(outcome.err, Contains(flag) && Contains(path + " names a directory"));
  };
  usage({"predict-passes", "--corpus", corpus, "--json", directory}, "--json", directory);
  usage({"predict-passes", "--corpus", corpus, "--json", directory + "/new/"}, "--json", directory + "/new/");
  usage({"eval", "--corpus", corpus, "--json", directory}, "--json", directory);
  usage({"select-coreset", "--sweep", (scratch / "sweep").string(), "--output", directory}, "--output", directory);
  usage({"autotune", "--corpus", corpus, "--output", (scratch / "tuned").string(), "--dataset", directory},
        "--dataset", directory);
  CHECK_FALSE(fs::exists(scratch / "tuned"));
  CHECK(fs::is_empty(scratch / "dir"));
}

TEST_CASE("cli exit codes: predict-passes that ranks no module is exit 1 and writes nothing, some is exit 4",
          "[cli][predictor][errors]") {
  test::ScratchDirectory scratch;
  const std::string corpus = (scratch / "corpus").string(), json = (scratch / "predicted.json").string();
  const Corpus extracted = test::extractTestCorpus(corpus);
  writeFileAtomically(extracted.modules[0].bitcodePath, "not bitcode");
  const test::CommandOutcome some = test::runMlgo({"predict-passes", "--corpus", corpus, "--json", json});
  INFO(some.err);
  CHECK(some.exitCode == exit_code::kPartialFailure);
  CHECK(fs::exists(json));
  fs::remove(json);
  for (const CorpusModule &module : extracted.modules) writeFileAtomically(module.bitcodePath, "not bitcode");
  const test::CommandOutcome none = test::runMlgo({"predict-passes", "--corpus", corpus, "--json", json});
  INFO(none.err);
  CHECK(none.exitCode == exit_code::kFailure);
  CHECK_THAT(none.err, Contains("no module of " + corpus + " could be ranked"));
  CHECK_FALSE(fs::exists(json));
}

TEST_CASE("cli exit codes: a sampling share that keeps nothing is a bad flag value, not an empty input",
          "[cli][errors]") {
  test::TracedTestCorpus traced;
  const std::string corpus = (traced / "corpus").string(), trace = (traced / "trace").string();
  auto usage = [](const std::vector<std::string> &args, const std::string &why) {
    const test::CommandOutcome outcome = test::runMlgo(args);
    INFO(outcome.err);
    CHECK(outcome.exitCode == exit_code::kUsage);
    CHECK_THAT(outcome.err, Contains(why));
  };
  const std::string vocab = (traced / "v").string();
  usage({"gen-vocab", "--trace", trace, "--output-dir", vocab, "--sampling-fraction", "1e-300"},
        "--sampling-fraction 1e-300 rounds to nothing");
  // Above the resolution, but too small for this trace's decisions.
  usage({"gen-vocab", "--trace", trace, "--output-dir", vocab, "--sampling-fraction", "1e-12"},
        "--sampling-fraction 1e-12 keeps none of the");
  for (const fs::directory_entry &entry : fs::directory_iterator(vocab))
    CHECK(entry.path().filename().string()[0] == '.');  // the output lock only: no vocab file
  const std::string output = (traced / "t").string();
  usage({"default-trace", "--corpus", corpus, "--output", output, "--sampling-rate", "1e-300"},
        "--sampling-rate 1e-300 rounds to nothing");
  usage({"default-trace", "--corpus", corpus, "--output", output, "--force", "--sampling-rate", "1e-9"},
        "--sampling-rate 1e-09 samples none of the 7 modules");
  usage({"default-trace", "--corpus", corpus, "--output", output, "--force", "--module-filter", "^nothing$"},
        "--module-filter ^nothing$ matches none of the 7 modules");
  CHECK_FALSE(fs::exists(fs::path(output) / "description.json"));
}

TEST_CASE("cli exit codes: damaged pool files and cache files are named in mlgo's words, not the JSON library's",
          "[cli][errors]") {
  test::ScratchDirectory scratch;
  const std::string corpus = (scratch / "corpus").string(), cache = (scratch / "cache").string();
  test::extractTestCorpus(corpus);
  writeFileAtomically(scratch / "pool" / "p.jsonl", "{\"format\": tru}\n");
  const test::CommandOutcome pool = test::runMlgo({"pool-info", "--pool", (scratch / "pool").string()});
  CHECK(pool.exitCode == exit_code::kBadInput);
  CHECK_THAT(pool.err, Contains("p.jsonl: line 1: format: not valid JSON: syntax error at column 15: invalid literal"));
  CHECK_THAT(pool.err, !Contains("json.exception") && !Contains("parse error"));

  REQUIRE(test::runMlgo({"eval", "--corpus", corpus, "--cache-dir", cache}).exitCode == exit_code::kSuccess);
  size_t damaged = 0;
  for (const fs::directory_entry &entry : fs::recursive_directory_iterator(cache))
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      writeFileAtomically(entry.path(), damaged++ % 2 ? "{\"format\": " : "{\"result\": \"\"}");
  REQUIRE(damaged > 1);
  const test::CommandOutcome eval = test::runMlgo({"eval", "--corpus", corpus, "--cache-dir", cache});
  CHECK(eval.exitCode == exit_code::kSuccess);
  CHECK_THAT(eval.err, Contains("ignoring the damaged cache file") &&
                           Contains("not valid JSON: syntax error at line 1, column 12: unexpected end of input") &&
                           Contains("the entry \"format\" is missing"));
  CHECK_THAT(eval.err, !Contains("json.exception"));
}

TEST_CASE("cli exit codes: a killed run's temporary directory is removed by the next run, a running one's kept",
          "[cli][harvest]") {
  test::ScratchDirectory scratch;
  const std::string corpus = (scratch / "corpus").string();
  test::extractTestCorpus(corpus);
  // As a harvest killed while gating leaves it.
  const fs::path killed = fs::temp_directory_path() / ("mlgo-harvest-gate-" + std::to_string(endedProcess()));
  writeFileAtomically(killed / "prog.c.0" / "a.out", std::string(4096, 'x'));
  // A directory of a run still going (this test's process) stays.
  const fs::path running = fs::temp_directory_path() / ("mlgo-harvest-gate-" + std::to_string(::getpid()));
  writeFileAtomically(running / "a.out", "running");
  const test::CommandOutcome harvest =
      test::runMlgo({"harvest", "--corpus", corpus, "--pool", (scratch / "pool").string(), "--budget", "2",
                     "--limit", "1", "--no-gate", "--isolation", "thread", "--threads", "1"});
  INFO(harvest.err);
  CHECK(harvest.exitCode == exit_code::kSuccess);
  CHECK_FALSE(fs::exists(killed));
  CHECK(readFile(running / "a.out") == "running");
  fs::remove_all(running);
  // The harvest's own directory went with it.
  CHECK(leftTemporaryDirectories("mlgo-harvest-gate").empty());
}

namespace {

const std::string &deepArray() {
  static const std::string deep = std::string(200000, '[') + "1" + std::string(200000, ']');
  return deep;
}

/// `file`, a JSON object, with a 200,000-deep array under a key no reader
/// knows: what a shared policy or corpus could carry to crash its users.
void plantDeepValue(const fs::path &file) {
  std::string text = readFile(file);
  const size_t brace = text.find('{');
  REQUIRE(brace != std::string::npos);
  text.insert(brace + 1, "\"unknown\": " + deepArray() + ", ");
  writeFileAtomically(file, text);
}

void requireRefused(const test::CommandOutcome &outcome, const std::string &file) {
  INFO(outcome.err.substr(0, 2000));
  CHECK(outcome.exitCode == exit_code::kBadInput);
  CHECK_THAT(outcome.err, Contains(file + ": unknown[0][0]") && Contains("nested deeper than the 256 levels"));
  CHECK(outcome.err.size() < 2000);  // the path is cut, not 200,000 levels long
}

}  // namespace

TEST_CASE("cli exit codes: a value nested 200,000 levels deep in any JSON input is exit 3 naming the file",
          "[cli][errors][security]") {
  test::TracedTestCorpus traced;
  const std::string corpus = (traced / "corpus").string();

  SECTION("a policy") {
    test::randomInliningPolicy(traced, 1).save(traced / "policy");
    plantDeepValue(traced / "policy" / "policy.json");
    requireRefused(test::runMlgo({"eval", "--corpus", corpus, "--policy", (traced / "policy").string()}),
                   "policy.json");
  }
  SECTION("a corpus description") {
    fs::copy(corpus, traced / "deep", fs::copy_options::recursive);
    plantDeepValue(traced / "deep" / "corpus_description.json");
    requireRefused(test::runMlgo({"eval", "--corpus", (traced / "deep").string()}), "corpus_description.json");
  }
  SECTION("a choice file") {
    writeFileAtomically(traced / "choices.json", "{\"format\": \"mlgo-unit-choices\", \"version\": 1}");
    plantDeepValue(traced / "choices.json");
    const fs::path object = traced / "helpers.o";
    requireRefused(test::runMlgo({"cc", "--choices", (traced / "choices.json").string(), "clang-19", "-Oz", "-c",
                                  (test::testData() / "helpers.c").string(), "-o", object.string()}),
                   "choices.json");
    CHECK_FALSE(fs::exists(object));
  }
  SECTION("a config") {
    writeFileAtomically(traced / "config.json", "{\"learning_rate\": 0.001}");
    plantDeepValue(traced / "config.json");
    requireRefused(test::runMlgo({"train-bc", "--trace", (traced / "trace").string(), "--vocab",
                                  (traced / "vocab").string(), "--output", (traced / "bc").string(), "--config",
                                  (traced / "config.json").string()}),
                   "config.json");
  }
  SECTION("a run manifest") {
    for (const char *run : {"a", "b"})
      writeFileAtomically(traced / run / "manifest.json", "{\"format\": \"mlgo-run-manifest\"}");
    plantDeepValue(traced / "a" / "manifest.json");
    requireRefused(test::runMlgo({"compare-runs", (traced / "a").string(), (traced / "b").string()}),
                   "manifest.json");
  }
  SECTION("a checkpoint") {
    const std::vector<std::string> run = test::trainPPOArguments(traced, "ppo", 1, 1);
    REQUIRE(test::runMlgo(run).exitCode == exit_code::kSuccess);
    plantDeepValue(traced / "ppo" / "resume" / "state.json");
    std::vector<std::string> resumed = test::trainPPOArguments(traced, "ppo", 2, 1);
    resumed.push_back("--resume");
    requireRefused(test::runMlgo(resumed), "state.json");
  }
}
