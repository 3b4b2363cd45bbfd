#include <catch2/catch.hpp>

#include "mlgo/support/errors.h"
#include "mlgo/trace/decision_spec.h"

using namespace mlgo;
using namespace mlgo::trace;
using nlohmann::json;
using Catch::Matchers::Contains;

TEST_CASE("decision spec: JSON round trip, sizes and offsets", "[trace]") {
  DecisionSpec spec;
  spec.features = {{"mask", FeatureTensor::Type::Int64, {1, 3}},
                   {"weight", FeatureTensor::Type::Float, {1, 3}},
                   {"progress", FeatureTensor::Type::Float, {1}}};
  spec.actions = 3;
  CHECK(spec.decisionBytes() == 3 * 8 + 3 * 4 + 4);
  CHECK(spec.decisionWords() == 5);
  CHECK(spec.offsetOf(1) == 24);
  CHECK(spec.offsetOf(2) == 36);
  CHECK(spec.indexOf("progress") == 2);
  CHECK(spec.indexOf("absent") == 3);
  CHECK_FALSE(spec.isInt64Scalars());
  CHECK(DecisionSpec::fromJson(spec.toJson(), "test") == spec);
  CHECK(DecisionSpec::int64Scalars({"a", "b"}).isInt64Scalars());
  CHECK(DecisionSpec::int64Scalars({"a", "b"}).decisionWords() == 2);
}

TEST_CASE("decision spec: malformed specs name the entry", "[trace]") {
  const json good = DecisionSpec::int64Scalars({"a"}).toJson();
  auto error = [](const json &value) {
    try {
      DecisionSpec::fromJson(value, "trace_description.json: decision_spec");
    } catch (const InputError &e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  json badType = good;
  badType["features"][0]["type"] = "double";
  CHECK_THAT(error(badType), Contains("features[0].type") && Contains("trace_description.json"));
  json badShape = good;
  badShape["features"][0]["shape"] = json::array({0});
  CHECK_THAT(error(badShape), Contains("features[0].shape"));
  json badActions = good;
  badActions["actions"] = 1;
  CHECK_THAT(error(badActions), Contains("actions"));
  CHECK_THAT(error(json::array()), Contains("features"));
}
