#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/policy/position_policy.h"
#include "mlgo/policy/sampling_policy.h"
#include "mlgo/policy/trajectory.h"
#include "mlgo/policy/continuous_policy.h"
#include "mlgo/problems/problem.h"
#include "support/test_environment.h"

using namespace mlgo;

namespace {

const trace::DecisionSpec &regallocSpec() { return findProblem("regalloc").decisionSpec(); }

/// A regalloc decision's raw words that allow `positions` (nothing else set).
std::vector<int64_t> decisionAllowing(const std::vector<size_t> &positions) {
  std::vector<int64_t> words(regallocSpec().decisionWords(), 0);
  const size_t mask = regallocSpec().offsetOf(regallocSpec().indexOf(PositionLayout::kMaskName));
  for (size_t position : positions) {
    const int64_t one = 1;
    std::memcpy(reinterpret_cast<uint8_t *>(words.data()) + mask + position * 8, &one, 8);
  }
  return words;
}

}  // namespace

TEST_CASE("sampling policy: among positions, samples follow the softmax over the positions the mask allows",
          "[policy][rl][regalloc]") {
  // Scores 20 log1p(position / 32): positions 0, 1, 2, 5 weigh 1, 1.85,
  // 3.37 and 18.2 in the softmax.
  const PositionPolicy scoring = test::regallocPolicyScoringBy("position", 20.0f);
  const auto policy = samplingPolicy(scoring);
  REQUIRE(policy->actionCount() == 33);
  REQUIRE(policy->featureWords() == regallocSpec().decisionWords());
  const std::vector<size_t> allowed{0, 1, 2, 5};
  const std::vector<int64_t> words = decisionAllowing(allowed);
  Trajectory trajectory;
  ActionSampler sampler(*policy, 7, trajectory);
  const int n = 24000;
  std::vector<int> counts(33, 0);
  for (int i = 0; i < n; ++i) ++counts.at(size_t(sampler.sample(words.data())));
  // Every decision recorded with the logits it was sampled from: the
  // policy's scores, -infinity where the mask forbids.
  REQUIRE(trajectory.decisions() == size_t(n));
  CHECK(trajectory.actionCount == 33);
  REQUIRE(trajectory.logits.size() == size_t(33 * n));
  double total = 0;
  for (size_t position : allowed) {
    CHECK(trajectory.logits[position] == Approx(20 * std::log1p(position / 32.0)).epsilon(1e-4));
    total += std::exp(double(trajectory.logits[position]));
  }
  for (size_t position = 0; position < 33; ++position) {
    INFO("position " << position);
    if (std::find(allowed.begin(), allowed.end(), position) == allowed.end()) {
      CHECK(counts[position] == 0);
      CHECK(trajectory.logits[position] == -std::numeric_limits<float>::infinity());
      continue;
    }
    const double p = std::exp(double(trajectory.logits[position])) / total, sigma = std::sqrt(n * p * (1 - p));
    CHECK(std::abs(counts[position] - n * p) < 5 * sigma);
  }

  // Greedy: the policy's own choice; a decision allowing nothing is not taken.
  Trajectory greedyTrajectory;
  ActionSampler greedy(*policy, 7, greedyTrajectory, /*greedy=*/true);
  CHECK(greedy.sample(words.data()) == 5);
  CHECK(greedy.sample(words.data()) == scoring.decide(words.data()));
  CHECK(greedy.sample(decisionAllowing({}).data()) == -1);
  CHECK(greedyTrajectory.decisions() == 2);
}

