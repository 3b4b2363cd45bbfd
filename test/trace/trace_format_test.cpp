#include <catch2/catch.hpp>

#include "mlgo/support/varint.h"
#include "mlgo/trace/trace_format.h"

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
