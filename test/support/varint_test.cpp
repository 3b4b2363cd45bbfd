#include <catch2/catch.hpp>

#include <limits>

#include "mlgo/support/varint.h"

using namespace mlgo;

TEST_CASE("varint: round trip of edge values", "[support]") {
  const std::vector<int64_t> values = {0, 1, -1, 63, -64, 64, 127, 128, 300, -300,
                                       std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
  std::string out;
  for (int64_t v : values) putZigzag(out, v);
  putVarint(out, std::numeric_limits<uint64_t>::max());
  putBytes(out, "name");
  ByteReader reader(out);
  for (int64_t v : values) CHECK(reader.zigzag() == v);
  CHECK(reader.varint() == std::numeric_limits<uint64_t>::max());
  CHECK(reader.bytes() == "name");
  CHECK(reader.atEnd());
}

TEST_CASE("varint: small values take one byte", "[support]") {
  std::string out;
  putZigzag(out, -64);
  putZigzag(out, 63);
  putVarint(out, 127);
  CHECK(out.size() == 3);
}

TEST_CASE("varint: truncated input is an error, not a read past the end", "[support]") {
  std::string out;
  putVarint(out, 1u << 20);
  ByteReader truncated(std::string_view(out).substr(0, out.size() - 1));
  CHECK_THROWS_AS(truncated.varint(), ByteReader::DecodeError);
  std::string bytes;
  putVarint(bytes, 10);
  bytes += "abc";
  ByteReader shortBytes(bytes);
  CHECK_THROWS_AS(shortBytes.bytes(), ByteReader::DecodeError);
  ByteReader empty("");
  CHECK_THROWS_AS(empty.byte(), ByteReader::DecodeError);
}
