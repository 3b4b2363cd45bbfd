#include <catch2/catch.hpp>

#include <cmath>

#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/policy/sampling_policy.h"
#include "mlgo/policy/trajectory.h"

using namespace mlgo;

namespace {

/// One feature "a" with boundaries {0, 10}; logits = bias + w * [x, x^2].
YesNoPolicy constantPolicy(float logit0, float logit1) {
  FeaturePreprocessor pre({"a"}, {{"a", {0, 10}}}, {});
  DenseLayer layer{2, 2, {0, 0, 0, 0}, {logit0, logit1}};
  return YesNoPolicy("inlining", pre, {layer}, Activation::Relu);
}

}  // namespace

TEST_CASE("trajectory: action seeds depend on seed, iteration and module only", "[policy][rl]") {
  CHECK(actionSeed(1, 2, "a.o") == actionSeed(1, 2, "a.o"));
  CHECK(actionSeed(1, 2, "a.o") != actionSeed(1, 3, "a.o"));
  CHECK(actionSeed(1, 2, "a.o") != actionSeed(2, 2, "a.o"));
  CHECK(actionSeed(1, 2, "a.o") != actionSeed(1, 2, "b.o"));
}

TEST_CASE("trajectory: P(action 1) is the softmax of the two logits", "[policy][rl]") {
  const float even[2] = {3, 3};
  CHECK(probabilityOfAction1(even) == Approx(0.5));
  const float ln3[2] = {0, float(std::log(3.0))};
  CHECK(probabilityOfAction1(ln3) == Approx(0.75).epsilon(1e-6));
  const float extreme[2] = {800, -800};  // no overflow
  CHECK(probabilityOfAction1(extreme) == 0.0);
}

TEST_CASE("trajectory: the sampler follows the policy's distribution and records every decision", "[policy][rl]") {
  const YesNoPolicy model = constantPolicy(0, float(std::log(3.0)));  // P(1) = 0.75
  const auto sampling = samplingPolicy(model);
  Trajectory trajectory;
  ActionSampler sampler(*sampling, 42, trajectory);
  const int n = 20000;
  int ones = 0;
  for (int64_t i = 0; i < n; ++i) ones += sampler.sample(&i) ? 1 : 0;
  REQUIRE(trajectory.decisions() == size_t(n));
  CHECK(trajectory.featureCount == 1);
  CHECK(trajectory.features[123] == 123);
  CHECK(trajectory.logits.size() == size_t(2 * n));
  CHECK(trajectory.logits[0] == 0.0f);
  CHECK(trajectory.logits[1] == Approx(std::log(3.0)));
  size_t recordedOnes = 0;
  for (uint8_t action : trajectory.actions) recordedOnes += action;
  CHECK(recordedOnes == size_t(ones));
  // Binomial(20000, 0.75): standard deviation 61; 5 of them is 306.
  CHECK(std::abs(ones - 0.75 * n) < 306);

  // The same seed gives the same actions; another seed other actions.
  Trajectory again, other;
  ActionSampler same(*sampling, 42, again), different(*sampling, 43, other);
  for (int64_t i = 0; i < n; ++i) {
    same.sample(&i);
    different.sample(&i);
  }
  CHECK(again.actions == trajectory.actions);
  CHECK(other.actions != trajectory.actions);
}

TEST_CASE("trajectory: the sampler marks where each reward segment's decisions begin", "[policy][rl]") {
  const YesNoPolicy model = constantPolicy(0, 0);
  const auto sampling = samplingPolicy(model);
  Trajectory trajectory;
  ActionSampler sampler(*sampling, 7, trajectory);
  int64_t feature = 1;
  sampler.beginSegment("f");
  sampler.sample(&feature);
  sampler.sample(&feature);
  sampler.beginSegment("empty");  // no decision before the next segment: dropped
  sampler.beginSegment("g");
  sampler.sample(&feature);
  CHECK(trajectory.segments == std::vector<Trajectory::Segment>{{0, "f"}, {2, "g"}});
  trajectory.clear();
  CHECK(trajectory.segments.empty());
  CHECK(trajectory.decisions() == 0);
}
