#include <catch2/catch.hpp>

#include "mlgo/support/byte_size.h"

using namespace mlgo;

TEST_CASE("byte size: sizes as people write them, and nothing else", "[support]") {
  CHECK(parseByteSize("500000") == 500000u);
  CHECK(parseByteSize("200K") == 200u * 1024);
  CHECK(parseByteSize("64M") == 64u << 20);
  CHECK(parseByteSize("64MB") == 64u << 20);
  CHECK(parseByteSize("64MiB") == 64u << 20);
  CHECK(parseByteSize("2G") == uint64_t(2) << 30);
  CHECK(parseByteSize("37B") == 37u);
  for (const char *bad : {"", "M", "-5", "5X", "1.5G", "64 M", "99999999999999999999", "20000000T"})
    CHECK_FALSE(parseByteSize(bad));
  CHECK(formatByteSize(37) == "37 B");
  CHECK(formatByteSize(1536 * 1024) == "1.5 MiB");
}
