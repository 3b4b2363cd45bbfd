#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "mlgo/support/varint.h"
#include "mlgo/trace/trace_format.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/trace/trace_writer.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::trace;

namespace {
ModuleTrace sample() {
  ModuleTrace module;
  module.position = 42;
  module.name = "dir/module.o";
  module.nativeSize = 12345;
  module.featureCount = 3;
  const int64_t a[] = {0, -15030, 1ll << 40}, b[] = {7, 8, -9};
  module.addDecision(a, 1, true);
  module.addDecision(b, -1, false);
  return module;
}
}  // namespace

TEST_CASE("trace format: module records round-trip", "[trace]") {
  const ModuleTrace module = sample();
  const ModuleTrace decoded = decodeModule(encodeModule(module), 3);
  CHECK(decoded.position == 42);
  CHECK(decoded.name == "dir/module.o");
  CHECK(decoded.nativeSize == 12345);
  CHECK(decoded.features == module.features);
  CHECK(decoded.defaultDecisions == std::vector<int8_t>{1, -1});
  CHECK(decoded.actions == std::vector<uint8_t>{1, 0});
}

TEST_CASE("trace format: malformed records are rejected", "[trace]") {
  const std::string bytes = encodeModule(sample());
  CHECK_THROWS_AS(decodeModule(bytes.substr(0, bytes.size() - 1), 3), ByteReader::DecodeError);
  CHECK_THROWS_AS(decodeModule(bytes + "x", 3), ByteReader::DecodeError);
  std::string badAction = bytes;
  badAction.back() = 5;
  CHECK_THROWS_AS(decodeModule(badAction, 3), ByteReader::DecodeError);
}

TEST_CASE("trace format: shard names sort in shard order", "[trace]") {
  CHECK(shardFileName("inlining", 3, 8) == "inlining-00003-of-00008.mlgotrace");
}

namespace {

/// A register-allocation-shaped decision: a mask, a float tensor, a scalar.
const DecisionSpec &tensorSpec() {
  static const DecisionSpec spec = [] {
    DecisionSpec spec;
    spec.features = {{"mask", FeatureTensor::Type::Int64, {1, 4}},
                     {"weight", FeatureTensor::Type::Float, {1, 4}},
                     {"progress", FeatureTensor::Type::Float, {1}}};
    spec.actions = 4;
    return spec;
  }();
  return spec;
}

std::vector<int64_t> tensorDecision(std::vector<int64_t> mask, std::vector<float> weights, float progress) {
  std::vector<char> bytes(tensorSpec().decisionWords() * 8, 0);
  std::memcpy(bytes.data(), mask.data(), 4 * 8);
  std::memcpy(bytes.data() + 32, weights.data(), 4 * 4);
  std::memcpy(bytes.data() + 48, &progress, 4);
  std::vector<int64_t> words(tensorSpec().decisionWords());
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

ModuleTrace tensorSample() {
  ModuleTrace module;
  module.name = "pressure.o";
  module.spec = &tensorSpec();
  module.featureCount = tensorSpec().decisionWords();
  module.addDecision(tensorDecision({1, 0, 1, 1}, {0.5f, -1.25f, 3e-8f, 1e9f}, 0.75f).data(), 2, 2);
  module.addDecision(tensorDecision({0, 0, 0, 1}, {0, 0, 0, 1}, 0.5f).data(), 3, 0);
  return module;
}

}  // namespace

TEST_CASE("trace format: tensor decisions with masks round-trip bit for bit", "[trace]") {
  const ModuleTrace module = tensorSample();
  const ModuleTrace decoded = decodeModule(encodeModule(module), tensorSpec());
  CHECK(decoded.featureCount == module.featureCount);
  CHECK(decoded.features == module.features);
  CHECK(decoded.defaultDecisions == std::vector<int8_t>{2, 3});
  CHECK(decoded.actions == std::vector<uint8_t>{2, 0});
  // An action beyond the spec's count is refused.
  std::string bytes = encodeModule(module);
  bytes.back() = 4;
  CHECK_THROWS_AS(decodeModule(bytes, tensorSpec()), ByteReader::DecodeError);
  // Inlining's spec encodes as version 1 did.
  const ModuleTrace scalars = sample();
  CHECK(decodeModule(encodeModule(scalars), DecisionSpec::int64Scalars({"a", "b", "c"})).features == scalars.features);
}

TEST_CASE("trace format: continuous decisions keep their float values, a default not computed as NaN", "[trace]") {
  static const DecisionSpec spec = DecisionSpec::continuousOf(
      {{"size", FeatureTensor::Type::Int64, {1}}, {"weight", FeatureTensor::Type::Float, {1}}});
  REQUIRE(spec.decisionWords() == 2);
  ModuleTrace module;
  module.name = "m.o";
  module.featureCount = spec.decisionWords();
  module.spec = recordedSpec(spec);
  const float weight = 0.375f;
  int64_t words[2] = {-7, 0};
  std::memcpy(&words[1], &weight, sizeof weight);
  module.addContinuousDecision(words, 1e9f, 123.5f);
  module.addContinuousDecision(words, std::nanf(""), -2.25f);
  REQUIRE(module.decisions() == 2);
  const std::string bytes = encodeModule(module);
  const ModuleTrace decoded = decodeModule(bytes, spec);
  CHECK(decoded.features == module.features);
  CHECK(decoded.actions.empty());
  CHECK(decoded.values == std::vector<float>{123.5f, -2.25f});
  REQUIRE(decoded.defaultValues.size() == 2);
  CHECK(decoded.defaultValues[0] == 1e9f);
  CHECK(std::isnan(decoded.defaultValues[1]));
  CHECK_THROWS_AS(decodeModule(bytes.substr(0, bytes.size() - 1), spec), ByteReader::DecodeError);
  CHECK_THROWS_AS(decodeModule(bytes + "x", spec), ByteReader::DecodeError);
}

TEST_CASE("trace reader: version 2 traces carry their spec, and version 1 traces still load", "[trace]") {
  test::ScratchDirectory scratch;
  {
    TraceWriter writer(scratch / "v2", "regalloc", traceHeader("regalloc", tensorSpec()), 1);
    ModuleTrace module = tensorSample();
    writer.submit(0, encodeModule(module));
    writer.finish(traceHeader("regalloc", tensorSpec()), nlohmann::json{{"sizes", nlohmann::json::object()}});
  }
  TraceReader v2(scratch / "v2");
  CHECK(v2.decisionSpec() == tensorSpec());
  size_t modules = 0;
  v2.forEachModule([&](const ModuleTrace &module) {
    ++modules;
    CHECK(module.features == tensorSample().features);
  });
  CHECK(modules == 1);

  // Version 1: no decision_spec, int64 scalars and two actions.
  nlohmann::json v1Header{{"format", kFormatName}, {"version", 1}, {"problem", "inlining"},
                          {"feature_names", {"a", "b", "c"}}};
  {
    TraceWriter writer(scratch / "v1", "inlining", v1Header, 1);
    writer.submit(0, encodeModule(sample()));
    writer.finish(v1Header, nlohmann::json{{"sizes", nlohmann::json::object()}});
  }
  TraceReader v1(scratch / "v1");
  CHECK(v1.decisionSpec() == DecisionSpec::int64Scalars({"a", "b", "c"}));
  v1.forEachModule([&](const ModuleTrace &module) { CHECK(module.features == sample().features); });
}
