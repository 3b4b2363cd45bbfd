// The real mlgo under the real mpirun (Debian's OpenMPI), 3 ranks on this
// machine (--oversubscribe): distributed runs write what a single process
// writes, and a lost rank ends the run with a message and a resumable state.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// mpirun refuses to start as root (CI runs as root) unless told; these stay
/// in the tests, users decide for themselves.
void allowMpirunAsRoot() {
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
}

std::vector<std::string> underMpirun(int ranks, const std::vector<std::string> &mlgoArgs) {
  std::vector<std::string> args{"--oversubscribe", "-np", std::to_string(ranks), test::mlgoBinary()};
  args.insert(args.end(), mlgoArgs.begin(), mlgoArgs.end());
  return args;
}

test::CommandOutcome runMpi(int ranks, const std::vector<std::string> &mlgoArgs) {
  allowMpirunAsRoot();
  return test::runProgram(MLGO_MPIRUN, underMpirun(ranks, mlgoArgs));
}

std::vector<fs::path> filesUnder(const fs::path &directory) {
  std::vector<fs::path> files;
  for (const auto &entry : fs::recursive_directory_iterator(directory))
    if (entry.is_regular_file() && entry.path().filename() != "manifest.json")  // names the machine
      files.push_back(fs::relative(entry.path(), directory));
  std::sort(files.begin(), files.end());
  return files;
}

void requireSameFiles(const fs::path &a, const fs::path &b) {
  const std::vector<fs::path> files = filesUnder(a);
  REQUIRE(files == filesUnder(b));
  REQUIRE_FALSE(files.empty());
  for (const fs::path &file : files) {
    INFO(file.string());
    CHECK(readFile(a / file) == readFile(b / file));
  }
}

/// metrics.jsonl without what depends on the clock (and the ranks' traffic).
std::vector<nlohmann::json> metricsWithoutTimes(const fs::path &path) {
  std::vector<nlohmann::json> records;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json record = nlohmann::json::parse(line);
    for (const char *key : {"seconds", "decisions_per_second", "modules_per_second", "ranks", "memo"})
      record.erase(key);
    records.push_back(record);
  }
  return records;
}

