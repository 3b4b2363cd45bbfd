#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <thread>

#include "mlgo/problems/inlining/inlining_hook.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/trace/trace_reader.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

TEST_CASE("cli serve: answers a stock clang-19, logs a trace, exits after --max-sessions", "[cli][serve][clang]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 2).save(traced / "policy");
  const std::string base = (traced / "channel").string();
  std::future<test::CommandOutcome> server = std::async(std::launch::async, [&] {
    return test::runProgram(test::mlgoBinary(), {"serve", "--policy", (traced / "policy").string(), "--channel", base,
                                                 "--max-sessions", "1", "--log", (traced / "served").string()});
  });
  // clang needs the pipes to exist: the server makes them.
  while (!fs::exists(base + ".out")) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  test::CommandOutcome clang =
      test::runProgram(test::clangPath(),
                       {"-Oz", "-c", (test::testData() / "helpers.c").string(), "-o", (traced / "helpers.o").string(),
                        "-mllvm", "-enable-ml-inliner=release", "-mllvm", "-inliner-interactive-channel-base=" + base,
                        "-mllvm", inlining::advisorSizeFlag()});
  INFO(clang.err);
  CHECK(clang.exitCode == 0);
  const test::CommandOutcome served = server.get();
  INFO(served.err);
  CHECK(served.exitCode == exit_code::kSuccess);
  CHECK_THAT(served.out, Catch::Contains("served 1 compilations (0 incomplete)"));
  size_t decisions = 0;
  trace::TraceReader(traced / "served").forEachModule([&](const trace::ModuleTrace &module) {
    decisions += module.decisions();
  });
  CHECK(decisions > 0);
  CHECK_THAT(served.out, Catch::Contains(std::to_string(decisions) + " decisions"));
}

TEST_CASE("cli serve: a channel that cannot be created is a usage error", "[cli][serve][errors]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 2).save(traced / "policy");
  test::CommandOutcome outcome = test::runProgram(
      test::mlgoBinary(),
      {"serve", "--policy", (traced / "policy").string(), "--channel", (traced / "missing" / "ch").string()});
  CHECK(outcome.exitCode == exit_code::kUsage);
  CHECK_THAT(outcome.err, Catch::Contains("cannot create channel"));
}
