#include <catch2/catch.hpp>

#include <map>

#include "mlgo/policy/position_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/tracing/explore.h"
#include "mlgo/tracing/explore_baseline.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/training/cloning/bc_trainer.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// The regalloc test programs at -O2 and their default trace.
struct RegallocTrace {
  test::ScratchDirectory scratch;
  Corpus corpus = test::regallocTracedCorpus(scratch / "corpus", scratch / "trace");
  BCOptions options(const std::string &output, std::vector<std::string> sets) const {
    BCOptions options;
    options.trace = scratch / "trace";
    options.output = scratch / output;
    options.seed = 4;
    sets.insert(sets.end(), {"holdout_fraction=0", "checkpoint_every=0", "dropout=0"});
    options.config = behavioralCloningSchema().resolve(std::nullopt, sets);
    return options;
  }
};

}  // namespace

TEST_CASE("train-bc on regalloc: learns LLVM's eviction choices better than any fixed position",
          "[training][regalloc]") {
  RegallocTrace traced;
  const BCSummary summary = trainBehavioralCloning(
      traced.options("bc", {"iterations=1500", "report_every=500", "batch_size=32", "learning_rate=0.003"}));

  // The policy as mlgo runs it in the compiler (plain C++, from disk) agrees
  // with the trace as often as train-bc measured with LibTorch; and more
  // often than the best constant answer (the most frequent position).
  const PositionPolicy policy =
      PositionPolicy::load(traced.scratch / "bc", "regalloc", findProblem("regalloc").decisionSpec());
  size_t agreeing = 0, total = 0;
  std::map<int64_t, size_t> positions;
  trace::TraceReader(traced.scratch / "trace").forEachModule([&](const trace::ModuleTrace &module) {
    for (size_t d = 0; d < module.decisions(); ++d, ++total) {
      agreeing += policy.decide(module.featuresOf(d)) == module.actions[d];
      ++positions[module.actions[d]];
    }
  });
  size_t mostFrequent = 0;
  for (const auto &[position, count] : positions) mostFrequent = std::max(mostFrequent, count);
  REQUIRE(summary.trainDecisions == total);
  CHECK(double(agreeing) / double(total) == Approx(summary.trainAgreement).margin(1e-9));
  CHECK(summary.trainAgreement > double(mostFrequent) / double(total) + 0.1);
  CHECK(policy.training["trainer"] == "behavioral-cloning");
}

TEST_CASE("train-bc on regalloc: the same trace, config and seed give identical weights",
          "[training][regalloc][determinism]") {
  RegallocTrace traced;
  trainBehavioralCloning(traced.options("a", {"iterations=200", "report_every=100"}));
  trainBehavioralCloning(traced.options("b", {"iterations=200", "report_every=100"}));
  CHECK(readFile(traced.scratch / "a/policy/model.json") == readFile(traced.scratch / "b/policy/model.json"));
  BCOptions other = traced.options("c", {"iterations=200", "report_every=100"});
  other.seed = 5;
  trainBehavioralCloning(other);
  CHECK(readFile(traced.scratch / "a/policy/model.json") != readFile(traced.scratch / "c/policy/model.json"));
}