size_t lineCount(const fs::path &path) {
  std::ifstream in(path);
  size_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

/// The pid of the mlgo process that is rank `rank` of the run whose command
/// line mentions `marker`, found through /proc (0 when there is none).
pid_t findRank(int rank, const std::string &marker) {
  const std::string wanted = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  for (const auto &entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline, environ;
    try {
      cmdline = readFile(entry.path() / "cmdline");
      environ = readFile(entry.path() / "environ");
    } catch (const std::exception &) {
      continue;  // gone, or not ours to read
    }
    if (cmdline.find("mlgo") == std::string::npos || cmdline.find(marker) == std::string::npos ||
        cmdline.find("mpirun") != std::string::npos)
      continue;
    for (size_t start = 0; start < environ.size();) {
      const size_t end = environ.find('\0', start);
      if (environ.compare(start, (end == std::string::npos ? environ.size() : end) - start, wanted) == 0)
        return pid_t(std::stoi(name));
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  return 0;
}

/// mpirun started in the background, its stderr in a file.
struct BackgroundMpirun {
  pid_t pid = -1;
  fs::path stderrPath;
  BackgroundMpirun(int ranks, const std::vector<std::string> &mlgoArgs, fs::path errors)
      : stderrPath(std::move(errors)) {
    allowMpirunAsRoot();
    std::vector<std::string> args = underMpirun(ranks, mlgoArgs);
    args.insert(args.begin(), MLGO_MPIRUN);
    std::vector<char *> argv;
    for (std::string &arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      const int null = ::open("/dev/null", O_WRONLY);
      const int err = ::open(stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(null, 1);
      ::dup2(err, 2);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  /// The exit status, or -signal.
  int wait() {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }
};

/// Polls (bounded, not a timing assertion) until `ready` or about 2 minutes.
template <typename Ready>
bool waitUntil(Ready ready) {
  for (int poll = 0; poll < 6000; ++poll) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

struct MpiCorpus : test::TracedTestCorpus {
  std::vector<std::string> trainPPO(const std::string &output, int iterations) const {
    return test::trainPPOArguments(*this, output, iterations, 1);
  }
};

}  // namespace

TEST_CASE(
    "mpi: default-trace (both problems), explore, autotune and sweep-passes over 3 ranks write the single-process "
    "files byte for byte",
    "[mpi]") {
  MpiCorpus corpus;
  const std::string corpusDir = (corpus / "corpus").string();
  auto single = test::runProgram(test::mlgoBinary(),
                                 {"default-trace", "--corpus", corpusDir, "--output", (corpus / "t1").string()});
  REQUIRE(single.exitCode == exit_code::kSuccess);
  auto ranks = runMpi(3, {"default-trace", "--corpus", corpusDir, "--output", (corpus / "t3").string(), "--threads",
                          "1"});
  INFO(ranks.err);
  REQUIRE(ranks.exitCode == exit_code::kSuccess);
  CHECK_THAT(ranks.out, Contains("traced 7 of 7"));
  requireSameFiles(corpus / "t1", corpus / "t3");

  // Register allocation: its records and its baselines' regalloc scores.
  auto regallocArgs = [&](const std::string &output) {
    return std::vector<std::string>{"default-trace", "--problem", "regalloc", "--corpus", corpusDir,
                                    "--output", (corpus / output).string(), "--threads", "1"};
  };
  REQUIRE(test::runProgram(test::mlgoBinary(), regallocArgs("r1")).exitCode == exit_code::kSuccess);
  auto regalloc = runMpi(3, regallocArgs("r3"));
  INFO(regalloc.err);
  REQUIRE(regalloc.exitCode == exit_code::kSuccess);
  CHECK_THAT(readFile(corpus / "r3/baselines.json"), Contains("regalloc_score"));
  requireSameFiles(corpus / "r1", corpus / "r3");

  auto exploreArgs = [&](const std::string &output) {
    return std::vector<std::string>{"explore", "--corpus", corpusDir, "--output", (corpus / output).string(),
                                    "--flips", "6", "--threads", "1"};
  };
  REQUIRE(test::runProgram(test::mlgoBinary(), exploreArgs("e1")).exitCode == exit_code::kSuccess);
  auto explored = runMpi(3, exploreArgs("e3"));
  INFO(explored.err);
  REQUIRE(explored.exitCode == exit_code::kSuccess);
  CHECK_THAT(explored.out, Contains("explored 7 of 7"));
  requireSameFiles(corpus / "e1", corpus / "e3");

  const std::vector<std::string> autotune{"autotune", "--corpus", corpusDir, "--budget", "25", "--no-gate",
                                          "--seed", "3"};
  auto tuneArgs = [&](const std::string &output) {
    std::vector<std::string> args = autotune;
    args.insert(args.end(), {"--output", (corpus / output).string()});
    return args;
  };
  auto tunedAlone = test::runProgram(test::mlgoBinary(), tuneArgs("a1"));
  REQUIRE(tunedAlone.exitCode == exit_code::kSuccess);
  auto tunedRanks = runMpi(3, tuneArgs("a3"));
  INFO(tunedRanks.err);
  REQUIRE(tunedRanks.exitCode == exit_code::kSuccess);
  CHECK(readFile(corpus / "a1/best.json") == readFile(corpus / "a3/best.json"));
  CHECK(nlohmann::json::parse(readFile(corpus / "a3/best.json"))["summary"]["compilations"].get<size_t>() > 7);

  writeFileAtomically(corpus / "pool.txt", "default<Oz> mergefunc\ndefault<O1>\n");
  auto sweepArgs = [&](const std::string &output) {
    return std::vector<std::string>{"sweep-passes", "--corpus", corpusDir, "--lists", (corpus / "pool.txt").string(),
                                    "--no-gate", "--threads", "1", "--output", (corpus / output).string()};
  };
  REQUIRE(test::runProgram(test::mlgoBinary(), sweepArgs("s1")).exitCode == exit_code::kSuccess);
  auto swept = runMpi(3, sweepArgs("s3"));
  INFO(swept.err);
  REQUIRE(swept.exitCode == exit_code::kSuccess);
  CHECK_THAT(swept.out, Contains("over 7 of 7 modules"));
  requireSameFiles(corpus / "s1", corpus / "s3");
}

TEST_CASE("mpi: train-ppo over 3 ranks equals one process, and a run with a killed rank resumes to it",
          "[mpi][rl]") {
  MpiCorpus corpus;
  const int iterations = 4;
  auto single = test::runProgram(test::mlgoBinary(), corpus.trainPPO("single", iterations));
  REQUIRE(single.exitCode == exit_code::kSuccess);
  auto ranks = runMpi(3, corpus.trainPPO("ranks", iterations));
  INFO(ranks.err);
  REQUIRE(ranks.exitCode == exit_code::kSuccess);
  CHECK_THAT(ranks.out, Contains("policy iterations 1-4"));
  CHECK(readFile(corpus / "single/policy/model.json") == readFile(corpus / "ranks/policy/model.json"));
  CHECK(metricsWithoutTimes(corpus / "single/metrics.jsonl") == metricsWithoutTimes(corpus / "ranks/metrics.jsonl"));
  const auto lastLine = [](const fs::path &path) {
    std::ifstream in(path);
    std::string line, last;
    while (std::getline(in, line)) last = line;
    return nlohmann::json::parse(last);
  };
  const nlohmann::json traffic = lastLine(corpus / "ranks/metrics.jsonl")["ranks"];
  CHECK(traffic["count"] == 3);
  CHECK(traffic["sent_bytes"].get<uint64_t>() > 1000);  // the policy goes to 2 ranks
  CHECK(traffic["received_bytes"].get<uint64_t>() > 0);
  CHECK_FALSE(lastLine(corpus / "single/metrics.jsonl").contains("ranks"));

  // Kill rank 1 once an iteration is on record.
  const fs::path metrics = corpus / "killed/metrics.jsonl";
  BackgroundMpirun run(3, corpus.trainPPO("killed", 40), corpus / "killed-stderr");
  REQUIRE(waitUntil([&] { return lineCount(metrics) >= 1; }));
  pid_t rank1 = 0;
  REQUIRE(waitUntil([&] { return (rank1 = findRank(1, (corpus / "killed").string())) > 0; }));
  ::kill(rank1, SIGKILL);
  const int status = run.wait();
  const std::string errors = readFile(run.stderrPath);
  INFO(errors);
  CHECK(status != 0);
  CHECK_THAT(errors, Contains("rank 1"));
  REQUIRE(lineCount(metrics) < 6);

  // The saved state continues, here on one process, to the same policy as
  // an uninterrupted run.
  auto whole = test::runProgram(test::mlgoBinary(), corpus.trainPPO("whole", 6));
  REQUIRE(whole.exitCode == exit_code::kSuccess);
  std::vector<std::string> resume = corpus.trainPPO("killed", 6);
  resume.push_back("--resume");
  auto resumed = runMpi(2, resume);
  INFO(resumed.err);
  REQUIRE(resumed.exitCode == exit_code::kSuccess);
  CHECK(readFile(corpus / "whole/policy/model.json") == readFile(corpus / "killed/policy/model.json"));
}

TEST_CASE("mpi: train-ppo for regalloc and regalloc-priority over 2 ranks equals one process",
          "[mpi][rl][regalloc][priority]") {
  struct Problem {
    std::string name, config;
    Corpus (*traced)(const fs::path &, const fs::path &);
  };
  // The shipped configs: regalloc_score per function.
  for (const Problem &problem : {Problem{"regalloc", "ppo.json", &test::regallocTracedCorpus},
                                 Problem{"regalloc-priority", "priority-ppo.json", &test::priorityTracedCorpus}}) {
    INFO(problem.name);
    test::ScratchDirectory scratch;
    problem.traced(scratch / "corpus", scratch / "trace");
    REQUIRE(test::runProgram(test::mlgoBinary(), {"train-bc", "--trace", (scratch / "trace").string(), "--output",
                                                  (scratch / "bc").string(), "--set", "iterations=100", "--set",
                                                  "holdout_fraction=0"})
                .exitCode == exit_code::kSuccess);
    const auto trainPPO = [&](const std::string &output) {
      return std::vector<std::string>{
          "train-ppo", "--problem", problem.name, "--corpus", (scratch / "corpus").string(), "--warmstart",
          (scratch / "bc").string(), "--baselines", (scratch / "trace").string(), "--output",
          (scratch / output).string(), "--seed", "4", "--threads", "1", "--set", "num_policy_iterations=2", "--set",
          "num_modules=2", "--set", "num_iterations=5", "--set", "batch_size=8", "--set", "train_sequence_length=4",
          "--config", (test::testData() / "../../configs/regalloc" / problem.config).string()};
    };
    auto alone = test::runProgram(test::mlgoBinary(), trainPPO("single"));
    INFO(alone.err);
    REQUIRE(alone.exitCode == exit_code::kSuccess);
    auto spread = runMpi(2, trainPPO("ranks"));
    INFO(spread.err);
    REQUIRE(spread.exitCode == exit_code::kSuccess);
    CHECK_THAT(spread.out, Contains("policy iterations 1-2") && Contains("regalloc_score"));
    CHECK(readFile(scratch / "single/policy/model.json") == readFile(scratch / "ranks/policy/model.json"));
    const std::vector<nlohmann::json> metrics = metricsWithoutTimes(scratch / "single/metrics.jsonl");
    REQUIRE(metrics.size() == 2);
    CHECK(metrics == metricsWithoutTimes(scratch / "ranks/metrics.jsonl"));
    CHECK(metrics.back()["size"]["metric"] == "regalloc_score");
    CHECK(metrics.back()["decisions"].get<int64_t>() > 0);
    // Each function is rewarded: its scores came over the wire and gave the same baselines.
    auto functionBaselines = [&](const char *output) {
      return nlohmann::json::parse(readFile(scratch / output / "resume/state.json"))["segment_baselines"];
    };
    CHECK(functionBaselines("single").size() >= 3);
    CHECK(functionBaselines("single") == functionBaselines("ranks"));
  }
}

TEST_CASE("mpi: train-es over 3 ranks equals one process, for inlining, regalloc and regalloc-priority", "[mpi][es]") {
  MpiCorpus corpus;
  test::randomInliningPolicy(corpus, 11).save(corpus / "start");
  const fs::path regallocCorpus = corpus / "regalloc-corpus", regallocTrace = corpus / "regalloc-trace";
  test::regallocTracedCorpus(regallocCorpus, regallocTrace);
  test::regallocPolicyScoringBy("liverange_size").save(corpus / "regalloc-start");
  const fs::path priorityCorpus = corpus / "priority-corpus", priorityTrace = corpus / "priority-trace";
  test::priorityTracedCorpus(priorityCorpus, priorityTrace);
  test::randomPriorityPolicy(5).save(corpus / "priority-start");
  struct Problem {
    std::string name;
    fs::path corpus, warmstart, baselines;
  };
  for (const Problem &problem :
       {Problem{"inlining", corpus / "corpus", corpus / "start", corpus / "trace"},
        Problem{"regalloc", regallocCorpus, corpus / "regalloc-start", regallocTrace},
        Problem{"regalloc-priority", priorityCorpus, corpus / "priority-start", priorityTrace}}) {
    INFO(problem.name);
    const auto trainES = [&](const std::string &output) {
      return std::vector<std::string>{"train-es", "--problem", problem.name, "--corpus", problem.corpus.string(),
                                      "--warmstart", problem.warmstart.string(), "--baselines",
                                      problem.baselines.string(), "--output", (corpus / output).string(), "--seed",
                                      "3", "--threads", "1", "--set", "iterations=3", "--set", "perturbations=2",
                                      "--set", "modules_per_iteration=4", "--set", "sigma=0.2"};
    };
    const std::string single = "es-single-" + problem.name, ranks = "es-ranks-" + problem.name;
    auto alone = test::runProgram(test::mlgoBinary(), trainES(single));
    INFO(alone.err);
    REQUIRE(alone.exitCode == exit_code::kSuccess);
    auto spread = runMpi(3, trainES(ranks));
    INFO(spread.err);
    REQUIRE(spread.exitCode == exit_code::kSuccess);
    CHECK_THAT(spread.out, Contains("trained ES iterations 1-3"));
    CHECK(readFile(corpus / single / "resume/state.json") == readFile(corpus / ranks / "resume/state.json"));
    CHECK(readFile(corpus / single / "policy/model.json") == readFile(corpus / ranks / "policy/model.json"));
    // Compiles and replays included: each module stays on one rank, whose
    // trajectory memo replays it as the single process's does.
    const std::vector<nlohmann::json> metrics = metricsWithoutTimes(corpus / single / "metrics.jsonl");
    REQUIRE(metrics.size() == 3);
    CHECK(metrics == metricsWithoutTimes(corpus / ranks / "metrics.jsonl"));
    std::ifstream spreadMetrics(corpus / ranks / "metrics.jsonl");
    std::string firstRecord;
    std::getline(spreadMetrics, firstRecord);
    CHECK(nlohmann::json::parse(firstRecord)["ranks"]["count"] == 3);
    // The candidates differ: the run measured something.
    CHECK(metrics.back()["fitness"]["best"] != metrics.back()["fitness"]["worst"]);
  }
}

TEST_CASE("mpi: a rank that stops answering ends the run with exit code 6, naming the rank", "[mpi]") {
  MpiCorpus corpus;
  std::vector<std::string> args = corpus.trainPPO("stopped", 200);
  args.insert(args.begin(), {"--rank-timeout", "3"});
  const fs::path metrics = corpus / "stopped/metrics.jsonl";
  BackgroundMpirun run(3, args, corpus / "stopped-stderr");
  REQUIRE(waitUntil([&] { return lineCount(metrics) >= 1; }));
  pid_t rank2 = 0;
  REQUIRE(waitUntil([&] { return (rank2 = findRank(2, (corpus / "stopped").string())) > 0; }));
  ::kill(rank2, SIGSTOP);
  const int status = run.wait();
  ::kill(rank2, SIGKILL);  // in case MPI_Abort left it stopped
  const std::string errors = readFile(run.stderrPath);
  INFO(errors);
  CHECK(status == exit_code::kRankLost);
  CHECK_THAT(errors, Contains("rank 2 on"));
  CHECK_THAT(errors, Contains("sent nothing"));
  CHECK(lineCount(metrics) < 200);
  CHECK(fs::exists(corpus / "stopped/resume"));
}

TEST_CASE("mpi: commands that do not divide their work refuse to run under mpirun", "[mpi]") {
  MpiCorpus corpus;
  auto eval = runMpi(2, {"eval", "--corpus", (corpus / "corpus").string()});
  CHECK(eval.exitCode == exit_code::kUsage);
  CHECK_THAT(eval.err, Contains("run this command without mpirun"));
}
