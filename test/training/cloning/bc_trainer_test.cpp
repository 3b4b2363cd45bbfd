#include <catch2/catch.hpp>

#include <fstream>

#include "mlgo/eval/evaluation.h"
#include "mlgo/problems/inlining/inlining_hook.h"
#include "mlgo/problems/inlining/neural_policy.h"
#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/tracing/default_trace.h"
#include "mlgo/tracing/explore.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/training/cloning/bc_trainer.h"
#include "mlgo/vocab/gen_vocab.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

namespace {

/// The test project's corpus, its default trace and vocab.
struct TracedCorpus : test::TracedTestCorpus {
  BCOptions options(const std::string &output, std::vector<std::string> sets) const {
    BCOptions options;
    options.trace = scratch / "trace";
    options.vocab = scratch / "vocab";
    options.output = scratch / output;
    options.seed = 3;
    options.config = behavioralCloningSchema().resolve(std::nullopt, sets);
    return options;
  }
};

/// How many of the decisions a search changed (those of `trace` whose action is
/// not the default heuristic's) the policy in `policyDirectory` takes too.
struct ChangedDecisions {
  size_t changed = 0, reproduced = 0;
};
ChangedDecisions reproducedChanges(const fs::path &trace, const fs::path &policyDirectory) {
  const Problem &problem = findProblem("inlining");
  const YesNoPolicy policy = YesNoPolicy::load(policyDirectory, problem.name(), problem.featureNames());
  ChangedDecisions counts;
  trace::TraceReader(trace).forEachModule([&](const trace::ModuleTrace &module) {
    for (size_t d = 0; d < module.decisions(); ++d) {
      if (module.defaultDecisions[d] < 0 || module.defaultDecisions[d] == module.actions[d]) continue;
      ++counts.changed;
      counts.reproduced += policy.decide(module.featuresOf(d)) == bool(module.actions[d]);
    }
  });
  return counts;
}

}  // namespace

TEST_CASE("train-bc: a short run on a tiny trace clearly beats chance", "[training]") {
  TracedCorpus traced;
  BCSummary summary =
      trainBehavioralCloning(traced.options("bc", {"iterations=3000", "report_every=500", "checkpoint_every=1000",
                                                   "holdout_fraction=0", "learning_rate=0.01"}));
  // Chance here is always answering the majority decision.
  size_t inlined = 0, total = 0;
  trace::TraceReader(traced.scratch / "trace").forEachModule([&](const trace::ModuleTrace &module) {
    for (uint8_t action : module.actions) inlined += action;
    total += module.decisions();
  });
  const double majority = std::max(inlined, total - inlined) / double(total);
  CHECK(summary.trainDecisions == total);
  CHECK(summary.trainAgreement >= 0.95);
  CHECK(summary.trainAgreement > majority + 0.05);

  // Outputs: metrics every 500 steps, checkpoints, the resolved config, the policy.
  std::ifstream metrics(traced.scratch / "bc/metrics.jsonl");
  size_t lines = 0;
  for (std::string line; std::getline(metrics, line); ++lines) CHECK(nlohmann::json::parse(line).contains("loss"));
  CHECK(lines == 6);
  CHECK(fs::exists(traced.scratch / "bc/checkpoints/iteration-1000/policy.json"));
  CHECK(fs::exists(traced.scratch / "bc/config.json"));
  const auto &problem = findProblem("inlining");
  YesNoPolicy policy = YesNoPolicy::load(traced.scratch / "bc", problem.name(), problem.featureNames());
  CHECK(policy.hiddenSizes() == std::vector<size_t>{40, 40, 20});
  CHECK(policy.training["iterations"] == 3000);
  CHECK_NOTHROW(policy.checkVocab(traced.scratch / "vocab"));

  // The policy compiles the corpus through the hook, close to -Oz.
  EvalOptions eval;
  eval.candidateHooks =
      inlining::hooksFor(std::make_shared<NeuralInliningPolicy>(std::make_shared<YesNoPolicy>(policy)));
  EvalReport report = evaluateCorpus(traced.corpus, CompilerDriver({}), eval);
  CHECK(report.compared == traced.corpus.modules.size());
  const double change = double(report.candidateTotals.sizes.text) / report.baselineTotals.sizes.text - 1;
  CHECK(std::abs(change) < 0.05);
}

