#include <catch2/catch.hpp>

#include <string>

#include "mlgo/support/crc32c.h"

using namespace mlgo;

TEST_CASE("crc32c: published check values", "[support]") {
  // The CRC catalogue's check value and RFC 3720 (iSCSI) B.4 vectors.
  CHECK(crc32c(std::string("123456789")) == 0xE3069283u);
  CHECK(crc32c(std::string(32, '\0')) == 0x8A9136AAu);
  CHECK(crc32c(std::string(32, '\xff')) == 0x62A8AB43u);
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  CHECK(crc32c(ascending) == 0x46DD794Eu);
  CHECK(crc32c(descending) == 0x113FDB5Cu);
  CHECK(crc32c(std::string()) == 0u);
}

TEST_CASE("crc32c: incremental equals one pass, at every split", "[support]") {
  std::string data;
  for (int i = 0; i < 100; ++i) data.push_back(static_cast<char>(i * 37 + 11));
  const uint32_t whole = crc32c(data);
  for (size_t split = 0; split <= data.size(); ++split)
    CHECK(crc32c(data.data() + split, data.size() - split, crc32c(data.data(), split)) == whole);
}

TEST_CASE("crc32c: masking round-trips and changes the value", "[support]") {
  for (uint32_t crc : {0u, 1u, 0xE3069283u, 0xFFFFFFFFu}) {
    CHECK(unmaskCrc(maskCrc(crc)) == crc);
    CHECK(maskCrc(crc) != crc);
  }
}
