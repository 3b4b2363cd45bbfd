// Where mlgo finds its shipped data: $MLGO_DATA_DIR, the installed layout
// relative to the library, the build tree's links. Never the source tree's
// path compiled in (test/install/package_test.sh checks an installed copy).
#include <catch2/catch.hpp>

#include "mlgo/autotune/correctness_gate.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/support/data_paths.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

TEST_CASE("data paths: the installed share/mlgo is found from <prefix>/lib", "[support]") {
  test::ScratchDirectory prefix;
  fs::create_directories(prefix / "lib");
  fs::create_directories(prefix / "share/mlgo/configs");
  CHECK(findDataDirectory("", prefix / "lib") == prefix / "share/mlgo");
}

TEST_CASE("data paths: the build tree's mlgo-data beside the libraries is the fallback", "[support]") {
  test::ScratchDirectory build;
  fs::create_directories(build / "mlgo-data");
  CHECK(findDataDirectory("", build.path()) == build / "mlgo-data");
  // An installed layout wins: a build tree is never consulted by an install.
  fs::create_directories(build / "lib");
  fs::create_directories(build / "share/mlgo");
  fs::create_directories(build / "lib/mlgo-data");
  CHECK(findDataDirectory("", build / "lib") == build / "share/mlgo");
}

TEST_CASE("data paths: $MLGO_DATA_DIR overrides, and must be a directory", "[support]") {
  test::ScratchDirectory prefix;
  fs::create_directories(prefix / "lib");
  fs::create_directories(prefix / "share/mlgo");
  fs::create_directories(prefix / "elsewhere");
  CHECK(findDataDirectory((prefix / "elsewhere").string(), prefix / "lib") == prefix / "elsewhere");
  CHECK_THROWS_AS(findDataDirectory((prefix / "missing").string(), prefix / "lib"), InputError);
}

TEST_CASE("data paths: nothing found names where it looked", "[support]") {
  test::ScratchDirectory empty;
  CHECK_THROWS_WITH(findDataDirectory("", empty / "lib"),
                    Catch::Matchers::Contains("share/mlgo") && Catch::Matchers::Contains("mlgo-data") &&
                        Catch::Matchers::Contains("MLGO_DATA_DIR"));
}

TEST_CASE("data paths: the build tree's data is the source tree's", "[support]") {
  // The tests run against the build tree: its libmlgo_core.so finds
  // mlgo-data, whose links lead to the shipped files.
  CHECK(coreLibraryDirectory().is_absolute());
  CHECK(fs::is_regular_file(dataPath("configs/inlining/bc.json")));
  CHECK(fs::is_regular_file(dataPath("vocab/inlining/callee_basic_block_count.buckets")));
  CHECK(fs::equivalent(autotune::defaultSearchSpaceFile(),
                       test::testData() / "../../configs/autotune/passes.txt"));
  CHECK(fs::equivalent(autotune::defaultGatePrograms(), test::testData() / "../../configs/autotune/gate-programs"));
}
