#include <catch2/catch.hpp>

#include <cmath>

#include "mlgo/policy/preprocessing.h"
#include "mlgo/support/errors.h"

using namespace mlgo;

TEST_CASE("preprocessing: bucketize counts boundaries <= value (tf Bucketize)", "[policy]") {
  const std::vector<double> boundaries{0, 10, 10, 100};
  CHECK(bucketize(boundaries, -5) == 0);
  CHECK(bucketize(boundaries, 0) == 1);
  CHECK(bucketize(boundaries, 5) == 1);
  CHECK(bucketize(boundaries, 10) == 3);  // duplicates all count
  CHECK(bucketize(boundaries, 1000) == 4);
}

TEST_CASE("preprocessing: [x, x^2] per feature, by hand", "[policy]") {
  FeaturePreprocessor pre({"a", "b"}, {{"a", {0, 10, 20, 30}}, {"b", {5}}}, {});
  REQUIRE(pre.outputCount() == 4);
  const int64_t values[] = {15, 7};
  float out[4];
  pre.transform(values, out);
  // a: 15 -> 2 boundaries <= 15 -> x = 2/4; b: 7 -> 1/1.
  CHECK(out[0] == 0.5f);
  CHECK(out[1] == 0.25f);
  CHECK(out[2] == 1.0f);
  CHECK(out[3] == 1.0f);
}

TEST_CASE("preprocessing: sqrt, z-score and pass-through switches", "[policy]") {
  PreprocessingConfig config;
  config.withSqrt = true;
  config.withZScore = true;
  config.passthrough = {"raw"};
  FeaturePreprocessor pre({"a", "raw"}, {{"a", {0, 10, 20, 30}}}, config);
  pre.setZScoreStatistics({10, 0}, {5, 1});
  REQUIRE(pre.outputCount() == 5);
  const int64_t values[] = {25, -3};
  float out[5];
  pre.transform(values, out);
  CHECK(out[0] == 0.75f);
  CHECK(out[1] == Approx(0.5625f));
  CHECK(out[2] == Approx(std::sqrt(0.75f)));
  CHECK(out[3] == Approx(3.0f));  // (25 - 10) / 5
  CHECK(out[4] == -3.0f);
}

TEST_CASE("preprocessing: missing boundaries and unknown pass-through are errors", "[policy][errors]") {
  CHECK_THROWS_AS(FeaturePreprocessor({"a", "b"}, {{"a", {1}}}, {}), InputError);
  PreprocessingConfig config;
  config.passthrough = {"nope"};
  CHECK_THROWS_AS(FeaturePreprocessor({"a"}, {{"a", {1}}}, config), InputError);
}

TEST_CASE("preprocessing: the vocab fingerprint follows names and boundaries", "[policy]") {
  const auto base = FeaturePreprocessor::fingerprint({"a", "b"}, {{"a", {1, 2}}, {"b", {3}}});
  CHECK(base == FeaturePreprocessor::fingerprint({"a", "b"}, {{"a", {1, 2}}, {"b", {3}}}));
  CHECK(base != FeaturePreprocessor::fingerprint({"a", "b"}, {{"a", {1, 2.5}}, {"b", {3}}}));
  CHECK(base != FeaturePreprocessor::fingerprint({"b", "a"}, {{"a", {1, 2}}, {"b", {3}}}));
}
