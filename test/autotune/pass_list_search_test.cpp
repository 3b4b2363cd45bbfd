#include <catch2/catch.hpp>

#include "mlgo/autotune/pass_list_search.h"
#include "mlgo/support/atomic_file.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::autotune;

TEST_CASE("pass-list search: the evaluator caches, counts and stops at its budget", "[autotune]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  const CompilerDriver driver(test::driverThreads(1));
  ModuleEvaluator evaluator(test::moduleNamed(corpus, "helpers.o"), driver, space, SizeMetric::TextPlusData, 3);
  const int oz = space.find("default<Oz>"), mergefunc = space.find("mergefunc");
  const std::optional<uint64_t> recorded = evaluator.size({});
  REQUIRE(recorded);
  CHECK(*recorded == measure(*evaluator.sections({}), SizeMetric::TextPlusData));
  REQUIRE(evaluator.size({oz}));
  CHECK(evaluator.size({oz}) == evaluator.size({oz}));  // a repeat is free
  CHECK(evaluator.used() == 2);
  REQUIRE(evaluator.size({oz, mergefunc}));
  CHECK(evaluator.exhausted());
  CHECK_FALSE(evaluator.size({mergefunc}));  // over budget
  CHECK(evaluator.used() == 3);
  CHECK(evaluator.failed() == 0);
}

TEST_CASE("pass-list search: a candidate that crashes the compiler is a failed candidate", "[autotune]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  DriverOptions options = test::driverThreads(1);
  options.faults.crashModule = "helpers.o";  // every compile of it segfaults
  const CompilerDriver driver(options);
  ModuleEvaluator evaluator(test::moduleNamed(corpus, "helpers.o"), driver, space, SizeMetric::Text, 10);
  CHECK_FALSE(evaluator.size({space.find("default<Oz>")}));
  CHECK_FALSE(evaluator.size({space.find("mergefunc")}));
  CHECK(evaluator.failed() == 2);
  CHECK(evaluator.used() == 2);
  // The process goes on: another module compiles.
  ModuleEvaluator other(test::moduleNamed(corpus, "strings.o"), driver, space, SizeMetric::Text, 10);
  CHECK(other.size({space.find("default<Oz>")}));
}

TEST_CASE("pass-list search: results are never worse than default<Oz>, within budget, minimal and repeatable",
          "[autotune]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  const CompilerDriver driver(test::driverThreads(1));
  const CorpusModule &module = test::moduleNamed(corpus, "sub/list.o");
  SearchOptions options;
  options.strategy = GENERATE(Strategy::Local, Strategy::Random);
  options.seed = 3;
  const size_t budget = 60;

  ModuleEvaluator evaluator(module, driver, space, SizeMetric::TextPlusData, budget);
  REQUIRE(evaluator.size({}));
  const SearchOutcome outcome = searchModule(evaluator, space, options, module.name);
  CHECK(evaluator.used() <= budget);
  REQUIRE_FALSE(outcome.best.empty());
  CHECK(outcome.best.size() <= 50);
  CHECK(outcome.bestSize == *evaluator.size(outcome.best));
  CHECK(outcome.bestSize <= *evaluator.size({space.find("default<Oz>")}));

  // Minimal where checked: with budget left, dropping any one pass makes the
  // module bigger, and no out-of-order neighbours commute.
  ModuleEvaluator checker(module, driver, space, SizeMetric::TextPlusData, 200);
  for (size_t i = 0; i < outcome.best.size() && outcome.best.size() > 1; ++i) {
    std::vector<int> shorter = outcome.best;
    shorter.erase(shorter.begin() + i);
    const std::optional<uint64_t> size = checker.size(shorter);
    if (size && !evaluator.exhausted()) CHECK(*size > outcome.bestSize);
  }

  // The same seed gives the same list, whatever else ran before.
  ModuleEvaluator again(module, driver, space, SizeMetric::TextPlusData, budget);
  REQUIRE(again.size({}));
  const SearchOutcome repeated = searchModule(again, space, options, module.name);
  CHECK(repeated.best == outcome.best);
  CHECK(repeated.bestSize == outcome.bestSize);
}
