// train-ppo's rewards on collections built by hand: each decision's reward,
// the baselines a default compile adds, failures, and the resume round trip.
#include <catch2/catch.hpp>

#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/training/ppo/ppo_rewards.h"

using namespace mlgo;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

Corpus twoModules() {
  Corpus corpus;
  corpus.modules.resize(2);
  corpus.modules[0].name = "a.o";
  corpus.modules[1].name = "b.o";
  return corpus;
}

/// A compile of `module` with `decisions` yes/no decisions and `text` bytes of
/// .text, with the default's compile when `defaultText` is given.
CollectedModule compiled(size_t module, size_t decisions, uint64_t text, std::optional<uint64_t> defaultText) {
  CollectedModule collected;
  collected.module = module;
  collected.result.sizes.text = text;
  collected.trajectory.actions.assign(decisions, 1);
  if (defaultText) {
    collected.defaultResult.emplace();
    collected.defaultResult->sizes.text = *defaultText;
  }
  return collected;
}

PPOSettings settingsWith(const std::vector<std::string> &sets) {
  return readPPOSettings(ppoSettingsSchema().keys().resolve(std::nullopt, sets));
}

}  // namespace

TEST_CASE("ppo rewards: every decision of a module gets its reward, and a failed default is a failure",
          "[training][rl]") {
  const Corpus corpus = twoModules();
  PPORewards rewards(settingsWith({}), findProblem("inlining"));
  CHECK(rewards.needsDefault("a.o"));
  Collection collection;
  collection.modules.push_back(compiled(0, 3, 90, 100));
  collection.modules.push_back(compiled(1, 2, 50, std::nullopt));
  collection.modules[1].defaultResult.emplace();
  collection.modules[1].defaultResult->failure = FailureKind::Crash;
  collection.modules[1].defaultResult->message = "boom";

  const IterationRewards got = rewards.reward(collection, corpus);
  REQUIRE(got.training[0].size() == 3);
  const double expected = 1 - (90 + kRewardDelta) / (100 + kRewardDelta);
  for (double reward : got.training[0]) CHECK(reward == Approx(expected));
  REQUIRE(got.vsDefault.size() == 1);
  CHECK(got.vsDefault[0] == Approx(expected));
  CHECK(got.policyTotal == 90);
  CHECK(got.defaultTotal == 100);
  CHECK(got.decisions == 3);
  // b.o has no baseline: its decisions cannot be rewarded.
  CHECK(got.training[1].empty());
  CHECK(collection.modules[1].trajectory.decisions() == 0);
  CHECK(collection.modules[1].result.failure == FailureKind::Crash);
  REQUIRE(got.failures.size() == 1);
  CHECK(got.failures[0].first == "b.o");
  CHECK_THAT(got.failures[0].second, Contains("default heuristic") && Contains("boom"));
  CHECK_FALSE(rewards.needsDefault("a.o"));
  CHECK(rewards.needsDefault("b.o"));
  CHECK(rewards.baselinesKnown() == 1);
}

TEST_CASE("ppo rewards: the baselines survive the resume state exactly", "[training][rl][resume]") {
  const Corpus corpus = twoModules();
  const PPOSettings settings = settingsWith({"moving_average_decay_rate=0.5"});
  PPORewards first(settings, findProblem("inlining"));
  Collection collection;
  collection.modules.push_back(compiled(0, 2, 80, 100));
  first.reward(collection, corpus);
  json state = json::object();
  first.saveTo(state);

  PPORewards resumed(settings, findProblem("inlining"));
  resumed.restoreFrom(state, "state.json");
  CHECK_FALSE(resumed.needsDefault("a.o"));
  // The next compile is rewarded against the same moved average in both.
  Collection next, again;
  next.modules.push_back(compiled(0, 1, 70, std::nullopt));
  again.modules.push_back(compiled(0, 1, 70, std::nullopt));
  CHECK(first.reward(next, corpus).training == resumed.reward(again, corpus).training);
}

TEST_CASE("ppo rewards: a measure or scope the problem does not have is refused by name", "[training][rl][errors]") {
  CHECK_THROWS_WITH(PPORewards(settingsWith({"reward_metric=regalloc_score"}), findProblem("inlining")),
                    Contains("reward_metric") && Contains("regalloc_score") && Contains("inlining"));
  CHECK_THROWS_WITH(PPORewards(settingsWith({"reward_scope=function"}), findProblem("inlining")),
                    Contains("reward_scope") && Contains("inlining rewards (module)"));
  CHECK_THROWS_WITH(PPORewards(settingsWith({"reward_scope=function"}), findProblem("regalloc")),
                    Contains("needs a reward_metric"));
  CHECK_NOTHROW(
      PPORewards(settingsWith({"reward_metric=regalloc_score", "reward_scope=function"}), findProblem("regalloc")));
}
