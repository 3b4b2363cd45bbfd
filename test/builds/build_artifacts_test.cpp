#include <catch2/catch.hpp>

#include "mlgo/builds/build_artifacts.h"
#include "mlgo/driver/object_sizes.h"
#include "mlgo/support/atomic_file.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

TEST_CASE("build artifacts: executables and shared libraries are linked files, objects are summed, links and CMake's "
          "probes left out",
          "[builds][clang]") {
  test::ScratchDirectory scratch;
  const fs::path tree = scratch / "tree";
  fs::create_directories(tree / "lib");
  fs::create_directories(tree / "CMakeFiles" / "3.25.1" / "CompilerIdC");
  fs::create_directories(tree / "CMakeFiles" / "app.dir");
  const std::string helpers = (test::testData() / "helpers.c").string();
  writeFileAtomically(scratch / "main.c", "int main(void) { return 0; }\n");
  auto clang = [&](const std::vector<std::string> &args) { REQUIRE(test::runIn(tree, args).exitCode == 0); };
  clang({"clang-19", "-Oz", "-c", helpers, "-o", "CMakeFiles/app.dir/helpers.o"});
  clang({"clang-19", "-Oz", "-c", (scratch / "main.c").string(), "-o", "CMakeFiles/app.dir/main.o"});
  clang({"clang-19", "CMakeFiles/app.dir/main.o", "CMakeFiles/app.dir/helpers.o", "-o", "app"});
  clang({"clang-19", "-shared", "-fPIC", "-Oz", helpers, "-o", "lib/libhelpers.so.1"});
  fs::create_symlink("libhelpers.so.1", tree / "lib" / "libhelpers.so");
  clang({"clang-19", (scratch / "main.c").string(), "-o", "CMakeFiles/3.25.1/CompilerIdC/a.out"});
  writeFileAtomically(tree / "notes.txt", "not ELF");

  const builds::BuildArtifacts artifacts = builds::findArtifacts(tree);
  REQUIRE(artifacts.linked.size() == 2);
  CHECK(artifacts.linked.count("app"));
  CHECK(artifacts.linked.count("lib/libhelpers.so.1"));
  CHECK(artifacts.objectCount == 2);
  SectionSizes app, main, helpersObject;
  std::string error;
  REQUIRE(measureObjectSizes(readFile(tree / "app"), app, error));
  REQUIRE(measureObjectSizes(readFile(tree / "CMakeFiles/app.dir/main.o"), main, error));
  REQUIRE(measureObjectSizes(readFile(tree / "CMakeFiles/app.dir/helpers.o"), helpersObject, error));
  CHECK(artifacts.linked.at("app").text == app.text);
  CHECK(artifacts.objects.text == main.text + helpersObject.text);
  // Linking adds the C runtime's start-up code.
  CHECK(app.text > artifacts.objects.text);
}
