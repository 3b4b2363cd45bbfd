#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "mlgo/support/errors.h"
#include "problems/regalloc/eviction_channel.h"

using namespace mlgo;
using namespace mlgo::regalloc;
using Catch::Matchers::Contains;

namespace {

/// Opens the channel's pipes as LLVM's InteractiveModelRunner does.
struct LLVMSide {
  explicit LLVMSide(const EvictionChannel &channel)
      : in(::open((channel.base() + ".in").c_str(), O_RDONLY | O_NONBLOCK)),
        out(::open((channel.base() + ".out").c_str(), O_WRONLY)) {}
  ~LLVMSide() {
    ::close(in);
    ::close(out);
  }
  void write(const std::string &bytes) const {
    REQUIRE(::write(out, bytes.data(), bytes.size()) == ssize_t(bytes.size()));
  }
  int in, out;
};

serve::TensorSpecification tensor(const std::string &name, std::vector<int64_t> shape) {
  serve::TensorSpecification spec;
  spec.name = name;
  spec.type = "int64_t";
  spec.shape = std::move(shape);
  spec.elementSize = 8;
  return spec;
}

std::string header() {
  return serve::formatLogHeader({tensor("mask", {1, 2})}, tensor("index_to_evict", {1})) + "\n";
}

std::string connectError(const std::string &written) {
  EvictionChannel channel;
  LLVMSide llvm(channel);
  llvm.write(written);
  try {
    channel.connect();
  } catch (const InputError &e) {
    return e.what();
  }
  return "connected";
}

}  // namespace

TEST_CASE("eviction channel: observations and queued answers", "[regalloc]") {
  EvictionChannel channel;
  LLVMSide llvm(channel);
  llvm.write(header());
  channel.connect();
  REQUIRE(channel.header().features.size() == 1);

  // A question: the queued answer is LLVM's to read, the features ours.
  channel.answerInAdvance(1);
  const int64_t mask[2] = {1, 1};
  llvm.write("{\"observation\":0}\n" + std::string(reinterpret_cast<const char *>(mask), sizeof mask) + "\n");
  int64_t answer = -1;
  REQUIRE(::read(llvm.in, &answer, sizeof answer) == sizeof answer);
  CHECK(answer == 1);
  std::string features;
  REQUIRE(channel.takeObservation(features));
  CHECK(features.size() == sizeof mask);

  // No question: the queued answer is taken back, nothing is left for LLVM.
  channel.answerInAdvance(0);
  CHECK_FALSE(channel.takeObservation(features));
  CHECK(::read(llvm.in, &answer, sizeof answer) < 0);
  CHECK(errno == EAGAIN);
}

TEST_CASE("eviction channel: malformed output from the compiler is named, not trusted", "[regalloc]") {
  CHECK_THAT(connectError(""), Contains("LLVM's eviction channel") && Contains("no header"));
  CHECK_THAT(connectError("{\"features\": 3}\n"), Contains("LLVM's eviction channel") && Contains("header"));
  CHECK_THAT(connectError(serve::formatLogHeader({tensor("mask", {1, 2})}, tensor("index_to_evict", {2})) + "\n"),
             Contains("advice"));

  EvictionChannel channel;
  LLVMSide llvm(channel);
  llvm.write(header());
  channel.connect();
  channel.answerInAdvance(0);
  llvm.write("{\"observation\":0}\nshort");
  std::string features;
  CHECK_THROWS_WITH(channel.takeObservation(features), Contains("observation 0") && Contains("cut short"));
}
