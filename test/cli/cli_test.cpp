// The real mlgo binary, as scripts use it: exit codes, stdout/stderr, files.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {
test::CommandOutcome mlgoRun(const std::vector<std::string> &args) {
  return test::runProgram(test::mlgoBinary(), args);
}
std::string compileCommands() { return (test::testProject() / "compile_commands.json").string(); }
}  // namespace

TEST_CASE("cli: version, help and usage errors", "[cli]") {
  CHECK(mlgoRun({"--version"}).exitCode == exit_code::kSuccess);
  auto help = mlgoRun({"--help"});
  CHECK(help.exitCode == exit_code::kSuccess);
  CHECK_THAT(help.out, Contains("extract-ir") && Contains("eval"));
  CHECK(mlgoRun({}).exitCode == exit_code::kUsage);
  CHECK(mlgoRun({"no-such-command"}).exitCode == exit_code::kUsage);
  CHECK(mlgoRun({"eval", "--corpus", "x", "--inline", "sometimes"}).exitCode == exit_code::kUsage);
  CHECK(mlgoRun({"extract-ir", "--output-dir", "x"}).exitCode == exit_code::kUsage);
}

TEST_CASE("cli: extract-ir then eval, with the JSON report", "[cli]") {
  test::ScratchDirectory scratch;
  const std::string corpus = (scratch / "corpus").string();
  auto extract = mlgoRun({"extract-ir", "--input", compileCommands(), "--output-dir", corpus});
  REQUIRE(extract.exitCode == exit_code::kSuccess);
  CHECK_THAT(extract.out, Contains("7 modules extracted"));
  CHECK_THAT(extract.err, Contains("no_bitcode.o") && Contains("7 extracted, 1 skipped"));

  const std::string json = (scratch / "eval.json").string();
  auto eval = mlgoRun({"eval", "--corpus", corpus, "--inline", "never", "--json", json, "--threads", "2"});
  REQUIRE(eval.exitCode == exit_code::kSuccess);
  CHECK_THAT(eval.out, Contains("helpers.o") && Contains("total (7 modules)"));
  auto report = nlohmann::json::parse(readFile(json));
  CHECK(report["modules"].size() == 7);
  CHECK(report["totals"]["failed"] == 0);
  CHECK(report["totals"]["change"]["text"].get<double>() > 0);
  CHECK(report["threads"] == 2);
}

TEST_CASE("cli: extract-ir exit codes for bad input", "[cli][errors]") {
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "broken.json", "[{");
  auto broken = mlgoRun({"extract-ir", "--input", (scratch / "broken.json").string(), "--output-dir",
                         (scratch / "out").string()});
  CHECK(broken.exitCode == exit_code::kBadInput);
  CHECK_THAT(broken.err, Contains("broken.json") && Contains("malformed JSON"));

  writeFileAtomically(scratch / "none.json",
                      "[{\"directory\": \"" + test::testProject().string() +
                          "\", \"arguments\": [\"clang\", \"-c\", \"n.c\", \"-o\", \"no_bitcode.o\"]}]");
  auto nothing = mlgoRun({"extract-ir", "--input", (scratch / "none.json").string(), "--output-dir",
                          (scratch / "out").string()});
  CHECK(nothing.exitCode == exit_code::kFailure);
  CHECK_THAT(nothing.err, Contains("nothing was extracted"));
  CHECK_FALSE(fs::exists(scratch / "out/corpus_description.json"));
}

TEST_CASE("cli: eval survives an injected crash and hang, reports them, exits 4", "[cli][containment]") {
  test::ScratchDirectory scratch;
  test::extractTestCorpus(scratch / "corpus");
  const std::string json = (scratch / "eval.json").string();
  auto eval = mlgoRun({"eval", "--corpus", (scratch / "corpus").string(), "--json", json, "--timeout", "10",
                       "--inject-fault", "crash:helpers.o"});
  CHECK(eval.exitCode == exit_code::kPartialFailure);
  CHECK_THAT(eval.err, Contains("helpers.o") && Contains("crash"));
  auto report = nlohmann::json::parse(readFile(json));
  CHECK(report["totals"]["failed"] == 1);
  CHECK(report["totals"]["compared"] == 6);

  auto hang = mlgoRun({"eval", "--corpus", (scratch / "corpus").string(), "--timeout", "2", "--inject-fault",
                       "hang:shapes.o"});
  CHECK(hang.exitCode == exit_code::kPartialFailure);
  CHECK_THAT(hang.out, Contains("shapes.o") && Contains("timeout"));
}

TEST_CASE("cli: eval exit codes for bad input", "[cli][errors]") {
  test::ScratchDirectory scratch;
  auto missing = mlgoRun({"eval", "--corpus", (scratch / "nothing-here").string()});
  CHECK(missing.exitCode == exit_code::kBadInput);
  CHECK_THAT(missing.err, Contains("nothing-here"));
  test::extractTestCorpus(scratch / "corpus");
  auto pipeline = mlgoRun({"eval", "--corpus", (scratch / "corpus").string(), "--passes", "no-such-pass"});
  CHECK(pipeline.exitCode == exit_code::kUsage);
  CHECK_THAT(pipeline.err, Contains("no-such-pass"));
  auto fault = mlgoRun({"eval", "--corpus", (scratch / "corpus").string(), "--inject-fault", "explode"});
  CHECK(fault.exitCode == exit_code::kUsage);
}
