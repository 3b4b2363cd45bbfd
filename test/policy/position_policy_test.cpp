#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/policy/position_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/problems/regalloc/eviction_hook.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/trace/trace_reader.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;

namespace {

const trace::DecisionSpec &spec() { return regalloc::decisionSpec(); }

/// A regalloc decision's raw words with `mask` allowed and one feature set per position.
struct Decision {
  std::vector<int64_t> words = std::vector<int64_t>(spec().decisionWords(), 0);
  void allow(size_t position) { setInt("mask", position, 1); }
  void setInt(const std::string &feature, size_t position, int64_t value) {
    std::memcpy(bytes() + spec().offsetOf(spec().indexOf(feature)) + position * 8, &value, 8);
  }
  void setFloat(const std::string &feature, size_t position, float value) {
    std::memcpy(bytes() + spec().offsetOf(spec().indexOf(feature)) + position * 4, &value, 4);
  }
  uint8_t *bytes() { return reinterpret_cast<uint8_t *>(words.data()); }
};

PositionPolicy scoringBy(const std::string &input) { return test::regallocPolicyScoringBy(input); }

}  // namespace

TEST_CASE("position policy: the layout of LLVM's eviction decision", "[policy][regalloc]") {
  const PositionLayout layout(spec());
  CHECK(layout.positions() == 33);
  // 19 per-candidate features (the mask is not an input), progress, the position.
  REQUIRE(layout.width() == 21);
  CHECK(layout.inputNames().front() == "is_free");
  CHECK(layout.inputNames()[18] == "min_stage");
  CHECK(layout.inputNames()[19] == "progress");
  CHECK(layout.inputNames()[20] == "position");
  // Inlining's decisions are not among positions.
  CHECK_THAT(PositionLayout::whyNot(findProblem("inlining").decisionSpec()), Contains("one value per action"));
  trace::DecisionSpec odd = spec();
  odd.features[1].shape = {1, 5};
  CHECK_THAT(PositionLayout::whyNot(odd), Contains("is_free"));
  CHECK_THROWS_AS(PositionLayout(odd), UsageError);
}

TEST_CASE("position policy: evicts the best allowed position, never a masked one", "[policy][regalloc]") {
  const PositionPolicy policy = scoringBy("weighed_reads_by_max");
  Decision decision;
  for (size_t position : {3, 7, 32}) decision.allow(position);
  // All equal: the first allowed position.
  CHECK(policy.decide(decision.words.data()) == 3);
  decision.setFloat("weighed_reads_by_max", 3, 0.2f);
  decision.setFloat("weighed_reads_by_max", 7, 0.9f);
  decision.setFloat("weighed_reads_by_max", 10, 5.0f);  // the best score, but masked out
  CHECK(policy.decide(decision.words.data()) == 7);
  std::vector<float> scores(33);
  policy.scores(decision.words.data(), scores.data());
  CHECK(scores[10] == -std::numeric_limits<float>::infinity());
  CHECK(scores[7] == Approx(std::log1p(0.9f)));
  // A feature LLVM gives as NaN enters as 0 instead of poisoning the scores.
  decision.setFloat("weighed_reads_by_max", 7, std::numeric_limits<float>::quiet_NaN());
  CHECK(policy.decide(decision.words.data()) == 3);
  // Nothing allowed: no position.
  CHECK(policy.decide(Decision().words.data()) == -1);
}

TEST_CASE("position policy: decisions of a real trace stay inside their masks", "[policy][regalloc]") {
  test::ScratchDirectory scratch;
  test::regallocTracedCorpus(scratch / "corpus", scratch / "trace");
  const PositionPolicy policy = scoringBy("liverange_size");
  const PositionLayout layout(spec());
  size_t decisions = 0;
  trace::TraceReader(scratch / "trace").forEachModule([&](const trace::ModuleTrace &module) {
    std::vector<float> inputs(33 * layout.width());
    std::vector<uint8_t> mask(33);
    for (size_t d = 0; d < module.decisions(); ++d, ++decisions) {
      layout.rawInputs(module.featuresOf(d), inputs.data(), mask.data());
      const int64_t chosen = policy.decide(module.featuresOf(d));
      REQUIRE(chosen >= 0);
      CHECK(mask[chosen] == 1);
    }
  });
  CHECK(decisions > 20);
}

TEST_CASE("position policy: save and load round trip, other problems' policies are refused", "[policy][regalloc]") {
  test::ScratchDirectory scratch;
  PositionPolicy policy = scoringBy("nr_urgent");
  policy.training = {{"trainer", "test"}};
  policy.save(scratch / "policy");
  const PositionPolicy loaded = PositionPolicy::load(scratch.path(), "regalloc", spec());  // finds scratch/policy
  CHECK(loaded.serialize() == policy.serialize());
  CHECK(loaded.network().flatWeights() == policy.network().flatWeights());

  // The inlining loader names what the policy is for.
  CHECK_THROWS_WITH(YesNoPolicy::load(scratch / "policy", "inlining", findProblem("inlining").featureNames()),
                    Contains("policy.json") && Contains("the policy is for regalloc, not inlining"));
  // An inlining policy given to register allocation.
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 3).save(scratch / "inlining");
  CHECK_THROWS_WITH(PositionPolicy::load(scratch / "inlining", "regalloc", spec()),
                    Contains("the policy is for inlining, not regalloc"));
  CHECK_THROWS_WITH(findProblem("regalloc").policyHooks(scratch / "inlining"),
                    Contains("the policy is for inlining, not regalloc"));

  // A damaged network names the file and the layer.
  nlohmann::json weights = nlohmann::json::parse(readFile(scratch / "policy" / "model.json"));
  weights["layers"][0]["weights"][2] = 1e300;
  writeFileAtomically(scratch / "policy" / "model.json", weights.dump());
  CHECK_THROWS_WITH(PositionPolicy::load(scratch / "policy", "regalloc", spec()),
                    Contains("model.json") && Contains("layers[0].weights[2]"));
  // Another decision layout.
  trace::DecisionSpec other = spec();
  other.features.pop_back();
  CHECK_THROWS_WITH(PositionPolicy::load(scratch / "policy", "regalloc", other), Contains("decision_spec"));
}
