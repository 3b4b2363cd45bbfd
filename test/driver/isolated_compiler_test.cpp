// Compiles in worker processes (`mlgo compile-worker`): the same results as
// in-process, and every kind of failure, heap corruption included, ends as
// one failed compile while the next compile gets a fresh worker.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mlgo/driver/compile_worker.h"
#include "mlgo/driver/isolated_compiler.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;

namespace {

std::vector<std::string> workerCommand(const std::filesystem::path &corpus, std::vector<std::string> extra = {}) {
  std::vector<std::string> command{test::mlgoBinary(), "--log-level", "error", "compile-worker", "--corpus",
                                   corpus.string()};
  command.insert(command.end(), extra.begin(), extra.end());
  return command;
}

const char *kPipeline = "function(sroa,instcombine<no-verify-fixpoint>,simplifycfg),globaldce";

/// A worker started by hand, to look at its process while it lives.
struct RunningWorker {
  pid_t pid = -1;
  int requests = -1;
  FILE *replies = nullptr;
  explicit RunningWorker(const std::vector<std::string> &command) {
    int in[2], out[2];
    REQUIRE(::pipe(in) == 0);
    REQUIRE(::pipe(out) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::vector<char *> argv;
    for (const std::string &arg : command) argv.push_back(const_cast<char *>(arg.c_str()));
    argv.push_back(nullptr);
    REQUIRE(::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) == 0);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    requests = in[1];
    replies = ::fdopen(out[0], "r");
  }
  /// One compile, answered: the worker is past its start-up.
  std::string compile(const std::string &module) {
    const std::string request = encodeCompileRequest(module, "") + "\n";
    REQUIRE(::write(requests, request.data(), request.size()) == ssize_t(request.size()));
    char line[4096];
    REQUIRE(std::fgets(line, sizeof line, replies) != nullptr);
    return line;
  }
  std::string procFile(const std::string &name) const {
    std::ifstream file("/proc/" + std::to_string(pid) + "/" + name);
    return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  }
  ~RunningWorker() {
    ::close(requests);  // end of input: the worker exits
    std::fclose(replies);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
};

std::string heapMapping(const std::string &maps) {
  const size_t heap = maps.find("[heap]");
  if (heap == std::string::npos) return "";
  const size_t start = maps.rfind('\n', heap) + 1;  // npos + 1 = 0 on the first line
  return maps.substr(start, maps.find(' ', start) - start);
}

}  // namespace

TEST_CASE("isolated compiler: the same sizes as in-process, from several threads", "[driver][isolation]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  applyCorpusBackendOptions(corpus);
  const CompilerDriver driver(test::driverThreads(1));
  IsolatedCompiler isolated(workerCommand(scratch / "corpus"), 60s);

  std::vector<CompileResult> inProcess, inWorkers(2 * corpus.modules.size());
  for (const char *pipeline : {"", kPipeline})
    for (const CorpusModule &module : corpus.modules) inProcess.push_back(driver.compile({&module, pipeline, {}}));
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = t; i < inWorkers.size(); i += 2) {
        const size_t m = i % corpus.modules.size();
        inWorkers[i] = isolated.compile(corpus.modules[m], i < corpus.modules.size() ? "" : kPipeline);
      }
    });
  for (std::thread &thread : threads) thread.join();

  for (size_t i = 0; i < inProcess.size(); ++i) {
    INFO(corpus.modules[i % corpus.modules.size()].name << " " << inWorkers[i].message);
    REQUIRE(inWorkers[i].ok());
    CHECK(inWorkers[i].sizes.text == inProcess[i].sizes.text);
    CHECK(inWorkers[i].sizes.data == inProcess[i].sizes.data);
    CHECK(inWorkers[i].sizes.rodata == inProcess[i].sizes.rodata);
    CHECK(inWorkers[i].irInstructions == inProcess[i].irInstructions);
  }
  CHECK(isolated.workersStarted() == 2);  // one per thread, kept across compiles
  CHECK(isolated.workersLost() == 0);
}

