#include <catch2/catch.hpp>

#include "mlgo/driver/compiler_driver.h"
#include "mlgo/driver/optimization_work.h"
#include "support/test_environment.h"

using namespace mlgo;

namespace {

uint64_t workOf(const CompilerDriver &driver, const CorpusModule &module, const std::string &pipeline) {
  auto work = std::make_shared<OptimizationWork>();
  const CompileResult result = driver.compile({&module, pipeline, {work}});
  REQUIRE(result.ok());
  return work->estimatedNanoseconds();
}

}  // namespace

TEST_CASE("optimization work: the same on every compile, and larger for a longer pipeline", "[driver][clang]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch.path(), test::testData() / "big_callee.c");
  const CompilerDriver driver(test::driverThreads(1));
  const CorpusModule &module = corpus.modules.front();
  const uint64_t recorded = workOf(driver, module, "");
  CHECK(recorded > 0);
  CHECK(workOf(driver, module, "") == recorded);
  const uint64_t once = workOf(driver, module, "default<Oz>");
  const uint64_t twice = workOf(driver, module, "default<Oz>,default<Oz>");
  const uint64_t short_ = workOf(driver, module, "function(sroa)");
  CHECK(twice > once);
  CHECK(short_ < once);
  CHECK(short_ > 0);
  // The calibration found the IR outliner tens of times as costly per
  // instruction as instcombine.
  CHECK(workOf(driver, module, "iroutliner") > 10 * workOf(driver, module, "function(instcombine)"));
}
