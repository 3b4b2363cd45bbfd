// LibTorch lives in libmlgo_training.so, which the mlgo executable loads only
// for the commands that train or write TorchScript. Checked on the real
// binary with the dynamic loader's own log (glibc's LD_DEBUG).
#include <catch2/catch.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// Every file the dynamic loader opened while mlgo ran `args`.
std::string loadedFiles(const std::vector<std::string> &args) {
  test::ScratchDirectory scratch;
  const auto outcome =
      test::runMlgoWithEnvironment({"LD_DEBUG=files", "LD_DEBUG_OUTPUT=" + (scratch / "loader").string()}, args);
  REQUIRE(outcome.exitCode == exit_code::kSuccess);
  std::string log;
  for (const auto &entry : fs::directory_iterator(scratch.path())) log += readFile(entry.path());
  REQUIRE_THAT(log, Contains("libmlgo_core.so"));  // the log is there at all
  return log;
}

}  // namespace

TEST_CASE("training library: only training and TorchScript commands load LibTorch", "[cli]") {
  CHECK_THAT(loadedFiles({"--version"}), !Contains("libtorch"));
  CHECK_THAT(loadedFiles({"export", "--help"}), !Contains("libtorch"));
  CHECK_THAT(loadedFiles({"train-ppo", "--print-config"}),
             Contains("libmlgo_training.so") && Contains("libtorch_cpu.so"));
}

TEST_CASE("training library: a missing libmlgo_training.so is a clear error for training only", "[cli][errors]") {
  // libmlgo_core.so copied alone: the loader looks for the training library
  // beside it and does not find it.
  test::ScratchDirectory scratch;
  const fs::path build = fs::path(test::mlgoBinary()).parent_path();
  for (const char *library : {"libmlgo_core.so", "libmlgo_report.so"})
    fs::copy_file(build / library, scratch / library);
  const std::string libraryPath = "LD_LIBRARY_PATH=" + scratch.path().string();

  const auto train =
      test::runMlgoWithEnvironment({libraryPath}, {"train-bc", "--trace", "t", "--vocab", "v", "--output", "o"});
  CHECK(train.exitCode == exit_code::kFailure);
  CHECK_THAT(train.err, Contains("training library") && Contains((scratch / "libmlgo_training.so").string()));
  CHECK(test::runMlgoWithEnvironment({libraryPath}, {"eval", "--help"}).exitCode == exit_code::kSuccess);
}
