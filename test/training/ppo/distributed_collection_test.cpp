#include <catch2/catch.hpp>

#include <cstring>
#include <limits>

#include "mlgo/policy/sampling_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/training/ppo/distributed_collection.h"
#include "support/test_environment.h"

using namespace mlgo;

namespace {

bool sameBits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("distributed collection: a policy and real collected modules survive the trip between ranks bit for bit",
          "[training][rl][mpi]") {
  const test::TracedTestCorpus traced;
  const Problem &problem = findProblem("inlining");
  const YesNoPolicy model = test::randomInliningPolicy(traced, 11, /*everyPreprocessing=*/true);

  const YesNoPolicy received = YesNoPolicy::deserialize(model.serialize());
  REQUIRE(received.layers().size() == model.layers().size());
  for (size_t l = 0; l < model.layers().size(); ++l) {
    CHECK(sameBits(received.layers()[l].weights, model.layers()[l].weights));
    CHECK(sameBits(received.layers()[l].bias, model.layers()[l].bias));
  }
  CHECK(received.vocabFingerprint() == model.vocabFingerprint());
  CHECK(received.metadata() == model.metadata());
  CHECK_THROWS_WITH(YesNoPolicy::deserialize("not cbor"), Catch::Contains("not a serialized policy"));

  // A real stochastic collection, one module with its default compile too.
  CollectionPlan plan;
  plan.modules = sampleModules(traced.corpus.modules.size(), traced.corpus.modules.size(), 2, 1);
  plan.needsDefault.assign(plan.modules.size(), false);
  plan.needsDefault[1] = true;
  plan.seed = 2;
  plan.iteration = 1;
  const auto collected =
      collectTrajectories(CompilerDriver(test::driverThreads(2)), traced.corpus, problem, *samplingPolicy(received),
                          plan);
  size_t decisions = 0;
  for (const CollectedModule &module : collected) {
    const CollectedModule back = decodeCollectedModule(encodeCollectedModule(module));
    CHECK(back.module == module.module);
    CHECK(back.result.sizes.text == module.result.sizes.text);
    CHECK(back.result.seconds == module.result.seconds);
    CHECK(back.trajectory.featureCount == module.trajectory.featureCount);
    CHECK(back.trajectory.features == module.trajectory.features);
    CHECK(back.trajectory.actions == module.trajectory.actions);
    CHECK(sameBits(back.trajectory.logits, module.trajectory.logits));
    REQUIRE(back.defaultResult.has_value() == module.defaultResult.has_value());
    if (module.defaultResult) CHECK(back.defaultResult->sizes.text == module.defaultResult->sizes.text);
    decisions += module.trajectory.decisions();
  }
  CHECK(decisions > 20);
  CHECK(collected[1].defaultResult.has_value());

  // A choice among positions: its action count, forbidden logits and the
  // problem's measures travel too.
  CollectedModule positions;
  positions.module = 3;
  positions.trajectory.featureCount = 2;
  positions.trajectory.actionCount = 33;
  positions.trajectory.features = {5, -6, 7, 8};
  positions.trajectory.actions = {32, 4};
  positions.trajectory.logits.assign(66, -std::numeric_limits<float>::infinity());
  positions.trajectory.logits[32] = 0.25f;
  positions.trajectory.logits[33 + 4] = -1.5f;
  positions.trajectory.segments = {{0, "main"}, {1, "_Z3fooi"}};
  positions.measures = {{"regalloc_score", 1234.5678}};
  positions.segmentMeasures = {{"regalloc_score", {{"main", 1000.5}, {"_Z3fooi", 234.0678}}}};
  positions.defaultResult = CompileResult();
  positions.defaultMeasures = {{"regalloc_score", 0.1}};
  positions.defaultSegmentMeasures = {{"regalloc_score", {{"main", 0.1}, {"unused", 0.0}}}};
  const std::string encoded = encodeCollectedModule(positions);
  const CollectedModule back = decodeCollectedModule(encoded);
  CHECK(back.trajectory.actionCount == 33);
  CHECK(back.trajectory.actions == positions.trajectory.actions);
  CHECK(sameBits(back.trajectory.logits, positions.trajectory.logits));
  CHECK(back.trajectory.segments == positions.trajectory.segments);
  CHECK(back.measures == positions.measures);
  CHECK(back.segmentMeasures == positions.segmentMeasures);
  CHECK(back.defaultMeasures == positions.defaultMeasures);
  CHECK(back.defaultSegmentMeasures == positions.defaultSegmentMeasures);
  // Real values: the sampled outputs, the means and the standard deviation, bit for bit.
  CollectedModule values;
  values.trajectory.featureCount = 2;
  values.trajectory.actionCount = 0;
  values.trajectory.features = {1, 2, 3, 4};
  values.trajectory.outputs = {0.1f, -3.5e-7f};
  values.trajectory.means = {0.125f, std::nextafter(0.0f, 1.0f)};
  values.trajectory.logStd = -2.302585f;
  values.trajectory.segments = {{0, "f"}};
  const CollectedModule valuesBack = decodeCollectedModule(encodeCollectedModule(values));
  CHECK(valuesBack.trajectory.decisions() == 2);
  CHECK(valuesBack.trajectory.features == values.trajectory.features);
  CHECK(sameBits(valuesBack.trajectory.outputs, values.trajectory.outputs));
  CHECK(sameBits(valuesBack.trajectory.means, values.trajectory.means));
  CHECK(valuesBack.trajectory.logStd == values.trajectory.logStd);
  CHECK(valuesBack.trajectory.actions.empty());
  CHECK(valuesBack.trajectory.segments == values.trajectory.segments);
  // A segment starting past the last decision is refused, not trusted.
  CollectedModule pastTheEnd = positions;
  pastTheEnd.trajectory.segments[1].firstDecision = 3;
  CHECK_THROWS_WITH(decodeCollectedModule(encodeCollectedModule(pastTheEnd)),
                    Catch::Contains("past the last decision"));

  std::string truncated = encodeCollectedModule(collected[0]);
  truncated.resize(truncated.size() / 2);
  CHECK_THROWS(decodeCollectedModule(truncated));
}
