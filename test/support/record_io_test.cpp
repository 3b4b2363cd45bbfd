#include <catch2/catch.hpp>

#include <filesystem>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/record_io.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {
const std::vector<std::string> kRecords = {"first", std::string("sec\0ond", 7), "", std::string(1000, 'x')};

fs::path writeSample(const test::ScratchDirectory &dir) {
  const fs::path path = dir / "records.bin";
  RecordWriter writer(path);
  for (const std::string &record : kRecords) writer.write(record);
  writer.close();
  return path;
}

std::vector<std::string> readAll(const fs::path &path, std::string &error) {
  std::vector<std::string> records;
  RecordReader reader(path);
  try {
    while (auto record = reader.next()) records.push_back(*record);
  } catch (const InputError &e) {
    error = e.what();
  }
  return records;
}
}  // namespace

TEST_CASE("records: round trip, TFRecord sizes", "[support][records]") {
  test::ScratchDirectory dir;
  const fs::path path = writeSample(dir);
  size_t expectedBytes = 0;
  for (const std::string &record : kRecords) expectedBytes += record.size() + 16;
  CHECK(fs::file_size(path) == expectedBytes);
  std::string error;
  CHECK(readAll(path, error) == kRecords);
  CHECK(error.empty());
}

TEST_CASE("records: truncation anywhere keeps the intact records and names the offset", "[support][records]") {
  test::ScratchDirectory dir;
  const std::string bytes = readFile(writeSample(dir));
  const size_t lastStart = bytes.size() - (kRecords.back().size() + 16);
  for (size_t cut = lastStart + 1; cut < bytes.size(); cut += 97) {
    writeFileAtomically(dir / "cut.bin", bytes.substr(0, cut));
    std::string error;
    std::vector<std::string> records = readAll(dir / "cut.bin", error);
    INFO("cut at " << cut);
    CHECK(records == std::vector<std::string>(kRecords.begin(), kRecords.end() - 1));
    CHECK_THAT(error, Contains("cut.bin") && Contains("offset " + std::to_string(lastStart)) &&
                          Contains("truncated"));
  }
}

TEST_CASE("records: a flipped byte is detected in the length or the data", "[support][records]") {
  test::ScratchDirectory dir;
  std::string bytes = readFile(writeSample(dir));
  const size_t secondStart = kRecords[0].size() + 16;
  for (size_t flip : {secondStart + 2, secondStart + 14}) {  // length field, then data
    std::string damaged = bytes;
    damaged[flip] ^= 0x20;
    writeFileAtomically(dir / "damaged.bin", damaged);
    std::string error;
    std::vector<std::string> records = readAll(dir / "damaged.bin", error);
    CHECK(records == std::vector<std::string>{kRecords[0]});
    CHECK_THAT(error, Contains("damaged.bin") && Contains("offset " + std::to_string(secondStart)) &&
                          Contains("checksum"));
  }
}
