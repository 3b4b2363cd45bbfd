#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <sys/stat.h>

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

TEST_CASE("atomic file: a directory at the name is bad input, and nothing changes", "[support]") {
  mlgo::test::ScratchDirectory scratch;
  fs::create_directories(scratch / "occupied");
  mlgo::writeFileAtomically(scratch / "occupied/inside.txt", "precious");
  CHECK_THROWS_AS(mlgo::writeFileAtomically(scratch / "occupied", "x"), mlgo::InputError);
  CHECK_THROWS_WITH(mlgo::writeFileAtomically(scratch / "occupied", "x"),
                    (scratch / "occupied").string() + ": a directory, where a file is to be written");
  CHECK(mlgo::readFile(scratch / "occupied/inside.txt") == "precious");
  size_t entries = 0;
  for (const auto &entry : fs::directory_iterator(scratch.path())) {
    (void)entry;
    ++entries;
  }
  CHECK(entries == 1);
}

TEST_CASE("output file: a named pipe the user names is written through, never replaced", "[support]") {
  mlgo::test::ScratchDirectory scratch;
  const fs::path pipe = scratch / "pipe";
  REQUIRE(::mkfifo(pipe.c_str(), 0600) == 0);
  fs::create_symlink(pipe, scratch / "link-to-pipe");
  for (const fs::path &name : {pipe, scratch / "link-to-pipe"}) {
    std::string received;
    std::thread reader([&] {
      std::ifstream in(pipe, std::ios::binary);
      std::ostringstream all;
      all << in.rdbuf();
      received = all.str();
    });
    mlgo::writeOutputFile(name, "through " + name.filename().string());
    reader.join();
    CHECK(received == "through " + name.filename().string());
  }
  CHECK(fs::is_fifo(fs::symlink_status(pipe)));
  CHECK(fs::is_symlink(fs::symlink_status(scratch / "link-to-pipe")));
  size_t entries = 0;
  for (const auto &entry : fs::directory_iterator(scratch.path())) {
    (void)entry;
    ++entries;
  }
  CHECK(entries == 2);  // no temporary left beside them
}

TEST_CASE("output file: a link to /dev/null stays a link to the device", "[support]") {
  // `-o /dev/null` as configure checks write it: replacing the name, run as
  // root, would replace the device. A link in the scratch directory shows it
  // without touching the machine's /dev/null if it still did.
  mlgo::test::ScratchDirectory scratch;
  const fs::path link = scratch / "null";
  fs::create_symlink("/dev/null", link);
  mlgo::writeOutputFile(link, "discarded");
  CHECK(fs::is_symlink(fs::symlink_status(link)));
  CHECK(fs::read_symlink(link) == "/dev/null");
  CHECK(fs::is_character_file(fs::status("/dev/null")));
  CHECK(mlgo::isSpecialFile(link));
  CHECK_FALSE(mlgo::isSpecialFile(scratch.path()));
  CHECK_FALSE(mlgo::isSpecialFile(scratch / "missing"));
}

TEST_CASE("atomic file: a named pipe at a name mlgo chose is replaced, never opened", "[support]") {
  // Opening it to write would wait for a reader that never comes.
  mlgo::test::ScratchDirectory scratch;
  const fs::path entry = scratch / "cache/ab/entry.json";
  fs::create_directories(entry.parent_path());
  REQUIRE(::mkfifo(entry.c_str(), 0600) == 0);
  fs::create_symlink("/dev/null", scratch / "cache/ab/null.json");
  mlgo::writeFileAtomically(entry, "entry");
  mlgo::writeFileAtomically(scratch / "cache/ab/null.json", "kept");
  CHECK(fs::is_regular_file(fs::symlink_status(entry)));
  CHECK(mlgo::readFile(entry) == "entry");
  CHECK(fs::is_regular_file(fs::symlink_status(scratch / "cache/ab/null.json")));
  CHECK(mlgo::readFile(scratch / "cache/ab/null.json") == "kept");
}

TEST_CASE("atomic file: a name inside an untrusted tree replaces a link to a device", "[support]") {
  mlgo::test::ScratchDirectory scratch;
  fs::create_directories(scratch / "out");
  fs::create_symlink("/dev/null", scratch / "out/module.bc");
  mlgo::writeFileInside(scratch / "out", "module.bc", "bitcode");
  CHECK(fs::is_regular_file(fs::symlink_status(scratch / "out/module.bc")));
  CHECK(mlgo::readFile(scratch / "out/module.bc") == "bitcode");
}

TEST_CASE("read file: a missing file is an input error naming it", "[support]") {
  CHECK_THROWS_AS(mlgo::readFile("/nonexistent/mlgo-file"), mlgo::InputError);
  CHECK_THROWS_WITH(mlgo::readFile("/nonexistent/mlgo-file"), Catch::Matchers::Contains("/nonexistent/mlgo-file"));
}

TEST_CASE("atomic file: a directory that cannot be made is named in mlgo's words, not std::filesystem's",
          "[support][errors]") {
  mlgo::test::ScratchDirectory scratch;
  mlgo::writeFileAtomically(scratch / "cache" / "ab", "a file where a directory goes");
  const std::string message =
      mlgo::test::messageOf<std::runtime_error>([&] { mlgo::writeFileAtomically(scratch / "cache/ab/x.json", "x"); });
  CHECK_THAT(message, Catch::Contains("cache/ab/x.json") && Catch::Contains("cannot make its directory") &&
                                  Catch::Contains("Not a directory"));
  CHECK(message.find("filesystem error") == std::string::npos);
  // What std::filesystem throws elsewhere reads the same way.
  const std::filesystem::filesystem_error raw("cannot create directories", scratch / "cache/ab",
                                              std::make_error_code(std::errc::not_a_directory));
  CHECK(mlgo::errorText(raw) == (scratch / "cache/ab").string() + ": cannot create directories: Not a directory");
}
