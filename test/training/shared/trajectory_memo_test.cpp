// The tree of compiled trajectories that train-ppo's collection replays.
#include <catch2/catch.hpp>

#include "mlgo/policy/sampling_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/training/shared/trajectory_memo.h"
#include "mlgo/policy/vocab_files.h"
#include "support/test_environment.h"

using namespace mlgo;

TEST_CASE("trajectory memo: replays known paths, refuses unknown and inconsistent ones", "[training][memo]") {
  const test::TracedTestCorpus traced;
  const Problem &problem = findProblem("inlining");
  FeaturePreprocessor pre(problem.featureNames(), readVocab(traced / "vocab", problem.featureNames()), {});
  const size_t width = pre.inputCount();
  auto policy = [&](float bias1) {
    return YesNoPolicy("inlining", pre,
                       {{pre.outputCount(), 2, std::vector<float>(pre.outputCount() * 2, 0.0f), {0, bias1}}},
                       Activation::Relu);
  };
  const auto inlineAll = samplingPolicy(policy(40)), inlineNone = samplingPolicy(policy(-40));
  Trajectory known;
  known.featureCount = width;
  known.features.assign(2 * width, 7);
  known.actions = {1, 1};
  known.logits = {0, 40, 0, 40};
  CompileResult result;
  result.sizes.text = 123;
  TrajectoryMemo memo(1 << 20);
  REQUIRE(memo.record("m", known, result));
  Trajectory replayed;
  ActionSampler all(*inlineAll, 1, replayed);
  const auto hit = memo.replay("m", all);
  REQUIRE(hit);
  CHECK(hit->sizes.text == 123);
  CHECK(replayed.actions == known.actions);
  CHECK(replayed.features == known.features);
  Trajectory other;
  ActionSampler none(*inlineNone, 1, other);
  CHECK_FALSE(memo.replay("m", none));  // leaves the known path at the first decision
  CHECK_FALSE(memo.replay("unknown module", none));
  // Other features where the tree has some: not deterministic, refused.
  Trajectory inconsistent = known;
  inconsistent.features[0] = 8;
  CHECK_FALSE(memo.record("m", inconsistent, result));
  // The byte bound: a tiny memo stores nothing and replays nothing.
  TrajectoryMemo tiny(16);
  CHECK(tiny.record("m", known, result));
  Trajectory none2;
  ActionSampler again(*inlineAll, 1, none2);
  CHECK_FALSE(tiny.replay("m", again));
  CHECK(tiny.bytes() <= 16);
}
