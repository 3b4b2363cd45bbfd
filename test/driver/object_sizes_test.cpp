#include <catch2/catch.hpp>

#include <sstream>

#include "mlgo/driver/object_sizes.h"
#include "mlgo/support/atomic_file.h"
#include "support/test_environment.h"

using namespace mlgo;

namespace {
/// llvm-size-19's Berkeley columns (text, data, bss) for an object file.
std::array<uint64_t, 3> llvmSize(const std::string &object) {
  auto outcome = test::runProgram("/usr/lib/llvm-19/bin/llvm-size", {object});
  REQUIRE(outcome.exitCode == 0);
  std::istringstream lines(outcome.out);
  std::string header;
  std::getline(lines, header);
  std::array<uint64_t, 3> columns{};
  lines >> columns[0] >> columns[1] >> columns[2];
  return columns;
}
}  // namespace

TEST_CASE("object sizes: agree with llvm-size on real objects", "[driver]") {
  for (const char *name : {"helpers.o", "tables.o", "strings.o", "shapes.o", "sub/list.o"}) {
    const std::string object = (test::testProject() / name).string();
    SectionSizes sizes;
    std::string error;
    REQUIRE(measureObjectSizes(readFile(object), sizes, error));
    auto expected = llvmSize(object);
    INFO(name);
    CHECK(sizes.text + sizes.rodata == expected[0]);
    CHECK(sizes.data == expected[1]);
    CHECK(sizes.bss == expected[2]);
    CHECK(sizes.textPlusData() == expected[0] + expected[1]);
  }
}

TEST_CASE("object sizes: data, rodata and bss are told apart", "[driver]") {
  SectionSizes sizes;
  std::string error;
  REQUIRE(measureObjectSizes(readFile(test::testProject() / "tables.o"), sizes, error));
  // tables.c: no code, a const table (.rodata), initialized data (with the
  // relocated pointer table in .data.rel.ro) and zeroed data.
  CHECK(sizes.text == 0);
  CHECK(sizes.rodata >= 8 * sizeof(int));
  CHECK(sizes.data >= 16 * sizeof(int));
  CHECK(sizes.bss >= 256);
}

TEST_CASE("object sizes: text that is not an object is refused", "[driver]") {
  SectionSizes sizes;
  std::string error;
  CHECK_FALSE(measureObjectSizes("definitely not an object", sizes, error));
  CHECK_FALSE(error.empty());
}

TEST_CASE("size metrics: names round-trip", "[driver]") {
  CHECK(parseSizeMetric("text") == SizeMetric::Text);
  CHECK(parseSizeMetric("text+data") == SizeMetric::TextPlusData);
  CHECK_FALSE(parseSizeMetric("bss").has_value());
  SectionSizes sizes{10, 3, 4, 100};
  CHECK(measure(sizes, SizeMetric::Text) == 10);
  CHECK(measure(sizes, SizeMetric::TextPlusData) == 17);
}
