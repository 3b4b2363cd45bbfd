#include <catch2/catch.hpp>

#include <filesystem>

#include "mlgo/policy/decision_steer.h"
#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/policy/position_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "mlgo/tracing/explore.h"
#include "mlgo/tracing/explore_baseline.h"
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
  CHECK(explored.baselineValue == explored.defaultValue);
  CHECK(explored.flipsTried == explored.decisions);
  CHECK(explored.bestValue < explored.defaultValue);
  REQUIRE(!explored.keptFlips.empty());
  CHECK(double(explored.best.nativeSize) == explored.bestValue);  // .text is what inlining's search minimizes
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
  CHECK(explored.bestValue <= explored.defaultValue);
}

TEST_CASE("explore: a policy baseline flips its least certain decisions", "[trace][explore]") {
  test::TracedTestCorpus traced;
  const std::unique_ptr<ExploreBaseline> policy =
      yesNoPolicyBaseline(std::make_shared<const YesNoPolicy>(test::randomInliningPolicy(traced, 5)), false);
  ExploreSettings settings;
  settings.baseline = policy.get();
  settings.flips = 4;
  const ExploredModule explored =
      exploreModule(CompilerDriver({}), test::moduleNamed(traced.corpus, "shapes.o"), findProblem("inlining"),
                    settings);
  REQUIRE(explored.ok());
  CHECK(explored.flipsTried == 4);
  CHECK(explored.bestValue <= explored.baselineValue);
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
  CHECK(summary.bestValue < summary.defaultValue);

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
  CHECK(double(explored) == summary.bestValue);
  CHECK(double(defaultTotal) == summary.defaultValue);
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

namespace {

/// The register-allocation test programs at -O2, explored around LLVM's
/// default evictions ranked by a policy that prefers long live ranges.
struct RegallocExploration {
  test::ScratchDirectory scratch;
  Corpus corpus = test::regallocTracedCorpus(scratch / "corpus", scratch / "trace");
  std::unique_ptr<ExploreBaseline> ranker = positionPolicyBaseline(
      std::make_shared<const PositionPolicy>(test::regallocPolicyScoringBy("liverange_size")), true);
  ExploreSettings settings() const {
    ExploreSettings settings;
    settings.baseline = ranker.get();
    settings.flips = 6;
    settings.budget = 12;
    return settings;
  }
};

}  // namespace

TEST_CASE("explore: regalloc's evictions are searched per function around the default", "[trace][explore][regalloc]") {
  RegallocExploration exploration;
  const Problem &regalloc = findProblem("regalloc");
  CHECK(exploreMetric(regalloc) == "regalloc_score");
  CHECK(exploreMetric(findProblem("inlining")) == "text");
  const ExploredModule explored = exploreModule(CompilerDriver(test::driverThreads(1)),
                                                test::moduleNamed(exploration.corpus, "pressure.o"), regalloc,
                                                exploration.settings());
  REQUIRE(explored.ok());
  // The baseline is the default's decisions: one compile for both.
  CHECK(explored.baselineValue == explored.defaultValue);
  CHECK(explored.segments > 1);  // several functions with evictions, each searched on its own
  CHECK(explored.compiles <= 12);
  // Each compile flips a candidate in every function at once.
  CHECK(explored.flipsTried > explored.compiles);
  CHECK(explored.bestValue < explored.defaultValue);
  REQUIRE(!explored.keptFlips.empty());
  // Around the default, the kept flips are the only decisions that are not
  // the default's own, and each takes a position the mask allows.
  const PositionLayout layout(regalloc.decisionSpec());
  std::vector<float> inputs(layout.positions() * layout.width());
  std::vector<uint8_t> mask(layout.positions());
  for (size_t k = 0; k < explored.best.decisions(); ++k) {
    const bool flipped = std::count(explored.keptFlips.begin(), explored.keptFlips.end(), k) != 0;
    CHECK((explored.best.actions[k] != explored.best.defaultDecisions[k]) == flipped);
    layout.rawInputs(explored.best.featuresOf(k), inputs.data(), mask.data());
    CHECK(mask[explored.best.actions[k]] == 1);
  }
}

TEST_CASE("explore: regalloc's best trajectory scores what the search measured", "[trace][explore][regalloc]") {
  RegallocExploration exploration;
  const Problem &regalloc = findProblem("regalloc");
  const CompilerDriver driver(test::driverThreads(1));
  const CorpusModule &module = test::moduleNamed(exploration.corpus, "kernels.o");
  const ExploredModule explored = exploreModule(driver, module, regalloc, exploration.settings());
  REQUIRE(explored.ok());
  // Replaying the recorded actions in order gives the recorded score: the
  // trajectory is the compile that was measured, segments combined.
  class Replay final : public DecisionSteer {
   public:
    explicit Replay(const trace::ModuleTrace &trace) : trace_(trace) {}
    int64_t decide(const int64_t *, int64_t) override { return trace_.actions.at(next_++); }
    size_t next_ = 0;

   private:
    const trace::ModuleTrace &trace_;
  } replay(explored.best);
  const std::shared_ptr<PipelineHook> hook = regalloc.steeringHook(replay);
  REQUIRE(driver.compile({&module, "", {hook}}).ok());
  CHECK(replay.next_ == explored.best.decisions());
  CHECK(regalloc.measures(*hook).at("regalloc_score") == explored.bestValue);
  // Deterministic: the same search again gives the same trajectory.
  const ExploredModule again = exploreModule(driver, module, regalloc, exploration.settings());
  CHECK(trace::encodeModule(again.best) == trace::encodeModule(explored.best));
  CHECK(again.bestValue == explored.bestValue);
}

TEST_CASE("explore: a regalloc exploration writes the same trace for any thread count", "[trace][explore][regalloc]") {
  RegallocExploration exploration;
  ExploreOptions options;
  options.settings = exploration.settings();
  options.baselineName = "ranker";
  options.shards = 2;
  const std::unique_ptr<Cluster> single = singleProcessCluster();
  options.output = exploration.scratch / "one";
  const ExploreSummary summary = runExplore(exploration.corpus, CompilerDriver(test::driverThreads(1)),
                                            findProblem("regalloc"), options, nullptr, *single);
  options.output = exploration.scratch / "two";
  runExplore(exploration.corpus, CompilerDriver(test::driverThreads(2)), findProblem("regalloc"), options, nullptr,
             *single);
  CHECK(summary.metric == "regalloc_score");
  CHECK(summary.bestValue < summary.defaultValue);
  for (const auto &entry : fs::directory_iterator(exploration.scratch / "one"))
    CHECK(readFile(entry.path()) == readFile(exploration.scratch / "two" / entry.path().filename()));
  // baselines.json holds the default's score, as a default trace's does, so
  // train-ppo and train-es take an explored trace as --baselines.
  trace::TraceReader reader(exploration.scratch / "one");
  const nlohmann::json baselines = readJsonFile(exploration.scratch / "one" / "baselines.json");
  const nlohmann::json traced = readJsonFile(exploration.scratch / "trace" / "baselines.json");
  CHECK(baselines["measures"]["regalloc_score"] == traced["measures"]["regalloc_score"]);
  CHECK(reader.description()["regalloc_score_explored"].get<double>() == summary.bestValue);
}

TEST_CASE("explore: decisions among positions need a policy to rank them", "[trace][explore][regalloc]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "regalloc/pressure.c", "-O2");
  ExploreOptions options;
  options.output = scratch / "out";
  const std::unique_ptr<Cluster> single = singleProcessCluster();
  const std::string message = test::messageOf<UsageError>([&] {
    runExplore(corpus, CompilerDriver(test::driverThreads(1)), findProblem("regalloc"), options, nullptr, *single);
  });
  CHECK_THAT(message, Contains("--policy") && Contains("regalloc"));
  CHECK(!fs::exists(scratch / "out"));
}