TEST_CASE("train-bc: imitation of an explored trace learns what the search found", "[training][explore]") {
  TracedCorpus traced;
  ExploreOptions explore;
  explore.output = traced.scratch / "explored";
  const std::unique_ptr<Cluster> single = singleProcessCluster();
  const ExploreSummary found =
      runExplore(traced.corpus, CompilerDriver({}), findProblem("inlining"), explore, nullptr, *single);
  REQUIRE(found.bestValue < found.defaultValue);

  auto imitate = [&](const std::string &output, const std::string &gainWeight, const std::string &flipWeight) {
    BCOptions options = traced.options(output, {"iterations=3000", "report_every=3000", "holdout_fraction=0",
                                                "learning_rate=0.01", "gain_weight=" + gainWeight,
                                                "flip_weight=" + flipWeight});
    options.trace = traced.scratch / "explored";
    const BCSummary summary = trainBehavioralCloning(options);
    const auto &problem = findProblem("inlining");
    EvalOptions eval;
    eval.candidateHooks = inlining::hooksFor(std::make_shared<NeuralInliningPolicy>(std::make_shared<YesNoPolicy>(
        YesNoPolicy::load(traced.scratch / output, problem.name(), problem.featureNames()))));
    const EvalReport report = evaluateCorpus(traced.corpus, CompilerDriver({}), eval);
    REQUIRE(report.compared == traced.corpus.modules.size());
    return std::make_pair(summary, report.candidateTotals.sizes.text);
  };
  // The policy reproduces the explored decisions and, compiled, is smaller
  // than the default heuristic: it learned what the search found.
  const auto [weighted, weightedText] = imitate("imitation", "1", "0");
  CHECK(weighted.trainAgreement >= 0.95);
  CHECK(double(weightedText) < found.defaultValue);
  // Weights change what is learned: the improved modules' decisions, and
  // the decisions the search flipped, count more.
  imitate("unweighted", "0", "0");
  // (Whether that pays is an empirical question: on this corpus it does not,
  // see BENCHMARKS.md, "Learners".)
  imitate("flips", "1", "10");
  const ChangedDecisions byFlips = reproducedChanges(explore.output, traced.scratch / "flips");
  const ChangedDecisions byImitation = reproducedChanges(explore.output, traced.scratch / "imitation");
  // Weighting the decisions the search changed makes the policy take at least
  // as many of them, and most of them. (Its agreement on all decisions is not
  // asserted: trading the others for the changed ones is what flip_weight
  // does, and where that lands depends on floating-point details such as the
  // BLAS kernel the CPU selects: 0.82 to 0.99 seen.)
  REQUIRE(byFlips.changed > 0);
  CHECK(byFlips.reproduced >= byImitation.reproduced);
  CHECK(2 * byFlips.reproduced > byFlips.changed);
  CHECK(readFile(traced.scratch / "imitation/policy/model.json") !=
        readFile(traced.scratch / "unweighted/policy/model.json"));
  CHECK(readFile(traced.scratch / "flips/policy/model.json") !=
        readFile(traced.scratch / "imitation/policy/model.json"));
}

