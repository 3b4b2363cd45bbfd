#include <catch2/catch.hpp>

#include <filesystem>

#include "mlgo/store/build_store.h"
#include "mlgo/launcher/compile_plan.h"
#include "mlgo/launcher/frontend.h"
#include "mlgo/launcher/portable_unit.h"
#include "mlgo/support/atomic_file.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::launcher;

namespace fs = std::filesystem;

namespace {

struct Keys {
  std::string portable, exact;
};

/// A tree at `root`: src/unit.c including the generated build/gen/config.h,
/// with an assert (__FILE__) and debug information, built in root/build.
Keys keysOfTree(const fs::path &root, const std::string &scale = "3", const std::string &level = "-Oz") {
  fs::create_directories(root / "src");
  fs::create_directories(root / "build" / "gen");
  writeFileAtomically(root / "build" / "gen" / "config.h", "#define SCALE " + scale + "\n");
  writeFileAtomically(root / "src" / "unit.c",
                      "#include <assert.h>\n#include \"config.h\"\n"
                      "const char *where(void) { return __FILE__; }\n"
                      "int scaled(int x) { assert(x > 0); return SCALE * x; }\n");
  const fs::path build = root / "build";
  const CompilePlan plan =
      planCompile("clang-19", {level, "-g", "-c", (root / "src" / "unit.c").string(), "-o", (build / "unit.o").string(),
                               "-I", (build / "gen").string(), "-MD", "-MF", (build / "unit.d").string(),
                               "-fdebug-compilation-dir=" + build.string()});
  REQUIRE(plan.inProcess());
  const PathRoots roots = PathRoots::of(build, plan.source, "");
  const FrontendResult frontend = runFrontend(plan.cc1, false, &roots);
  REQUIRE(frontend.ok);
  REQUIRE(!frontend.portableHash.empty());
  return {store::unitKeyOfHash(frontend.portableHash, portableCommandLine(plan.cc1, roots)),
          store::unitKey(frontend.bitcode, plan.cc1)};
}

}  // namespace

TEST_CASE("portable unit: one source in two trees has one key, other code or options have others", "[launcher][clang]") {
  test::ScratchDirectory scratch;
  const Keys one = keysOfTree(scratch / "one");
  const Keys two = keysOfTree(scratch / "elsewhere" / "two");
  CHECK(one.portable == two.portable);
  CHECK(one.exact != two.exact);  // each tree's own paths are in its module
  CHECK(keysOfTree(scratch / "three", "4").portable != one.portable);
  CHECK(keysOfTree(scratch / "four", "3", "-O2").portable != one.portable);
  // The same tree again: the same keys.
  const Keys again = keysOfTree(scratch / "one");
  CHECK(again.portable == one.portable);
  CHECK(again.exact == one.exact);
}

TEST_CASE("portable unit: roots, and paths only as whole components", "[launcher]") {
  const PathRoots roots = PathRoots::of("/work/tree/build", "/work/tree/src/a.c", "");
  CHECK(roots.directory == "/work/tree/build");
  CHECK(roots.base == "/work/tree");
  CHECK(roots.normalize("/work/tree/build/gen/x.h") == "<cwd>/gen/x.h");
  CHECK(roots.normalize("/work/tree/src/a.c") == "<base>/src/a.c");
  CHECK(roots.normalize("-DDIR=\"/work/tree/share\"") == "-DDIR=\"<base>/share\"");
  CHECK(roots.normalize("/work/trees/other") == "/work/trees/other");
  CHECK(roots.normalize("/work/tree") == "<base>");
  CHECK(roots.normalize("/usr/include") == "/usr/include");
  // A relative source is the directory's: the base is the directory.
  CHECK(PathRoots::of("/work/tree/build", "../src/a.c", "").base == "/work/tree");
  CHECK(PathRoots::of("/work/tree", "a.c", "").base == "/work/tree");
  // A source the build generated, in the build directory: the project's
  // include directories say where its root is; a system one does not.
  CHECK(PathRoots::of("/work/tree/build", "/work/tree/build/gen.c", "",
                      {"-cc1", "-I", "/work/tree/src", "-isystem/usr/include/libxml2", "-I/work/tree/build"})
            .base == "/work/tree");
  CHECK(PathRoots::of("/work/tree/build", "/work/tree/build/gen.c", "", {"-cc1", "-I", "/usr/include/libxml2"}).base ==
        "/work/tree/build");
  // Nothing in common but "/": no base; one given wins.
  CHECK(PathRoots::of("/home/me/build", "/srv/code/a.c", "").base.empty());
  CHECK(PathRoots::of("/home/me/build", "/srv/code/a.c", "/srv/code/").base == "/srv/code");
}

TEST_CASE("portable unit: the command line without outputs and dependency files, its paths normalized",
          "[launcher]") {
  const PathRoots roots = PathRoots::of("/w/t/build", "/w/t/src/a.c", "");
  const std::vector<std::string> commandLine{"-cc1", "-Oz", "-o", "/w/t/build/a.o", "-dependency-file", "a.d", "-MT",
                                             "a.o", "-sys-header-deps", "-I", "/w/t/build/gen", "-I", "/w/t/include",
                                             "-fdebug-compilation-dir=/w/t/build", "-I", "/usr/include/x"};
  CHECK(portableCommandLine(commandLine, roots) ==
        std::vector<std::string>{"-cc1", "-Oz", "-I", "<cwd>/gen", "-I", "<base>/include",
                                 "-fdebug-compilation-dir=<cwd>", "-I", "/usr/include/x"});
}