TEST_CASE("isolated compiler: a crash, heap corruption and a hang each fail one compile", "[driver][isolation]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const CorpusModule &helpers = test::moduleNamed(corpus, "helpers.o");
  const CorpusModule &strings = test::moduleNamed(corpus, "strings.o");

  for (const char *fault : {"crash", "heap"}) {
    INFO(fault);
    IsolatedCompiler isolated(workerCommand(scratch / "corpus", {"--inject-fault", std::string(fault) + ":helpers.o"}),
                              60s);
    const CompileResult crashed = isolated.compile(helpers, "");
    CHECK(crashed.failure == FailureKind::Crash);
    CHECK_THAT(crashed.message, Contains("died with signal") && Contains("helpers.o"));
    // The next compile gets a fresh worker and succeeds.
    const CompileResult next = isolated.compile(strings, "");
    CHECK(next.ok());
    CHECK(next.sizes.text > 0);
    CHECK(isolated.workersLost() == 1);
    CHECK(isolated.workersStarted() == 2);
  }

  // A crash in a worker that compiled before is tried again in a fresh one: it
  // counts only if it happens there too.
  IsolatedCompiler crashing(workerCommand(scratch / "corpus", {"--inject-fault", "crash:helpers.o"}), 60s);
  REQUIRE(crashing.compile(strings, "").ok());
  const CompileResult crashedTwice = crashing.compile(helpers, "");
  CHECK(crashedTwice.failure == FailureKind::Crash);
  CHECK_THAT(crashedTwice.message, Contains("again in a fresh worker"));
  CHECK(crashing.workersLost() == 2);

  // A compile that leaves the worker broken: the next compile dies, through no
  // fault of its own, and gets its own result from a fresh worker.
  const CompilerDriver driver(test::driverThreads(1));
  IsolatedCompiler poisoned(workerCommand(scratch / "corpus", {"--inject-fault", "poison:helpers.o"}), 60s);
  REQUIRE(poisoned.compile(helpers, "").ok());
  const CompileResult innocent = poisoned.compile(strings, "");
  REQUIRE(innocent.ok());
  CHECK(innocent.sizes.textPlusData() == driver.compile({&strings, "", {}}).sizes.textPlusData());
  CHECK(poisoned.workersLost() == 1);
  CHECK(poisoned.workersStarted() == 2);

  // The worker's own timeout ends a hang inside it (the worker lives on; a
  // worker that does not answer at all: the reply-timeout test below).
  // (Timeouts leave room for a loaded machine: the other compiles must finish.)
  IsolatedCompiler timed(workerCommand(scratch / "corpus", {"--inject-fault", "hang:helpers.o", "--timeout", "3"}),
                         60s);
  const CompileResult hung = timed.compile(helpers, "");
  CHECK(hung.failure == FailureKind::Timeout);
  CHECK(timed.compile(strings, "").ok());
  CHECK(timed.workersLost() == 0);

  // A worker that cannot start is a failed compile, not an exception.
  IsolatedCompiler missing({(scratch / "no-such-program").string()}, 5s);
  const CompileResult notStarted = missing.compile(strings, "");
  CHECK_FALSE(notStarted.ok());
  CHECK_THAT(notStarted.message, Contains("no-such-program"));
}

namespace {

/// Our stderr (descriptor 2) sent to a file while it lives, to read what
/// reached it.
class CapturedStderr {
 public:
  explicit CapturedStderr(const std::filesystem::path &file) : file_(file) {
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    const int target = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(target >= 0);
    ::dup2(target, STDERR_FILENO);
    ::close(target);
  }
  ~CapturedStderr() { restore(); }
  std::string text() {
    restore();
    std::ifstream in(file_);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
    saved_ = -1;
  }
  std::filesystem::path file_;
  int saved_ = -1;
};

}  // namespace

