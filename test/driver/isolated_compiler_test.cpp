// Compiles in worker processes (`mlgo compile-worker`): the same results as
// in-process, and every kind of failure, heap corruption included, ends as
// one failed compile while the next compile gets a fresh worker.
#include <catch2/catch.hpp>

#include <thread>

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

  // The worker's own timeout ends a hang inside it (the worker lives on)...
  // (Timeouts leave room for a loaded machine: the other compiles must finish.)
  IsolatedCompiler timed(workerCommand(scratch / "corpus", {"--inject-fault", "hang:helpers.o", "--timeout", "3"}),
                         60s);
  const CompileResult hung = timed.compile(helpers, "");
  CHECK(hung.failure == FailureKind::Timeout);
  CHECK(timed.compile(strings, "").ok());
  CHECK(timed.workersLost() == 0);
  // ...and a worker that does not answer at all is killed at the reply timeout.
  IsolatedCompiler stuck(workerCommand(scratch / "corpus", {"--inject-fault", "hang:helpers.o", "--timeout", "0"}),
                         10s);
  const CompileResult killed = stuck.compile(helpers, "");
  CHECK(killed.failure == FailureKind::Timeout);
  CHECK_THAT(killed.message, Contains("did not answer"));
  CHECK(stuck.compile(strings, "").ok());
  CHECK(stuck.workersLost() == 1);

  // A worker that cannot start is a failed compile, not an exception.
  IsolatedCompiler missing({(scratch / "no-such-program").string()}, 5s);
  const CompileResult notStarted = missing.compile(strings, "");
  CHECK_FALSE(notStarted.ok());
  CHECK_THAT(notStarted.message, Contains("no-such-program"));
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