TEST_CASE("train-bc on regalloc: imitation weighs the evictions the search changed", "[training][regalloc][explore]") {
  RegallocTrace traced;
  const std::unique_ptr<ExploreBaseline> ranker = positionPolicyBaseline(
      std::make_shared<const PositionPolicy>(test::regallocPolicyScoringBy("liverange_size")), true);
  ExploreOptions explore;
  explore.output = traced.scratch / "explored";
  explore.settings.baseline = ranker.get();
  explore.settings.budget = 12;
  const std::unique_ptr<Cluster> single = singleProcessCluster();
  const ExploreSummary found = runExplore(traced.corpus, CompilerDriver(test::driverThreads(2)),
                                          findProblem("regalloc"), explore, nullptr, *single);
  REQUIRE(found.bestValue < found.defaultValue);

  // How many of the evictions the search changed a policy takes.
  auto reproducedChanges = [&](const std::string &flipWeight) {
    BCOptions options = traced.options("flip" + flipWeight, {"iterations=1500", "report_every=1500",
                                                             "batch_size=32", "learning_rate=0.003",
                                                             "flip_weight=" + flipWeight});
    options.trace = explore.output;
    trainBehavioralCloning(options);
    const PositionPolicy policy = PositionPolicy::load(options.output, "regalloc", findProblem("regalloc").decisionSpec());
    std::pair<size_t, size_t> reproducedOfChanged{0, 0};
    trace::TraceReader(explore.output).forEachModule([&](const trace::ModuleTrace &module) {
      for (size_t d = 0; d < module.decisions(); ++d) {
        if (module.actions[d] == module.defaultDecisions[d]) continue;
        ++reproducedOfChanged.second;
        reproducedOfChanged.first += policy.decide(module.featuresOf(d)) == module.actions[d];
      }
    });
    return reproducedOfChanged;
  };
  const auto [plain, changed] = reproducedChanges("0");
  const auto [weighted, changedToo] = reproducedChanges("50");
  REQUIRE(changed > 0);
  CHECK(changedToo == changed);
  CHECK(weighted > plain);
  CHECK(2 * weighted > changed);
}

TEST_CASE("train-bc on regalloc --warmstart: keeps the start's network and input statistics",
          "[training][regalloc]") {
  RegallocTrace traced;
  const trace::DecisionSpec &spec = findProblem("regalloc").decisionSpec();
  const PositionPolicy start = test::regallocPolicyScoringBy("liverange_size");
  start.save(traced.scratch / "start");
  BCOptions options = traced.options("kept", {"iterations=1", "report_every=1", "learning_rate=1e-9",
                                              "hidden_layers=[]"});
  options.warmstart = traced.scratch / "start";
  trainBehavioralCloning(options);
  const PositionPolicy kept = PositionPolicy::load(traced.scratch / "kept", "regalloc", spec);
  // The start's statistics (all 0 and 1), not the trace's, and its choices.
  CHECK(kept.means() == start.means());
  CHECK(kept.stddevs() == start.stddevs());
  size_t decisions = 0, differing = 0;
  trace::TraceReader(traced.scratch / "trace").forEachModule([&](const trace::ModuleTrace &module) {
    for (size_t d = 0; d < module.decisions(); ++d, ++decisions)
      differing += kept.decide(module.featuresOf(d)) != start.decide(module.featuresOf(d));
  });
  CHECK(decisions > 0);
  CHECK(differing == 0);
  // Without the warm start the statistics are the trace's.
  trainBehavioralCloning(traced.options("fresh", {"iterations=1", "report_every=1", "hidden_layers=[]"}));
  CHECK(PositionPolicy::load(traced.scratch / "fresh", "regalloc", spec).means() != start.means());

  // The config's network must be the start's.
  BCOptions otherShape = traced.options("x", {"iterations=1"});
  otherShape.warmstart = traced.scratch / "start";
  CHECK_THROWS_WITH(trainBehavioralCloning(otherShape), Contains("hidden_layers"));
  // A policy of another problem is refused.
  test::TracedTestCorpus inlining;
  BCOptions otherProblem = traced.options("y", {"iterations=1", "hidden_layers=[]"});
  otherProblem.trace = inlining / "trace";
  otherProblem.warmstart = traced.scratch / "start";
  CHECK_THROWS_WITH(trainBehavioralCloning(otherProblem), Contains("regalloc"));
}

TEST_CASE("train-bc on regalloc: settings of bucketized features and of .text gains are refused",
          "[training][regalloc][errors]") {
  RegallocTrace traced;
  CHECK_THROWS_WITH(trainBehavioralCloning(traced.options("x", {"gain_weight=1"})),
                    Contains("gain_weight") && Contains("regalloc"));
  CHECK_THROWS_WITH(trainBehavioralCloning(traced.options("x", {"with_z_score=true"})), Contains("with_z_score"));
  CHECK_FALSE(fs::exists(traced.scratch / "x" / "policy"));
  // Inlining still needs its vocab, and says so.
  test::TracedTestCorpus inlining;
  BCOptions options = traced.options("y", {"iterations=10"});
  options.trace = inlining / "trace";
  CHECK_THROWS_WITH(trainBehavioralCloning(options), Contains("--vocab"));
}
