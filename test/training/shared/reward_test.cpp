#include <catch2/catch.hpp>

#include "mlgo/corpus/corpus.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "mlgo/training/shared/reward.h"
#include "support/test_environment.h"

using namespace mlgo;

TEST_CASE("reward: ml-compiler-opt's formula", "[training][rl]") {
  CHECK(sizeReward(90, 100) == Approx(1 - 90.01 / 100.01));
  CHECK(sizeReward(100, 100) == 0.0);
  CHECK(sizeReward(120, 100) < 0);
  // delta keeps an empty module finite: 0 bytes against 0 bytes is no change.
  CHECK(sizeReward(0, 0) == 0.0);
  CHECK(sizeReward(10, 0) == Approx(1 - 10.01 / 0.01));
}

TEST_CASE("reward: moving-average baselines, hand-computed", "[training][rl]") {
  RewardBaselines baselines(0.8, 0.01);
  baselines.addDefault("m", 100);
  auto first = baselines.observe("m", 90);
  CHECK(first.training == Approx(1 - 90.01 / 100.01));
  CHECK(first.vsDefault == Approx(1 - 90.01 / 100.01));
  CHECK(baselines.at("m").movingAverage == Approx(98.0));  // 100 * 0.8 + 90 * 0.2
  auto second = baselines.observe("m", 95);
  CHECK(second.training == Approx(1 - 95.01 / 98.01));
  CHECK(second.vsDefault == Approx(1 - 95.01 / 100.01));
  CHECK(baselines.at("m").movingAverage == Approx(97.4));  // 98 * 0.8 + 95 * 0.2
  CHECK(baselines.at("m").defaultSize == 100.0);

  // Adding a known module again keeps its moving average.
  baselines.addDefault("m", 50);
  CHECK(baselines.at("m").movingAverage == Approx(97.4));
  CHECK_THROWS(baselines.observe("unknown", 1));

  // The JSON form round-trips exactly (resume depends on it).
  baselines.addDefault("n", 1.0 / 3.0);
  RewardBaselines loaded = RewardBaselines::fromJson(nlohmann::json::parse(baselines.toJson().dump()), 0.8, 0.01,
                                                     "state.json", "baselines");
  CHECK(loaded.at("m").movingAverage == baselines.at("m").movingAverage);
  CHECK(loaded.at("n").defaultSize == baselines.at("n").defaultSize);
  CHECK(loaded.size() == 2);

  // A resume state edited by hand: named, not a raw JSON type error.
  nlohmann::json damaged = baselines.toJson();
  damaged["m"] = 7;
  CHECK_THROWS_WITH(RewardBaselines::fromJson(damaged, 0.8, 0.01, "state.json", "baselines"),
                    Catch::Contains("state.json: baselines.m: no finite number \"default\""));
  CHECK_THROWS_AS(RewardBaselines::fromJson(nlohmann::json(3), 0.8, 0.01, "state.json", "baselines"), InputError);
}

TEST_CASE("reward: per segment, each decision gets its function's reward against that function's baseline",
          "[training][rl]") {
  RewardBaselines baselines(0.5, 0.01);
  baselines.addDefault(segmentBaselineKey("m.bc", "f"), 100);
  baselines.addDefault(segmentBaselineKey("m.bc", "g"), 10);
  baselines.addDefault(segmentBaselineKey("other.bc", "f"), 1);
  Trajectory trajectory;
  trajectory.actions = {0, 1, 2, 3, 4, 5};  // six decisions: f's two, g's three, h's one
  trajectory.segments = {{0, "f"}, {2, "g"}, {5, "h"}};
  const double moduleReward = -0.25;
  const std::vector<double> rewards =
      segmentRewards(trajectory, "m.bc", {{"f", 80}, {"g", 12}, {"h", 7}}, baselines, moduleReward);
  const double f = 1 - 80.01 / 100.01, g = 1 - 12.01 / 10.01;
  // h has no baseline: its decision keeps the module's reward.
  CHECK(rewards == std::vector<double>{f, f, g, g, g, moduleReward});
  // Each function's moving average moved once; another module's f did not.
  CHECK(baselines.at(segmentBaselineKey("m.bc", "f")).movingAverage == Approx(90));
  CHECK(baselines.at(segmentBaselineKey("m.bc", "g")).movingAverage == Approx(11));
  CHECK(baselines.at(segmentBaselineKey("other.bc", "f")).movingAverage == 1);
  CHECK_FALSE(baselines.has(segmentBaselineKey("m.bc", "h")));

  // Decisions before the first segment, and a segment without a value, keep the module's reward.
  trajectory.segments = {{3, "f"}};
  CHECK(segmentRewards(trajectory, "m.bc", {}, baselines, 0.5) == std::vector<double>(6, 0.5));
  const double againstAverage = 1 - 90.01 / 90.01;
  CHECK(segmentRewards(trajectory, "m.bc", {{"f", 90}}, baselines, 0.5) ==
        std::vector<double>{0.5, 0.5, 0.5, againstAverage, againstAverage, againstAverage});

  // As a share of the module: f's average is 90 and it measured 60, in a module whose scale is 300.
  trajectory.segments = {{0, "f"}, {4, "g"}};
  const std::vector<double> shares =
      segmentRewards(trajectory, "m.bc", {{"f", 60}, {"g", 11}}, baselines, 0.5, 300.0);
  CHECK(shares == std::vector<double>{0.1, 0.1, 0.1, 0.1, 0.0, 0.0});  // (90 - 60) / 300; g: (11 - 11) / 300
  CHECK(baselines.at(segmentBaselineKey("m.bc", "f")).movingAverage == Approx(75));
}

