#include "mlgo/serve/training_log.h"

#include <catch2/catch.hpp>

#include "mlgo/problems/inlining/inlining_policy.h"
#include "mlgo/support/errors.h"

using namespace mlgo;
using namespace mlgo::serve;

TEST_CASE("training log: the header LLVM writes for the inliner parses back", "[serve]") {
  std::vector<TensorSpecification> features;
  for (const std::string &name : inlining::featureNames()) features.push_back(scalarInt64(name));
  features.push_back(scalarInt64(inlining::defaultDecisionName()));
  const LogHeader header =
      parseLogHeader(formatLogHeader(features, scalarInt64(inlining::decisionName())), "channel.out");
  REQUIRE(header.features.size() == inlining::featureCount() + 1);
  CHECK(header.features[0].name == inlining::featureNames()[0]);
  CHECK(header.features[0].type == "int64_t");
  CHECK(header.features[0].byteSize() == 8);
  CHECK(header.observationBytes() == 8 * (inlining::featureCount() + 1));
  REQUIRE(header.advice);
  CHECK(header.advice->name == "inlining_decision");

  // Shapes multiply, element sizes follow the type.
  const LogHeader other = parseLogHeader(
      R"({"features":[{"name":"m","port":0,"type":"float","shape":[2,3]},)"
      R"({"name":"k","port":0,"type":"int32_t","shape":[1]}]})",
      "x");
  CHECK(other.features[0].byteSize() == 24);
  CHECK(other.observationBytes() == 28);
  CHECK_FALSE(other.advice);
}

TEST_CASE("training log: malformed headers are refused naming the stream and the entry", "[serve][errors]") {
  CHECK_THROWS_WITH(parseLogHeader("garbage", "ch.out"), Catch::Contains("ch.out: header: not JSON"));
  CHECK_THROWS_WITH(parseLogHeader(R"({"score":1})", "ch.out"), Catch::Contains("no \"features\" list"));
  CHECK_THROWS_WITH(parseLogHeader(R"({"features":[{"name":"a","type":"int128","shape":[1]}]})", "ch.out"),
                    Catch::Contains("feature 0: unknown tensor type \"int128\""));
  CHECK_THROWS_WITH(parseLogHeader(R"({"features":[{"name":"a","type":"int64_t","shape":[0]}]})", "ch.out"),
                    Catch::Contains("bad shape"));
  CHECK_THROWS_WITH(parseLogHeader(R"({"features":[{"type":"int64_t","shape":[1]}]})", "ch.out"),
                    Catch::Contains("needs \"name\""));
  CHECK_THROWS_AS(parseLogHeader(R"({"features":[], "advice": 3})", "ch.out"), InputError);
}

TEST_CASE("training log: context, observation and outcome lines", "[serve]") {
  const LogEvent context = parseLogEvent(R"({"context":"main"})", "s");
  CHECK(context.kind == LogEvent::Kind::Context);
  CHECK(context.context == "main");
  const LogEvent observation = parseLogEvent(R"({"observation":12})", "s");
  CHECK(observation.kind == LogEvent::Kind::Observation);
  CHECK(observation.id == 12);
  CHECK(parseLogEvent(R"({"outcome":3})", "s").kind == LogEvent::Kind::Outcome);
  CHECK_THROWS_WITH(parseLogEvent(R"({"observation":"x"})", "s"), Catch::Contains("s: event"));
  CHECK_THROWS_WITH(parseLogEvent("\x01\x02", "s"), Catch::Contains("not JSON"));
}
