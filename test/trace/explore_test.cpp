#include <catch2/catch.hpp>

#include <filesystem>

#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/trace/explore.h"
#include "mlgo/trace/trace_reader.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

ExploreSummary exploreInto(const Corpus &corpus, const fs::path &output, unsigned threads,
                           ExploreSettings settings = {}) {
  ExploreOptions options;
  options.output = output;
  options.settings = settings;
  options.shards = 3;
  const std::unique_ptr<Cluster> single = singleProcessCluster();
  return runExplore(corpus, CompilerDriver(test::driverThreads(threads)), findProblem("inlining"), options, nullptr,
                    *single);
}

}  // namespace

TEST_CASE("explore: finds the planted better decisions around the default heuristic", "[trace][explore]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "explore" / "planted.c");
  const ExploredModule explored =
      exploreModule(CompilerDriver({}), corpus.modules[0], findProblem("inlining"), ExploreSettings{});
  REQUIRE(explored.ok());
  // The default inlines count_bits() at its five call sites.
  CHECK(explored.decisions >= 5);
  CHECK(explored.baselineSize == explored.defaultSize);
  CHECK(explored.flipsTried == explored.decisions);
  CHECK(explored.bestSize < explored.defaultSize);
  REQUIRE(!explored.keptFlips.empty());
  CHECK(explored.best.nativeSize == explored.bestSize);
  // Every kept flip declines a call site the default inlined (the planted
  // ones); every other decision is the default's.
  for (size_t k = 0; k < explored.best.decisions(); ++k) {
    const bool flipped = std::count(explored.keptFlips.begin(), explored.keptFlips.end(), k) != 0;
    if (flipped) {
      CHECK(explored.best.defaultDecisions[k] == 1);
      CHECK(explored.best.actions[k] == 0);
    } else {
      CHECK(int(explored.best.actions[k]) == explored.best.defaultDecisions[k]);
    }
  }
  // The baseline, every single flip, then each improving flip but the best
  // (compiled alone already) added to the kept ones.
  CHECK(explored.compiles == 1 + explored.flipsTried + explored.improvingFlips - 1);
}

TEST_CASE("explore: the budget bounds the compiles of a module", "[trace][explore]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "explore" / "planted.c");
  ExploreSettings settings;
  settings.budget = 3;
  const ExploredModule explored =
      exploreModule(CompilerDriver({}), corpus.modules[0], findProblem("inlining"), settings);
  REQUIRE(explored.ok());
  CHECK(explored.compiles == 3);
  CHECK(explored.flipsTried == 2);
  CHECK(explored.bestSize <= explored.defaultSize);
}

TEST_CASE("explore: a policy baseline flips its least certain decisions", "[trace][explore]") {
  test::TracedTestCorpus traced;
  const PolicyModel policy = test::randomInliningPolicy(traced, 5);
  ExploreSettings settings;
  settings.baseline = &policy;
  settings.flips = 4;
  const ExploredModule explored =
      exploreModule(CompilerDriver({}), test::moduleNamed(traced.corpus, "shapes.o"), findProblem("inlining"),
                    settings);
  REQUIRE(explored.ok());
  CHECK(explored.flipsTried == 4);
  CHECK(explored.bestSize <= explored.baselineSize);
  // The baseline is the policy's, not the default heuristic's: a random
  // policy decides differently somewhere.
  size_t differences = 0;
  for (size_t k = 0; k < explored.best.decisions(); ++k)
    differences += int(explored.best.actions[k]) != explored.best.defaultDecisions[k];
  CHECK(differences > explored.keptFlips.size());
}

TEST_CASE("explore: writes a trace of the best trajectories, the same for any thread count", "[trace][explore]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const ExploreSummary summary = exploreInto(corpus, scratch / "one", 1);
  exploreInto(corpus, scratch / "two", 2);
  CHECK(summary.explored == corpus.modules.size());
  CHECK(summary.improved >= 1);
  CHECK(summary.bestSize < summary.defaultSize);

  trace::TraceReader reader(scratch / "one");
  CHECK(reader.problem() == "inlining");
  CHECK(reader.description()["policy"] == "explored");
  const std::map<std::string, uint64_t> defaults = reader.baselines();
  uint64_t explored = 0, defaultTotal = 0;
  reader.forEachModule([&](const trace::ModuleTrace &module) {
    explored += module.nativeSize;
    defaultTotal += defaults.at(module.name);
    CHECK(module.nativeSize <= defaults.at(module.name));
  });
  CHECK(explored == summary.bestSize);
  CHECK(defaultTotal == summary.defaultSize);
  CHECK(!fs::exists(scratch / "one" / ".explore-journal"));  // a finished run leaves no journal
  for (const auto &entry : fs::directory_iterator(scratch / "one"))
    CHECK(readFile(entry.path()) == readFile(scratch / "two" / entry.path().filename()));
}

TEST_CASE("explore: bad settings are refused before anything is compiled", "[trace][explore]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "explore" / "planted.c");
  ExploreSettings settings;
  settings.budget = 1;
  CHECK_THROWS_AS(exploreInto(corpus, scratch / "out", 1, settings), UsageError);
  CHECK(!fs::exists(scratch / "out"));
}