TEST_CASE("isolated compiler: a dying worker's last words end its compile's message, the rest reaches our stderr",
          "[driver][isolation]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const CorpusModule &helpers = test::moduleNamed(corpus, "helpers.o");
  const CorpusModule &strings = test::moduleNamed(corpus, "strings.o");

  // glibc's abort on the double free the fault makes: in the message, not loose on our stderr.
  CapturedStderr heapStderr(scratch / "heap.err");
  IsolatedCompiler heap(workerCommand(scratch / "corpus", {"--inject-fault", "heap:helpers.o"}), 60s);
  const CompileResult crashed = heap.compile(helpers, "");
  const std::string loose = heapStderr.text();
  REQUIRE(crashed.failure == FailureKind::Crash);
  CHECK_THAT(crashed.message, Contains("helpers.o") && Contains("; it wrote: ") && Contains("double free"));
  CHECK(loose.find("double free") == std::string::npos);

  // What a healthy worker writes (here its shell's line before the worker
  // starts) is handed on once it answers.
  std::string shellLine = "exec";
  for (const std::string &arg : workerCommand(scratch / "corpus")) shellLine += " '" + arg + "'";
  CapturedStderr healthyStderr(scratch / "healthy.err");
  IsolatedCompiler talkative({"/bin/sh", "-c", "echo 'a warning of the worker' >&2; " + shellLine}, 60s);
  const CompileResult answered = talkative.compile(strings, "");
  const std::string handedOn = healthyStderr.text();
  REQUIRE(answered.ok());
  CHECK_THAT(handedOn, Contains("a warning of the worker"));
  CHECK(answered.message.find("a warning") == std::string::npos);
}

TEST_CASE("isolated compiler: a one-module worker serves one module's compiles in a row", "[driver][isolation]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const CorpusModule &helpers = test::moduleNamed(corpus, "helpers.o");
  const CorpusModule &strings = test::moduleNamed(corpus, "strings.o");
  const CompilerDriver driver(test::driverThreads(1));
  const auto inProcess = [&](const CorpusModule &module) {
    return driver.compile({&module, kPipeline, {}}).sizes.textPlusData();
  };
  for (const WorkerReuse reuse : {WorkerReuse::AcrossModules, WorkerReuse::OneModule}) {
    IsolatedCompiler isolated(workerCommand(scratch / "corpus"), 60s, reuse);
    for (const CorpusModule *module : {&helpers, &helpers, &strings, &helpers}) {
      const CompileResult result = isolated.compile(*module, kPipeline);
      REQUIRE(result.ok());
      CHECK(result.sizes.textPlusData() == inProcess(*module));
    }
    // Across modules: one worker for all four; one module: a new one where the module changes.
    CHECK(isolated.workersStarted() == (reuse == WorkerReuse::AcrossModules ? 1 : 3));
    CHECK(isolated.workersLost() == 0);
  }
}