TEST_CASE("reward: distribution as numpy.percentile computes it", "[training][rl]") {
  // numpy.percentile([0.1, ..., 1.0], [10, 25, 50, 75, 90]) = 0.19, 0.325, 0.55, 0.775, 0.91
  std::vector<double> rewards;
  for (int i = 10; i >= 1; --i) rewards.push_back(i / 10.0);
  RewardDistribution d = summarizeRewards(rewards);
  CHECK(d.count == 10);
  CHECK(d.mean == Approx(0.55));
  CHECK(d.p10 == Approx(0.19));
  CHECK(d.p25 == Approx(0.325));
  CHECK(d.p50 == Approx(0.55));
  CHECK(d.p75 == Approx(0.775));
  CHECK(d.p90 == Approx(0.91));
  CHECK(summarizeRewards({}).count == 0);
}

TEST_CASE("reward: baselines measured on another build, corpus or problem are refused", "[training][rl][errors]") {
  test::ScratchDirectory scratch;
  const std::vector<std::filesystem::path> sources{test::testData() / "tables.c", test::testData() / "strings.c"};
  const Corpus small = test::sourcesCorpus(scratch / "oz", sources, "-Oz");
  const Corpus fast = test::sourcesCorpus(scratch / "o2", sources, "-O2");
  test::traceCorpus(small, scratch / "oz-trace");
  test::traceCorpus(fast, scratch / "o2-trace");
  const Problem &inlining = findProblem("inlining");

  checkBaselinesFit(scratch / "oz-trace", inlining, small);
  checkBaselinesFit(scratch / "oz-trace" / "baselines.json", inlining, small);
  const std::string otherBuild =
      test::messageOf<InputError>([&] { checkBaselinesFit(scratch / "o2-trace", inlining, small); });
  CHECK_THAT(otherBuild, Catch::Contains("o2-trace/baselines.json: fingerprints."));
  CHECK_THAT(otherBuild, Catch::Contains("measured on another build of"));

  const std::string otherProblem =
      test::messageOf<InputError>([&] { checkBaselinesFit(scratch / "oz-trace", findProblem("regalloc"), small); });
  CHECK_THAT(otherProblem, Catch::Contains("oz-trace/trace_description.json: problem"));
  CHECK_THAT(otherProblem, Catch::Contains("not for regalloc"));

  // A trace from before fingerprints: only the corpus it names is trusted.
  nlohmann::json baselines = readJsonFile(scratch / "o2-trace" / "baselines.json");
  baselines.erase("fingerprints");
  writeFileAtomically(scratch / "o2-trace" / "baselines.json", baselines.dump());
  checkBaselinesFit(scratch / "o2-trace", inlining, fast);
  CHECK_THAT(test::messageOf<InputError>([&] { checkBaselinesFit(scratch / "o2-trace", inlining, small); }),
             Catch::Contains("predates module fingerprints"));
}

TEST_CASE("train-ppo and train-es refuse --baselines from another corpus", "[training][rl][errors][cli]") {
  test::TracedTestCorpus traced;
  const std::vector<std::filesystem::path> sources{test::testData() / "tables.c"};
  const Corpus fast = test::sourcesCorpus(traced / "o2", sources, "-O2");
  test::traceCorpus(fast, traced / "o2-trace");
  std::vector<std::string> ppo = test::trainPPOArguments(traced, "ppo", 1, 1);
  *(std::find(ppo.begin(), ppo.end(), "--baselines") + 1) = (traced / "o2-trace").string();
  const test::CommandOutcome refused = test::runMlgo(ppo);
  CHECK(refused.exitCode == 3);
  CHECK_THAT(refused.err, Catch::Contains("measured on another build of"));
  test::randomInliningPolicy(traced, 11).save(traced / "start");
  const test::CommandOutcome es = test::runMlgo({"train-es", "--corpus", (traced / "corpus").string(), "--warmstart",
                                                 (traced / "start").string(), "--baselines",
                                                 (traced / "o2-trace").string(), "--output", (traced / "es").string()});
  CHECK(es.exitCode == 3);
  CHECK_THAT(es.err, Catch::Contains("measured on another build of"));
}
