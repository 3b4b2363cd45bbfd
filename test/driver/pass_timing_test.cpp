#include <catch2/catch.hpp>

#include <algorithm>

#include "mlgo/driver/compiler_driver.h"
#include "mlgo/driver/optimization_work.h"
#include "mlgo/driver/pass_timing.h"
#include "support/test_environment.h"

using namespace mlgo;

TEST_CASE("pass timing: least squares recovers c, a and q, and never gives a negative term", "[driver]") {
  // Invocations on one or two functions of n instructions each.
  CostObservations exact;
  for (double n : {10.0, 200.0, 1500.0, 9000.0})
    for (double functions : {1.0, 2.0})
      exact.add(functions, functions * n, functions * n * n, functions * (4000.0 + 3.0 * n + 0.02 * n * n));
  const auto [c, a, q] = exact.fit();
  CHECK(c == Approx(4000.0).epsilon(1e-6));
  CHECK(a == Approx(3.0).epsilon(1e-6));
  CHECK(q == Approx(0.02).epsilon(1e-6));
  CHECK(exact.count == 8);

  // Time that shrinks per instruction as functions grow: the unconstrained
  // q is negative, so the fit keeps the best subset of terms without it.
  CostObservations shrinking;
  for (double n : {100.0, 1000.0, 10000.0}) shrinking.add(1, n, n * n, 50.0 * n - 0.001 * n * n);
  const auto shrunk = shrinking.fit();
  CHECK(shrunk[1] > 0);
  CHECK(shrunk[2] == 0);
  for (double term : shrunk) CHECK(term >= 0);

  CostObservations merged;
  merged.merge(exact);
  merged.merge(exact);
  CHECK(merged.count == 16);
  CHECK(merged.fit()[1] == Approx(3.0).epsilon(1e-6));
  CHECK(CostObservations().fit() == std::array<double, 3>{0, 0, 0});
}

TEST_CASE("pass timing: each pass invocation is observed on the unit the cost model charges", "[driver][clang]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch.path(), test::testData() / "big_callee.c");
  const CorpusModule &module = corpus.modules.front();
  const std::vector<uint64_t> functions = functionInstructionCounts(module.bitcodePath);
  const CompilerDriver driver(test::driverThreads(1));

  auto timing = std::make_shared<PassTiming>();
  const CompileResult result = driver.compile({&module, "function(instcombine)", {timing}});
  REQUIRE(result.ok());
  timing->recordCodeGeneration(result.irInstructions);
  const PassTimes &times = timing->times();
  // The always-inline prologue once on the module, instcombine once on each
  // function it leaves; the adaptors and managers around them are not passes.
  REQUIRE(times.passes.count("AlwaysInlinerPass"));
  CHECK(times.passes.at("AlwaysInlinerPass").count == 1);
  REQUIRE(times.passes.count("InstCombinePass"));
  CHECK(times.passes.at("InstCombinePass").count >= 1);
  CHECK(times.passes.at("InstCombinePass").count <= functions.size());
  for (const auto &[pass, observed] : times.passes) {
    INFO(pass);
    CHECK(pass.find("PassManager") == std::string::npos);
    CHECK(pass.find("PassAdaptor") == std::string::npos);
  }
  // The module pass is charged every function of the module as it came.
  const CostObservations &prologue = times.passes.at("AlwaysInlinerPass");
  double sum = 0, squares = 0;
  for (uint64_t n : functions) sum += double(n), squares += double(n) * double(n);
  CHECK(prologue.products[0][0] == Approx(double(functions.size() * functions.size())));
  CHECK(prologue.products[1][1] == Approx(sum * sum));
  CHECK(prologue.products[2][2] == Approx(squares * squares));
  CHECK(times.largestFunction == *std::max_element(functions.begin(), functions.end()));
  CHECK(prologue.largestFunction == times.largestFunction);
  // One code generation, charged by the optimized module's instructions.
  CHECK(times.codeGeneration.count == 1);
  CHECK(times.codeGeneration.products[1][1] == Approx(double(result.irInstructions) * double(result.irInstructions)));
  CHECK(times.codeGeneration.nanoseconds > 0);
}

TEST_CASE("pass timing: a pass's own time leaves out the passes nested in it", "[driver][clang]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch.path(), test::testData() / "big_callee.c");
  const CompilerDriver driver(test::driverThreads(1));
  // The inliner runs its SCC's function simplification nested in the CGSCC
  // walk; each is counted once, so the sum of the passes' own times cannot
  // exceed the thread's time for the whole optimization.
  auto timing = std::make_shared<PassTiming>();
  const auto before = std::clock();
  const CompileResult result = driver.compile({&corpus.modules.front(), "default<O3>", {timing}});
  const double processNanoseconds = double(std::clock() - before) * 1e9 / CLOCKS_PER_SEC;
  REQUIRE(result.ok());
  double ownTimes = 0;
  for (const auto &[pass, observed] : timing->times().passes) ownTimes += observed.nanoseconds;
  CHECK(ownTimes > 0);
  CHECK(ownTimes <= processNanoseconds);
  CHECK(timing->times().passes.count("InlinerPass"));
}
