// `mlgo train-ppo` as scripts drive it: exit codes, --set, --print-config,
// and a run killed with SIGKILL that --resume finishes exactly.
#include <catch2/catch.hpp>

#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/output_directory.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// The test corpus with its default trace and vocab, and train-ppo's arguments.
struct CliCorpus : test::TracedTestCorpus {
  std::vector<std::string> args(const std::string &output, int iterations) const {
    return test::trainPPOArguments(*this, output, iterations, 2);
  }
};

size_t lineCount(const fs::path &path) {
  std::ifstream in(path);
  size_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

}  // namespace

TEST_CASE("cli: train-ppo exit codes and config printing", "[cli][rl]") {
  CliCorpus corpus;
  auto config = test::runProgram(test::mlgoBinary(), {"train-ppo", "--print-config", "--set", "num_modules=7"});
  REQUIRE(config.exitCode == exit_code::kSuccess);
  CHECK_THAT(config.out, Contains("num_modules") && Contains("= 7  # --set\n"));
  CHECK_THAT(config.out, Contains("importance_ratio_clipping = 0.2  # default\n"));

  CHECK(test::runProgram(test::mlgoBinary(), {"train-ppo", "--corpus", "x"}).exitCode == exit_code::kUsage);
  auto unknownKey = corpus.args("a", 1);
  unknownKey.insert(unknownKey.end(), {"--set", "no_such_key=1"});
  auto unknown = test::runProgram(test::mlgoBinary(), unknownKey);
  CHECK(unknown.exitCode == exit_code::kUsage);
  CHECK_THAT(unknown.err, Contains("no_such_key"));

  auto badVocab = corpus.args("b", 1);
  badVocab[4] = (corpus.scratch / "no-vocab").string();
  auto missing = test::runProgram(test::mlgoBinary(), badVocab);
  CHECK(missing.exitCode == exit_code::kBadInput);
  CHECK_THAT(missing.err, Contains("no-vocab"));

  auto crashing = corpus.args("c", 3);
  crashing.insert(crashing.end(), {"--inject-fault", "crash:helpers.o", "--set", "num_modules=7", "--set",
                                   "max_failed_share=0.1", "--set", "max_bad_iterations=1"});
  auto stopped = test::runProgram(test::mlgoBinary(), crashing);
  CHECK(stopped.exitCode == exit_code::kStopped);
  CHECK_THAT(stopped.err, Contains("helpers.o"));
}

TEST_CASE("cli: train-ppo killed with SIGKILL resumes to the uninterrupted result", "[cli][rl][resume]") {
  CliCorpus corpus;
  const int iterations = 8;
  auto whole = test::runProgram(test::mlgoBinary(), corpus.args("whole", iterations));
  REQUIRE(whole.exitCode == exit_code::kSuccess);
  CHECK_THAT(whole.out, Contains("policy iterations 1-8"));

  // Start the same run, kill it once two iterations are on record.
  const fs::path metrics = corpus.scratch / "killed/metrics.jsonl";
  std::vector<std::string> args = corpus.args("killed", iterations);
  args.insert(args.begin(), test::mlgoBinary());
  std::vector<char *> argv;
  for (std::string &arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  // Bounded wait (not a timing assertion): the child normally gets there in seconds.
  for (int poll = 0; poll < 6000 && lineCount(metrics) < 2; ++poll)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  const size_t linesAtKill = lineCount(metrics);
  CHECK(linesAtKill >= 2);
  CHECK(linesAtKill < size_t(iterations));

  std::vector<std::string> resume = corpus.args("killed", iterations);
  resume.push_back("--resume");
  auto resumed = test::runProgram(test::mlgoBinary(), resume);
  REQUIRE(resumed.exitCode == exit_code::kSuccess);
  CHECK(lineCount(metrics) == size_t(iterations));
  CHECK(readFile(corpus.scratch / "whole/policy/model.json") == readFile(corpus.scratch / "killed/policy/model.json"));
}

TEST_CASE("cli: train-ppo keeps one run per output: lock, --resume or --force", "[cli][rl][output]") {
  CliCorpus corpus;
  const fs::path output = corpus.scratch / "run";
  // An earlier run's leftovers, without --resume or --force: refused before
  // anything is written.
  writeFileAtomically(output / "checkpoints/iteration-100/stale.txt", "seed 7");
  auto refused = test::runProgram(test::mlgoBinary(), corpus.args(output.string(), 1));
  CHECK(refused.exitCode == exit_code::kUsage);
  CHECK_THAT(refused.err, Contains("--resume") && Contains("--force"));
  CHECK_FALSE(fs::exists(output / "metrics.jsonl"));

  // Another writer holds it: stopped at once, the holder named.
  {
    OutputDirectoryLock holder = OutputDirectoryLock::claim(output, "train-ppo", ExistingOutput::Keep);
    auto args = corpus.args(output.string(), 1);
    args.push_back("--force");
    auto busy = test::runProgram(test::mlgoBinary(), args);
    CHECK(busy.exitCode == exit_code::kOutputInUse);
    CHECK_THAT(busy.err, Contains("pid " + std::to_string(::getpid())));
    CHECK(fs::exists(output / "checkpoints/iteration-100/stale.txt"));
  }

  // --force starts clean.
  auto args = corpus.args(output.string(), 1);
  args.push_back("--force");
  auto forced = test::runProgram(test::mlgoBinary(), args);
  INFO(forced.err);
  REQUIRE(forced.exitCode == exit_code::kSuccess);
  CHECK_FALSE(fs::exists(output / "checkpoints/iteration-100"));
  CHECK(lineCount(output / "metrics.jsonl") == 1);

  // A damaged resume state is bad input naming the file, not LibTorch's trace.
  const fs::path network = output / "resume/network.pt";
  REQUIRE(fs::exists(network));
  const std::string bytes = readFile(network);
  writeFileAtomically(network, bytes.substr(0, bytes.size() / 2));
  auto resumeArgs = corpus.args(output.string(), 2);
  resumeArgs.push_back("--resume");
  auto truncated = test::runProgram(test::mlgoBinary(), resumeArgs);
  CHECK(truncated.exitCode == exit_code::kBadInput);
  CHECK_THAT(truncated.err, Contains("network.pt"));
  CHECK_THAT(truncated.err, !Contains("frame #"));
  writeFileAtomically(network, bytes);
  writeFileAtomically(output / "resume/optimizer.pt", "garbage");
  auto garbage = test::runProgram(test::mlgoBinary(), resumeArgs);
  CHECK(garbage.exitCode == exit_code::kBadInput);
  CHECK_THAT(garbage.err, Contains("optimizer.pt"));
  CHECK(lineCount(output / "metrics.jsonl") == 1);  // nothing written by the refused resumes

  // Values LibTorch must never see: exit 2 before anything is written.
  for (const std::string &bad : {"learning_rate=-1", "adam_epsilon=-1", "learning_rate=1e300"}) {
    INFO(bad);
    auto badArgs = corpus.args((corpus.scratch / "bad-values").string(), 1);
    badArgs.insert(badArgs.end(), {"--set", bad});
    auto outcome = test::runProgram(test::mlgoBinary(), badArgs);
    CHECK(outcome.exitCode == exit_code::kUsage);
    CHECK_THAT(outcome.err, Contains(bad.substr(0, bad.find('='))));
    CHECK_FALSE(fs::exists(corpus.scratch / "bad-values"));
  }
}
