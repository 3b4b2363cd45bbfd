#include <catch2/catch.hpp>

#include <filesystem>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

namespace fs = std::filesystem;

TEST_CASE("atomic file: writes, replaces and leaves no temporary behind", "[support]") {
  mlgo::test::ScratchDirectory scratch;
  const fs::path target = scratch / "nested/dir/file.txt";
  mlgo::writeFileAtomically(target, "first");
  CHECK(mlgo::readFile(target) == "first");
  mlgo::writeFileAtomically(target, std::string("second\0binary", 13));
  CHECK(mlgo::readFile(target) == std::string("second\0binary", 13));
  size_t entries = 0;
  for (const auto &entry : fs::directory_iterator(target.parent_path())) {
    (void)entry;
    ++entries;
  }
  CHECK(entries == 1);
}

TEST_CASE("atomic file: a failed write changes nothing and leaves no temporary", "[support]") {
  mlgo::test::ScratchDirectory scratch;
  // The rename cannot replace a non-empty directory, so the write fails late,
  // after the temporary file was written.
  fs::create_directories(scratch / "occupied");
  mlgo::writeFileAtomically(scratch / "occupied/inside.txt", "precious");
  CHECK_THROWS_WITH(mlgo::writeFileAtomically(scratch / "occupied", "x"),
                    Catch::Matchers::Contains("occupied"));
  CHECK(mlgo::readFile(scratch / "occupied/inside.txt") == "precious");
  size_t entries = 0;
  for (const auto &entry : fs::directory_iterator(scratch.path())) {
    (void)entry;
    ++entries;
  }
  CHECK(entries == 1);
}

TEST_CASE("read file: a missing file is an input error naming it", "[support]") {
  CHECK_THROWS_AS(mlgo::readFile("/nonexistent/mlgo-file"), mlgo::InputError);
  CHECK_THROWS_WITH(mlgo::readFile("/nonexistent/mlgo-file"), Catch::Matchers::Contains("/nonexistent/mlgo-file"));
}
