#include <catch2/catch.hpp>

#include "mlgo/corpus/corpus.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;

namespace {
void writeDescription(const test::ScratchDirectory &dir, const std::string &json) {
  writeFileAtomically(dir / kCorpusDescriptionFile, json);
}
}  // namespace

TEST_CASE("corpus: recorded command lines are NUL-separated", "[corpus]") {
  const std::vector<std::string> args{"-cc1", "-triple", "x86_64-pc-linux-gnu", "-Oz"};
  CHECK(parseRecordedCommandLine(formatRecordedCommandLine(args)) == args);
  CHECK(parseRecordedCommandLine(std::string("-Oz\0-c\n", 7)) == std::vector<std::string>{"-Oz", "-c"});
}

TEST_CASE("corpus: module names must stay inside the corpus", "[corpus]") {
  CHECK(isContainedRelativePath("a.o"));
  CHECK(isContainedRelativePath("dir/sub/a.o"));
  CHECK_FALSE(isContainedRelativePath("/etc/passwd"));
  CHECK_FALSE(isContainedRelativePath("../outside.o"));
  CHECK_FALSE(isContainedRelativePath("dir/../../outside.o"));
  CHECK_FALSE(isContainedRelativePath("dir//a.o"));
  CHECK_FALSE(isContainedRelativePath("./a.o"));
  CHECK_FALSE(isContainedRelativePath(""));
}

TEST_CASE("corpus: loads modules with their bitcode path and command line", "[corpus]") {
  test::ScratchDirectory dir;
  test::writeModule(dir.path(), "sub/m.o", "BC", {"-cc1", "-Oz"});
  writeCorpusDescription(dir.path(), {"sub/m.o"}, false);
  Corpus corpus = Corpus::load(dir.path());
  REQUIRE(corpus.modules.size() == 1);
  CHECK(corpus.modules[0].name == "sub/m.o");
  CHECK(corpus.modules[0].bitcodePath == dir / "sub/m.o.bc");
  CHECK(corpus.modules[0].commandLine == std::vector<std::string>{"-cc1", "-Oz"});
  CHECK(corpus.modules[0].loadError.empty());
}

TEST_CASE("corpus: a global command override replaces every .cmd", "[corpus]") {
  test::ScratchDirectory dir;
  writeDescription(dir, R"({"global_command_override": ["-cc1", "-O2"], "has_thinlto": false, "modules": ["a.o"]})");
  Corpus corpus = Corpus::load(dir.path());
  CHECK(corpus.modules[0].commandLine == std::vector<std::string>{"-cc1", "-O2"});
  writeDescription(dir, R"({"global_command_override": ["<UNSPECIFIED>"], "modules": ["a.o"]})");
  CHECK_THROWS_WITH(Corpus::load(dir.path()), Contains("global_command_override") && Contains("UNSPECIFIED"));
}

TEST_CASE("corpus: bad descriptions name the file, the entry and the problem", "[corpus]") {
  test::ScratchDirectory dir;
  CHECK_THROWS_AS(Corpus::load(dir / "missing"), InputError);
  CHECK_THROWS_WITH(Corpus::load(dir.path()), Contains("corpus_description.json") && Contains("missing"));
  writeDescription(dir, "{\"modules\": [");
  CHECK_THROWS_WITH(Corpus::load(dir.path()), Contains("corpus_description.json") && Contains("not valid JSON"));
  writeDescription(dir, R"({"modules": "a.o"})");
  CHECK_THROWS_WITH(Corpus::load(dir.path()), Contains("\"modules\" array"));
  writeDescription(dir, R"({"modules": ["a.o", 7]})");
  CHECK_THROWS_WITH(Corpus::load(dir.path()), Contains("modules[1]") && Contains("must be a string"));
  writeDescription(dir, R"({"modules": ["ok.o", "../../etc/passwd"]})");
  CHECK_THROWS_WITH(Corpus::load(dir.path()), Contains("modules[1]") && Contains("../../etc/passwd") &&
                                                  Contains("stay inside the corpus"));
  writeDescription(dir, R"({"has_thinlto": "no", "modules": []})");
  CHECK_THROWS_WITH(Corpus::load(dir.path()), Contains("has_thinlto"));
}

TEST_CASE("corpus: a module whose .cmd is missing fails alone, with a reason", "[corpus]") {
  test::ScratchDirectory dir;
  test::writeModule(dir.path(), "good.o", "BC", {"-Oz"});
  writeCorpusDescription(dir.path(), {"good.o", "lost.o"}, false);
  Corpus corpus = Corpus::load(dir.path());
  REQUIRE(corpus.modules.size() == 2);
  CHECK(corpus.modules[0].loadError.empty());
  CHECK_THAT(corpus.modules[1].loadError, Contains("lost.o.cmd"));
}

TEST_CASE("corpus: a module listed twice is loaded once", "[corpus][errors]") {
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "a.o.cmd", "-Oz");
  writeFileAtomically(dir / "b.o.cmd", "-Oz");
  writeDescription(dir, R"({"modules": ["a.o", "b.o", "a.o"]})");
  const Corpus corpus = Corpus::load(dir.path());
  REQUIRE(corpus.modules.size() == 2);
  CHECK(corpus.modules[0].name == "a.o");
  CHECK(corpus.modules[1].name == "b.o");
}

TEST_CASE("corpus: a symbolic link cannot take a module's files outside the corpus", "[corpus][security]") {
  test::ScratchDirectory outside;
  writeFileAtomically(outside / "secret.bc", "not yours");
  writeFileAtomically(outside / "secret.cmd", "-Oz");
  test::ScratchDirectory dir;
  std::filesystem::create_directory_symlink(outside.path(), dir / "linked");
  writeDescription(dir, R"({"modules": ["linked/secret"]})");
  CHECK_THROWS_WITH(Corpus::load(dir.path()), Contains("modules[0]") && Contains("symbolic link"));
  // A link that stays inside is fine.
  std::filesystem::create_directories(dir / "real");
  writeFileAtomically(dir / "real/a.o.cmd", "-Oz");
  std::filesystem::create_directory_symlink(dir / "real", dir / "alias");
  writeDescription(dir, R"({"modules": ["alias/a.o"]})");
  CHECK(Corpus::load(dir.path()).modules.size() == 1);
}

TEST_CASE("corpus: modules ordered largest first, ties and unreadable ones as given", "[corpus]") {
  test::ScratchDirectory dir;
  Corpus corpus;
  corpus.directory = dir.path();
  const auto addModule = [&](const std::string &name, size_t bytes) {
    CorpusModule module;
    module.name = name;
    module.bitcodePath = dir / (name + ".bc");
    if (bytes > 0) writeFileAtomically(module.bitcodePath, std::string(bytes, 'x'));
    corpus.modules.push_back(module);
  };
  addModule("a", 10);
  addModule("b", 30);
  addModule("c", 10);
  addModule("d", 20);
  addModule("missing", 0);
  // Positions in the list given: b (30), d (20), then a and c (10) as given, the missing one last.
  CHECK(largestModulesFirst(corpus, {4, 0, 1, 2, 3}) == std::vector<size_t>{2, 4, 1, 3, 0});
  CHECK(largestModulesFirst(corpus, {2, 0}) == std::vector<size_t>{0, 1});
  CHECK(largestModulesFirst(corpus, {}).empty());
}