TEST_CASE("isolated compiler: the reply timeout counts the worker's CPU time and ends a worker that uses none",
          "[driver][isolation]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const CorpusModule &strings = test::moduleNamed(corpus, "strings.o");
  // A worker that answers only after 3 s in which it uses little CPU, a bit
  // every half second (as one a loaded machine starves would), is waited for
  // under a 2 s reply timeout...
  std::vector<std::string> slowToStart{
      "/bin/sh", "-c",
      "i=0; while [ $i -lt 6 ]; do sleep 0.5; j=0; while [ $j -lt 50000 ]; do j=$((j+1)); done; i=$((i+1)); done; "
      "exec \"$0\" \"$@\""};
  for (const std::string &arg : workerCommand(scratch / "corpus")) slowToStart.push_back(arg);
  IsolatedCompiler patient(slowToStart, 2s);
  const auto start = std::chrono::steady_clock::now();
  const CompileResult answered = patient.compile(strings, "");
  CHECK(answered.ok());
  CHECK(std::chrono::steady_clock::now() - start > 2500ms);  // it did wait past the 2 s
  CHECK(patient.workersLost() == 0);
  // ...while one that computes past it without answering is killed, and the
  // next compile gets a new worker.
  IsolatedCompiler spinning(workerCommand(scratch / "corpus", {"--inject-fault", "hang:strings.o", "--timeout", "0"}),
                            2s);
  const CompileResult killed = spinning.compile(strings, "");
  CHECK(killed.failure == FailureKind::Timeout);
  CHECK_THAT(killed.message, Contains("did not answer within 2000 ms of CPU time"));
  CHECK(spinning.compile(test::moduleNamed(corpus, "helpers.o"), "").ok());
  CHECK(spinning.workersLost() == 1);
  // ...and one that waits without using any CPU at all (a deadlocked worker)
  // is killed once the CPU time of its main thread, where a worker compiles,
  // has stood still for the timeout, not at kCpuTimeoutWallFactor times it...
  IsolatedCompiler stuck({"/bin/sleep", "1000"}, 1s);
  const CompileResult stalled = stuck.compile(strings, "");
  CHECK(stalled.failure == FailureKind::Timeout);
  CHECK_THAT(stalled.message, Contains("used no CPU time on its main thread for 1000 ms without answering"));
  CHECK(stuck.workersLost() == 1);
  // ...also when another thread of it still runs now and then, as the
  // worker's own watchdog does: the stall is read from the main thread.
  const std::string watched = (scratch / "stuck_beside_watchdog").string();
  REQUIRE(test::runProgram(test::clangPath(), {(test::testData() / "processes/stuck_beside_watchdog.c").string(),
                                              "-pthread", "-o", watched})
              .exitCode == 0);
  IsolatedCompiler deadlocked({watched}, 1s);
  const CompileResult ended = deadlocked.compile(strings, "");
  CHECK(ended.failure == FailureKind::Timeout);
  CHECK_THAT(ended.message, Contains("used no CPU time on its main thread for 1000 ms without answering"));
}

TEST_CASE("compile worker protocol: replies round-trip, garbage is an error", "[driver][isolation]") {
  CompileResult result;
  result.failure = FailureKind::FatalError;
  result.message = "Instruction Combining did not reach a fixpoint\n\"quoted\"";
  result.sizes = {123, 45, 67, 8};
  result.irInstructions = 999;
  result.seconds = 0.25;
  const CompileResult back = decodeCompileReply(encodeCompileReply(result));
  CHECK(back.failure == result.failure);
  CHECK(back.message == result.message);
  CHECK(back.sizes.text == 123);
  CHECK(back.sizes.data == 45);
  CHECK(back.sizes.rodata == 67);
  CHECK(back.sizes.bss == 8);
  CHECK(back.irInstructions == 999);
  CHECK(back.seconds == 0.25);
  CHECK(encodeCompileReply(result).find('\n') == std::string::npos);  // one line per reply
  CHECK_THROWS_WITH(decodeCompileReply("not json"), Contains("not a compile reply"));
  CHECK_THROWS_WITH(decodeCompileReply(R"({"failure": "none"})"), Contains("malformed"));
  CHECK_THROWS_WITH(decodeCompileReply(R"({"failure": "exploded", "message": ""})"), Contains("exploded"));
}

TEST_CASE("compile worker: without address-space randomization, every worker's heap lies alike",
          "[driver][isolation]") {
  test::ScratchDirectory scratch;
  test::extractTestCorpus(scratch / "corpus");
  RunningWorker first(workerCommand(scratch / "corpus")), second(workerCommand(scratch / "corpus"));
  for (RunningWorker *worker : {&first, &second}) {
    CHECK_THAT(worker->compile("strings.o"), Contains("\"failure\":\"none\""));
    const unsigned long persona = std::stoul(worker->procFile("personality"), nullptr, 16);
    CHECK((persona & ADDR_NO_RANDOMIZE) != 0);
  }
  // What makes a memory error in LLVM repeat: the same addresses in every worker.
  const std::string heap = heapMapping(first.procFile("maps"));
  CHECK_FALSE(heap.empty());
  CHECK(heap == heapMapping(second.procFile("maps")));
}
