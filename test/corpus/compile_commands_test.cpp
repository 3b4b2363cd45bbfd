#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "mlgo/corpus/compile_commands.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

TEST_CASE("compile commands: module names mirror the object path inside the build", "[corpus]") {
  CHECK(moduleNameForObject("obj/a.o", "/build") == "obj/a.o");
  CHECK(moduleNameForObject("/build/obj/./b.o", "/build") == "obj/b.o");
  // Outside the build directory: mirrored by absolute path, still contained.
  CHECK(moduleNameForObject("../elsewhere/c.o", "/build/dir") == "build/elsewhere/c.o");
  CHECK(moduleNameForObject("/tmp/d.o", "/build") == "tmp/d.o");
}

TEST_CASE("compile commands: arguments, command and output forms", "[corpus]") {
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "cc.json", R"([
    {"directory": "/b", "arguments": ["clang", "-c", "x.c", "-o", "out/x.o"], "file": "x.c"},
    {"directory": "/b", "command": "clang -c 'y y.c' -o 'y y.o'", "file": "y y.c"},
    {"directory": "/b", "arguments": ["clang", "-c", "z.c"], "output": "z.o", "file": "z.c"},
    {"directory": "/b", "arguments": ["clang", "-c", "w.c", "-ow.o"], "file": "w.c"}
  ])");
  auto entries = readCompileCommands(dir / "cc.json");
  REQUIRE(entries.size() == 4);
  CHECK(entries[0].moduleName == "out/x.o");
  CHECK(entries[0].objectPath == "/b/out/x.o");
  CHECK(entries[1].moduleName == "y y.o");
  CHECK(entries[2].moduleName == "z.o");
  CHECK(entries[3].moduleName == "w.o");
  for (const auto &entry : entries) CHECK(entry.problem.empty());
}

TEST_CASE("compile commands: the object is the one clang writes, whatever the spelling of -o", "[corpus][clang]") {
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "t.c", "int t(void) { return 1; }\n");
  const std::string a = (dir / "a.o").string(), b = (dir / "b.o").string();
  const std::vector<std::vector<std::string>> spellings{
      {"-o", a, "-o", b}, {"-o", a, "--output=" + b}, {"--output=" + a, "-o" + b},
      {"-o" + a, "--output", b}, {"--output", a, "-o", b}};
  nlohmann::json commands = nlohmann::json::array();
  for (const std::vector<std::string> &spelling : spellings) {
    std::vector<std::string> arguments{"-c", (dir / "t.c").string()};
    arguments.insert(arguments.end(), spelling.begin(), spelling.end());
    // What clang itself writes: only the last output.
    fs::remove(a);
    fs::remove(b);
    REQUIRE(test::runProgram(test::clangPath(), arguments).exitCode == 0);
    CHECK(fs::exists(b));
    CHECK_FALSE(fs::exists(a));
    arguments.insert(arguments.begin(), test::clangPath());
    commands.push_back({{"directory", dir.path().string()}, {"arguments", arguments}, {"file", "t.c"}});
  }
  writeFileAtomically(dir / "cc.json", commands.dump());
  for (const ObjectEntry &entry : readCompileCommands(dir / "cc.json")) {
    CAPTURE(entry.origin);
    CHECK(entry.problem.empty());
    CHECK(entry.moduleName == "b.o");
  }
}

TEST_CASE("compile commands: unusable entries are reported, not fatal", "[corpus]") {
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "cc.json", R"([
    {"directory": "/b", "arguments": ["clang", "-E", "x.c"]},
    {"arguments": ["clang", "-c", "x.c", "-o", "x.o"]},
    {"directory": "/b", "command": "clang -c 'open.c -o x.o"},
    {"directory": "/b"},
    42
  ])");
  auto entries = readCompileCommands(dir / "cc.json");
  REQUIRE(entries.size() == 5);
  CHECK_THAT(entries[0].problem, Contains("no output"));
  CHECK_THAT(entries[1].problem, Contains("directory"));
  CHECK_THAT(entries[2].problem, Contains("unterminated quote"));
  CHECK_THAT(entries[3].problem, Contains("arguments"));
  CHECK_THAT(entries[4].problem, Contains("not an object"));
  CHECK_THAT(entries[4].origin, Contains("entry 4"));
}

TEST_CASE("compile commands: a file that is not a JSON array is an input error", "[corpus]") {
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "bad.json", "[{\"directory\": ");
  CHECK_THROWS_WITH(readCompileCommands(dir / "bad.json"), Contains("bad.json") && Contains("not valid JSON"));
  writeFileAtomically(dir / "object.json", "{}");
  CHECK_THROWS_AS(readCompileCommands(dir / "object.json"), InputError);
  CHECK_THROWS_AS(readCompileCommands(dir / "absent.json"), InputError);
}

TEST_CASE("object list: one path per line, relative to the list", "[corpus]") {
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "objects.txt", "# objects\nsub/a.o\n\n/abs/b.o  \n");
  auto entries = readObjectList(dir / "objects.txt");
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].objectPath == dir / "sub/a.o");
  CHECK(entries[0].moduleName == "sub/a.o");
  CHECK(entries[1].moduleName == "abs/b.o");
  CHECK_THAT(entries[1].origin, Contains("line 4"));
}