TEST_CASE("sampling policy: serialized policies of both kinds come back equal, other bytes are refused",
          "[policy][rl]") {
  const auto position = samplingPolicy(test::regallocPolicyScoringBy("position"));
  const auto positionBack = deserializeSamplingPolicy(position->serialize());
  CHECK(positionBack->serialize() == position->serialize());
  CHECK(positionBack->actionCount() == 33);
  const std::vector<int64_t> words = decisionAllowing({1, 4, 32});
  std::vector<float> logits(33), logitsBack(33);
  position->logits(words.data(), logits.data());
  positionBack->logits(words.data(), logitsBack.data());
  CHECK(logits == logitsBack);

  FeaturePreprocessor pre({"a"}, {{"a", {0, 10}}}, {});
  const DenseLayer layer{2, 2, {0.25f, -1.5f, 3.0f, 0.125f}, {0.1f, -0.2f}};
  const auto yesNo = samplingPolicy(YesNoPolicy("inlining", pre, {layer}, Activation::Relu));
  const auto yesNoBack = deserializeSamplingPolicy(yesNo->serialize());
  CHECK(yesNoBack->serialize() == yesNo->serialize());
  CHECK(yesNoBack->actionCount() == 2);
  const int64_t feature = 7;
  float two[2], twoBack[2];
  yesNo->logits(&feature, two);
  yesNoBack->logits(&feature, twoBack);
  CHECK(two[0] == twoBack[0]);
  CHECK(two[1] == twoBack[1]);

  CHECK_THROWS_AS(deserializeSamplingPolicy(""), std::runtime_error);
  CHECK_THROWS_AS(deserializeSamplingPolicy("zzz"), std::runtime_error);
  CHECK_THROWS_AS(deserializeSamplingPolicy("p" + yesNo->serialize().substr(1)), std::runtime_error);
  CHECK_THROWS_AS(deserializeSamplingPolicy(position->serialize().substr(0, 40)), std::runtime_error);
}

TEST_CASE(
    "sampling policy: a continuous policy samples a Gaussian around its output, greedily its output, and comes back "
    "equal serialized",
    "[policy][rl][priority]") {
  const ContinuousPolicy policy = test::randomPriorityPolicy(4);
  const auto sampling = samplingPolicy(policy, std::log(0.25f));
  CHECK(sampling->actionCount() == 0);
  CHECK(sampling->logStd() == std::log(0.25f));
  const std::vector<int64_t> words{1200, 1, 0};
  const float mean = sampling->mean(words.data());
  CHECK(mean == policy.output(words.data()));
  CHECK(sampling->valueOf(mean) == policy.floatAnswer(words.data(), 0));

  Trajectory trajectory;
  ActionSampler sampler(*sampling, 11, trajectory);
  const int n = 4000;
  double sum = 0, squares = 0;
  for (int i = 0; i < n; ++i) {
    const double value = sampler.decideValue(words.data(), 0.0);
    const float output = trajectory.outputs.back();
    CHECK(value == sampling->valueOf(output));
    sum += output - mean;
    squares += (output - mean) * (output - mean);
  }
  REQUIRE(trajectory.decisions() == size_t(n));
  CHECK(trajectory.means == std::vector<float>(n, mean));
  CHECK(trajectory.logStd == std::log(0.25f));
  CHECK(trajectory.features.size() == size_t(3 * n));
  // Mean 0 and standard deviation 0.25, within a few standard errors.
  CHECK(std::fabs(sum / n) < 4 * 0.25 / std::sqrt(n));
  CHECK(std::sqrt(squares / n) == Approx(0.25).epsilon(0.05));
  // The same seed draws the same outputs; greedy takes the mean.
  Trajectory again, greedy;
  ActionSampler replay(*sampling, 11, again), argmax(*sampling, 11, greedy, true);
  for (int i = 0; i < n; ++i) replay.decideValue(words.data(), 0.0);
  CHECK(again.outputs == trajectory.outputs);
  CHECK(argmax.decideValue(words.data(), 0.0) == policy.floatAnswer(words.data(), 0));
  CHECK(greedy.outputs == std::vector<float>{mean});

  const auto back = deserializeSamplingPolicy(sampling->serialize());
  CHECK(back->serialize() == sampling->serialize());
  CHECK(back->actionCount() == 0);
  CHECK(back->logStd() == sampling->logStd());
  CHECK(back->mean(words.data()) == mean);
  CHECK_THROWS_AS(deserializeSamplingPolicy(sampling->serialize().substr(0, 3)), std::runtime_error);
  // A choice's questions are not a continuous policy's, and the other way round.
  float logits[2];
  CHECK_THROWS_AS(sampling->logits(words.data(), logits), std::logic_error);
  CHECK_THROWS_AS(sampler.sample(words.data()), std::logic_error);
}

TEST_CASE("sampling policy: the greedy action is the first highest allowed logit", "[policy]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float tie[3] = {1, 2, 2};
  CHECK(greedyAction(tie, 3) == 1);
  const float masked[3] = {-inf, -5, -inf};
  CHECK(greedyAction(masked, 3) == 1);
  const float none[2] = {-inf, -inf};
  CHECK(greedyAction(none, 2) == -1);
}
