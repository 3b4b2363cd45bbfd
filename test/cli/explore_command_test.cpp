#include <catch2/catch.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/run_comparison.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> exploreArguments(const std::string &corpus, const fs::path &output) {
  return {"explore", "--corpus", corpus, "--output", output.string(), "--threads", "1", "--flips", "24"};
}

/// The files of a finished trace (the lock file aside), by name.
std::map<std::string, std::string> traceFiles(const fs::path &directory) {
  std::map<std::string, std::string> files;
  for (const auto &entry : fs::directory_iterator(directory))
    if (entry.is_regular_file() && entry.path().filename() != ".mlgo-lock" &&
        entry.path().filename() != "manifest.json")  // names its run's flags (--resume); compared below
      files[entry.path().filename().string()] = readFile(entry.path());
  return files;
}

}  // namespace

TEST_CASE("cli explore: a run killed with -9 and resumed equals an uninterrupted run", "[cli][explore]") {
  test::ScratchDirectory scratch;
  const std::string corpus = (scratch / "corpus").string();
  test::extractTestCorpus(corpus);
  const test::CommandOutcome whole = test::runProgram(test::mlgoBinary(), exploreArguments(corpus, scratch / "whole"));
  INFO(whole.err);
  REQUIRE(whole.exitCode == exit_code::kSuccess);
  CHECK_THAT(whole.out, Contains("explored 7 of 7 modules (0 from an earlier run)"));

  // Killed once three modules are in the journal (the last module, the
  // largest, takes most of the run).
  std::string command;
  for (const std::string &argument : exploreArguments(corpus, scratch / "killed")) command += " '" + argument + "'";
  const std::string journal = (scratch / "killed" / ".explore-journal").string();
  const test::CommandOutcome killed = test::runProgram(
      "/bin/sh", {"-c", "'" + test::mlgoBinary() + "'" + command + " >/dev/null 2>&1 & pid=$!; " +
                            "while kill -0 $pid 2>/dev/null; do n=$(ls '" + journal +
                            "' 2>/dev/null | grep -c done); [ \"$n\" -ge 3 ] && break; sleep 0.01; done; " +
                            "kill -9 $pid; wait $pid; echo $?"});
  REQUIRE(killed.out == "137\n");  // it was still running: killed by SIGKILL
  CHECK(!fs::exists(scratch / "killed" / "trace_description.json"));

  // Without --resume the directory is refused; with other settings, too.
  CHECK(test::runProgram(test::mlgoBinary(), exploreArguments(corpus, scratch / "killed")).exitCode ==
        exit_code::kUsage);
  std::vector<std::string> otherSettings = exploreArguments(corpus, scratch / "killed");
  otherSettings.back() = "8";
  otherSettings.push_back("--resume");
  const test::CommandOutcome refused = test::runProgram(test::mlgoBinary(), otherSettings);
  CHECK(refused.exitCode == exit_code::kUsage);
  CHECK_THAT(refused.err, Contains("other settings"));

  std::vector<std::string> resume = exploreArguments(corpus, scratch / "killed");
  resume.push_back("--resume");
  const test::CommandOutcome resumed = test::runProgram(test::mlgoBinary(), resume);
  INFO(resumed.err);
  REQUIRE(resumed.exitCode == exit_code::kSuccess);
  CHECK_THAT(resumed.out, !Contains("(0 from an earlier run)"));
  CHECK(traceFiles(scratch / "killed") == traceFiles(scratch / "whole"));
  CHECK(compareRuns(scratch / "killed", scratch / "whole").sameResult());
  CHECK(!fs::exists(journal));
}

TEST_CASE("cli explore: usage errors", "[cli][explore]") {
  test::ScratchDirectory scratch;
  const std::string corpus = (scratch / "corpus").string();
  test::extractTestCorpus(corpus);
  std::vector<std::string> both = exploreArguments(corpus, scratch / "out");
  both.insert(both.end(), {"--resume", "--force"});
  CHECK(test::runProgram(test::mlgoBinary(), both).exitCode == exit_code::kUsage);
  std::vector<std::string> budget = exploreArguments(corpus, scratch / "out");
  budget.insert(budget.end(), {"--budget", "1"});
  CHECK(test::runProgram(test::mlgoBinary(), budget).exitCode == exit_code::kUsage);
  std::vector<std::string> policy = exploreArguments(corpus, scratch / "out");
  policy.insert(policy.end(), {"--policy", (scratch / "missing").string()});
  const test::CommandOutcome missing = test::runProgram(test::mlgoBinary(), policy);
  CHECK(missing.exitCode == exit_code::kBadInput);
  CHECK_THAT(missing.err, Contains("missing"));
}