TEST_CASE("train-bc --warmstart: starts from the policy's network, fine-tunes it toward a search around it",
          "[training][explore]") {
  TracedCorpus traced;
  const auto &problem = findProblem("inlining");
  auto policyAt = [&](const std::string &output) {
    return YesNoPolicy::load(traced.scratch / output, problem.name(), problem.featureNames());
  };
  // How many decisions of the default trace two policies take differently.
  auto disagreements = [&](const YesNoPolicy &a, const YesNoPolicy &b) {
    size_t count = 0;
    trace::TraceReader(traced.scratch / "trace").forEachModule([&](const trace::ModuleTrace &module) {
      for (size_t d = 0; d < module.decisions(); ++d)
        count += a.decide(module.featuresOf(d)) != b.decide(module.featuresOf(d));
    });
    return count;
  };
  trainBehavioralCloning(traced.options("start", {"iterations=2000", "report_every=2000", "holdout_fraction=0",
                                                  "learning_rate=0.01", "checkpoint_every=0"}));
  const YesNoPolicy start = policyAt("start");

  // One step too small to change a decision: the start's network and
  // preprocessing, not random weights (the vocab is the start's own).
  const std::vector<std::string> oneTinyStep{"iterations=1", "report_every=1", "holdout_fraction=0",
                                             "learning_rate=1e-9", "dropout=0", "checkpoint_every=0"};
  BCOptions kept = traced.options("kept", oneTinyStep);
  kept.vocab.clear();
  kept.warmstart = traced.scratch / "start";
  trainBehavioralCloning(kept);
  CHECK(disagreements(policyAt("kept"), start) == 0);
  CHECK(policyAt("kept").training["warmstart"] == (traced.scratch / "start").string());
  trainBehavioralCloning(traced.options("fresh", oneTinyStep));
  CHECK(disagreements(policyAt("fresh"), start) > 0);

  // Fine-tuned on a search around the default heuristic, the start takes most
  // of what the search changed, and more of it than before.
  ExploreOptions explore;
  explore.output = traced.scratch / "explored";
  const std::unique_ptr<Cluster> single = singleProcessCluster();
  runExplore(traced.corpus, CompilerDriver({}), problem, explore, nullptr, *single);
  BCOptions tuned = traced.options("tuned", {"iterations=3000", "report_every=3000", "holdout_fraction=0",
                                             "learning_rate=0.01", "dropout=0", "flip_weight=50",
                                             "checkpoint_every=0"});
  tuned.trace = explore.output;
  tuned.warmstart = traced.scratch / "start";
  trainBehavioralCloning(tuned);
  const ChangedDecisions before = reproducedChanges(explore.output, traced.scratch / "start");
  const ChangedDecisions after = reproducedChanges(explore.output, traced.scratch / "tuned");
  REQUIRE(after.changed > 0);
  CHECK(after.reproduced > before.reproduced);
  CHECK(2 * after.reproduced > after.changed);

  // A network of another shape than the config's is refused, naming both.
  BCOptions otherShape = traced.options("x", {"iterations=10", "hidden_layers=[8]"});
  otherShape.warmstart = traced.scratch / "start";
  CHECK_THROWS_WITH(trainBehavioralCloning(otherShape), Catch::Contains("[40,40,20]") && Catch::Contains("[8]"));
  CHECK_FALSE(fs::exists(traced.scratch / "x/policy"));
}

TEST_CASE("train-bc: the same trace, config and seed give identical weights", "[training][determinism]") {
  TracedCorpus traced;
  const std::vector<std::string> sets{"iterations=300", "report_every=100", "checkpoint_every=0"};
  trainBehavioralCloning(traced.options("a", sets));
  trainBehavioralCloning(traced.options("b", sets));
  CHECK(readFile(traced.scratch / "a/policy/model.json") == readFile(traced.scratch / "b/policy/model.json"));
  BCOptions other = traced.options("c", sets);
  other.seed = 4;
  trainBehavioralCloning(other);
  CHECK(readFile(traced.scratch / "a/policy/model.json") != readFile(traced.scratch / "c/policy/model.json"));
}

TEST_CASE("train-bc: bad inputs are refused before training", "[training][errors]") {
  TracedCorpus traced;
  BCOptions missingVocab = traced.options("x", {"iterations=10"});
  missingVocab.vocab = traced.scratch / "no-vocab";
  CHECK_THROWS_AS(trainBehavioralCloning(missingVocab), InputError);
  CHECK_THROWS_AS(trainBehavioralCloning(traced.options("x", {"dropout=1.5"})), UsageError);
  CHECK_THROWS_AS(trainBehavioralCloning(traced.options("x", {"hidden_layers=[0]"})), UsageError);
  CHECK_FALSE(fs::exists(traced.scratch / "x/policy"));
}
