// TensorBoard event files: framing checked by the TFRecord reader (lengths and
// CRC-32C), every record decoded by protoc against the schema.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "mlgo/metrics/event_file_writer.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

TEST_CASE("tensorboard events: scalars and a histogram decode with protoc against the schema", "[report]") {
  test::ScratchDirectory scratch;
  const fs::path runDirectory = scratch / "run";
  fs::path written;
  {
    EventFileWriter events(runDirectory);
    written = events.path();
    events.addScalar("reward/mean", 1, 0.25);
    events.addScalars(nlohmann::json{{"loss", {{"total", -0.5}, {"kl_penalty", 2e-3}}},
                                     {"name", "not a number"},
                                     {"modules", 100}},
                      2);
    events.addHistogram("reward_distribution", 3, {-0.5, -0.11, 0.0, 0.0, 0.3});
    events.addHistogram("empty", 4, {});
    events.flush();
  }
  CHECK(written.parent_path() == runDirectory);
  CHECK_THAT(written.filename().string(), Contains("events.out.tfevents."));

  const std::vector<std::string> events = test::decodeTensorBoardEvents(written, scratch.path());
  // file_version, 1 scalar, 3 flattened numbers, 1 histogram; nothing for the empty one.
  REQUIRE(events.size() == 6);
  CHECK_THAT(events[0], Contains("file_version: \"brain.Event:2\""));
  CHECK(test::protoNumbers(events[0], "wall_time").size() == 1);

  CHECK(test::protoNumbers(events[1], "step") == std::vector<double>{1});
  CHECK_THAT(events[1], Contains("tag: \"reward/mean\""));
  CHECK(test::protoNumbers(events[1], "simple_value") == std::vector<double>{0.25});

  std::string scalars = events[2] + events[3] + events[4];
  CHECK_THAT(scalars, Contains("tag: \"loss/total\"") && Contains("tag: \"loss/kl_penalty\"") &&
                          Contains("tag: \"modules\""));
  CHECK_THAT(scalars, !Contains("name"));
  for (size_t i = 2; i <= 4; ++i) CHECK(test::protoNumbers(events[i], "step") == std::vector<double>{2});

  const std::string &histogram = events[5];
  CHECK_THAT(histogram, Contains("tag: \"reward_distribution\""));
  CHECK(test::protoNumbers(histogram, "min") == std::vector<double>{-0.5});
  CHECK(test::protoNumbers(histogram, "max") == std::vector<double>{0.3});
  CHECK(test::protoNumbers(histogram, "num") == std::vector<double>{5});
  const std::vector<double> sum = test::protoNumbers(histogram, "sum");
  REQUIRE(sum.size() == 1);
  CHECK(sum[0] == Approx(-0.31));
  const std::vector<double> limits = test::protoNumbers(histogram, "bucket_limit");
  const std::vector<double> counts = test::protoNumbers(histogram, "bucket");
  REQUIRE(limits.size() == counts.size());
  REQUIRE_FALSE(limits.empty());
  CHECK(std::is_sorted(limits.begin(), limits.end()));
  CHECK(limits.back() == 0.3);
  double total = 0;
  for (double count : counts) total += count;
  CHECK(total == 5);
  // Every value lies in its bucket [limit(i-1), limit(i)) (the maximum in the
  // last one): the two zeros share one.
  for (double value : {-0.5, -0.11, 0.0, 0.3}) {
    const size_t bucket =
        std::min<size_t>(std::upper_bound(limits.begin(), limits.end(), value) - limits.begin(), limits.size() - 1);
    CHECK(counts.at(bucket) >= (value == 0.0 ? 2 : 1));
  }
}

TEST_CASE("tensorboard events: two writers in one directory never share a file", "[report]") {
  test::ScratchDirectory scratch;
  EventFileWriter first(scratch.path()), second(scratch.path());
  CHECK(first.path() != second.path());
}
