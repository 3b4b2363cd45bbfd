#include <catch2/catch.hpp>

#include <filesystem>

#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/policy/vocab_files.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// A small policy with deterministic, varied weights.
YesNoPolicy samplePolicy() {
  FeaturePreprocessor pre({"a", "b", "c"}, {{"a", {0, 10, 20}}, {"b", {1, 2, 3, 4}}, {"c", {-5}}}, {});
  std::vector<DenseLayer> layers;
  size_t inputs = pre.outputCount();
  int seed = 1;
  for (size_t outputs : {5u, 2u}) {
    DenseLayer layer{inputs, outputs, {}, {}};
    for (size_t i = 0; i < inputs * outputs; ++i) layer.weights.push_back(float((seed = seed * 37 % 101) - 50) / 25);
    for (size_t o = 0; o < outputs; ++o) layer.bias.push_back(float(o) / 10);
    layers.push_back(layer);
    inputs = outputs;
  }
  YesNoPolicy model("inlining", pre, layers, Activation::Relu);
  model.training = {{"trainer", "test"}};
  return model;
}

}  // namespace

TEST_CASE("policy model: forward pass by hand on a one-layer net", "[policy]") {
  FeaturePreprocessor pre({"a"}, {{"a", {0, 10}}}, {});
  // inputs [x, x^2]; logits = W * inputs + b
  DenseLayer layer{2, 2, {1, 0, 0, 1}, {0.25f, 0}};
  YesNoPolicy model("inlining", pre, {layer}, Activation::Relu);
  const int64_t value[] = {5};  // x = 1/2
  float logits[2];
  model.logits(value, logits);
  CHECK(logits[0] == 0.75f);
  CHECK(logits[1] == 0.25f);
  CHECK_FALSE(model.decide(value));
  const int64_t big[] = {50};  // x = 1: logits 1.25, 1
  CHECK_FALSE(model.decide(big));
}

TEST_CASE("policy model: save and load give identical outputs", "[policy]") {
  test::ScratchDirectory dir;
  const YesNoPolicy model = samplePolicy();
  model.save(dir / "policy");
  const YesNoPolicy loaded = YesNoPolicy::load(dir / "policy", "inlining", {"a", "b", "c"});
  CHECK(loaded.training["trainer"] == "test");
  CHECK(loaded.hiddenSizes() == std::vector<size_t>{5});
  for (int64_t a = -5; a < 30; a += 3)
    for (int64_t b = 0; b < 6; ++b) {
      const int64_t features[] = {a, b, a - b};
      float x[2], y[2];
      model.logits(features, x);
      loaded.logits(features, y);
      CHECK(x[0] == y[0]);
      CHECK(x[1] == y[1]);
    }
  // A training output directory works too (its policy is in policy/).
  CHECK_NOTHROW(YesNoPolicy::load(dir.path(), "inlining", {"a", "b", "c"}));
  CHECK_FALSE(fs::exists(dir / "policy.partial"));
}

TEST_CASE("policy model: mismatches are refused with a clear error", "[policy][errors]") {
  test::ScratchDirectory dir;
  samplePolicy().save(dir / "policy");
  CHECK_THROWS_WITH(YesNoPolicy::load(dir / "policy", "inlining", {"a", "b", "d"}),
                    Contains("feature 2 is c in the policy but d in this compiler"));
  CHECK_THROWS_WITH(YesNoPolicy::load(dir / "policy", "regalloc", {"a", "b", "c"}), Contains("problem"));
  CHECK_THROWS_WITH(YesNoPolicy::load(dir / "nothing", "inlining", {"a"}),
                    Contains("policy.json") && Contains("missing"));

  // A vocab file changed after training: the fingerprint no longer matches.
  writeBuckets(dir / "policy/vocab", "b", {1, 2, 3, 5});
  CHECK_THROWS_WITH(YesNoPolicy::load(dir / "policy", "inlining", {"a", "b", "c"}), Contains("fingerprint"));

  samplePolicy().save(dir / "policy");
  const YesNoPolicy model = YesNoPolicy::load(dir / "policy", "inlining", {"a", "b", "c"});
  CHECK_NOTHROW(model.checkVocab(dir / "policy/vocab"));
  writeBuckets(dir / "other", "a", {0, 10, 20});
  writeBuckets(dir / "other", "b", {1, 2, 3, 4});
  writeBuckets(dir / "other", "c", {-4});
  CHECK_THROWS_WITH(model.checkVocab(dir / "other"), Contains("differs"));

  // Weights that do not fit the network.
  std::string weights = readFile(dir / "policy/model.json");
  writeFileAtomically(dir / "policy/model.json", R"({"layers": []})");
  CHECK_THROWS_WITH(YesNoPolicy::load(dir / "policy", "inlining", {"a", "b", "c"}), Contains("model.json"));
}

TEST_CASE("policy model: weights that are not finite 32-bit floats are malformed input", "[policy][errors]") {
  test::ScratchDirectory dir;
  samplePolicy().save(dir / "policy");
  nlohmann::json weights = nlohmann::json::parse(readFile(dir / "policy/model.json"));
  REQUIRE(weights["layers"][0]["weights"].size() > 1);
  // Finite as a double, infinite as the float the network computes with.
  weights["layers"][0]["weights"][1] = 1.7e308;
  writeFileAtomically(dir / "policy/model.json", weights.dump());
  CHECK_THROWS_AS(YesNoPolicy::load(dir / "policy", "inlining", {"a", "b", "c"}), InputError);
  CHECK_THROWS_WITH(YesNoPolicy::load(dir / "policy", "inlining", {"a", "b", "c"}),
                    Contains("model.json") && Contains("layers[0].weights[1]") && Contains("finite"));
  weights["layers"][0]["weights"][1] = 1e39;
  writeFileAtomically(dir / "policy/model.json", weights.dump());
  CHECK_THROWS_AS(YesNoPolicy::load(dir / "policy", "inlining", {"a", "b", "c"}), InputError);
  weights["layers"][0]["weights"][1] = 0.5;
  weights["layers"].back()["bias"][0] = -3.5e38;
  writeFileAtomically(dir / "policy/model.json", weights.dump());
  CHECK_THROWS_WITH(YesNoPolicy::load(dir / "policy", "inlining", {"a", "b", "c"}), Contains("bias[0]"));
}
