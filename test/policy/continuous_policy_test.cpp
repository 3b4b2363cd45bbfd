#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>

#include "mlgo/policy/continuous_policy.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

const trace::DecisionSpec &spec() {
  static const trace::DecisionSpec value = trace::DecisionSpec::continuousOf(
      {{"size", trace::FeatureTensor::Type::Int64, {1}}, {"weight", trace::FeatureTensor::Type::Float, {1}}});
  return value;
}

/// One linear layer: output = 0.5 x size's input + 0.25 x weight's input + 0.125.
ContinuousPolicy linearPolicy() {
  DenseLayer layer{2, 1, {0.5f, 0.25f}, {0.125f}};
  return ContinuousPolicy("toy", spec(), {1.0f, 0.0f}, {2.0f, 1.0f}, {10.0f, 4.0f},
                          DenseNetwork({layer}, Activation::Relu));
}

std::vector<int64_t> words(int64_t size, float weight) {
  std::vector<int64_t> out(spec().decisionWords(), 0);
  out[0] = size;
  std::memcpy(&out[1], &weight, sizeof weight);
  return out;
}

}  // namespace

TEST_CASE("continuous policy: a decision's value from its z-scored signed-log features", "[policy]") {
  const ContinuousPolicy policy = linearPolicy();
  const std::vector<int64_t> decision = words(7, 0.5f);
  // Inputs: (log1p(7) - 1) / 2 and (log1p(0.5) - 0) / 1; output y; value 2^(4y + 10) - 1.
  const double size = (std::log1p(7.0) - 1) / 2, weight = std::log1p(0.5);
  const double y = 0.5 * size + 0.25 * weight + 0.125;
  CHECK(policy.decide(decision.data()) == Approx(std::exp2(4 * y + 10) - 1).epsilon(1e-5));
  // An infinite weight (a range LLVM must not spill) enters as 100, not as infinity.
  CHECK(std::isfinite(policy.decide(words(7, INFINITY).data())));
  CHECK(ContinuousPolicy::target(1023) == Approx(10.0));
  CHECK(ContinuousPolicy::target(-5) == 0);
}

TEST_CASE("continuous policy: save and load give the same decisions, and bad files are named", "[policy]") {
  test::ScratchDirectory scratch;
  const ContinuousPolicy policy = linearPolicy();
  policy.save(scratch / "policy");
  const ContinuousPolicy loaded = ContinuousPolicy::load(scratch / "policy", "toy", spec());
  for (const auto &decision : {words(0, 0), words(1000, 3.5f), words(-3, 1e-9f)})
    CHECK(loaded.decide(decision.data()) == policy.decide(decision.data()));

  CHECK_THROWS_WITH(ContinuousPolicy::load(scratch / "policy", "other", spec()),
                    Contains("policy.json") && Contains("for toy, not other"));
  const fs::path metadata = scratch / "policy" / "policy.json";
  nlohmann::json broken = readJsonFile(metadata);
  broken["output"].erase("stddev");
  std::ofstream(metadata) << broken.dump();
  CHECK_THROWS_AS(ContinuousPolicy::load(scratch / "policy", "toy", spec()), InputError);
  CHECK_THROWS_WITH(ContinuousPolicy::load(scratch / "policy", "toy", spec()),
                    Contains("policy.json") && Contains("output.stddev"));
  // A spec of discrete decisions is no continuous policy's.
  CHECK_THROWS_AS(ContinuousPolicy("toy", trace::DecisionSpec::int64Scalars({"a", "b"}), {0, 0}, {1, 1}, {},
                                   DenseNetwork({DenseLayer{2, 1, {1, 1}, {0}}}, Activation::Relu)),
                  UsageError);
}
