#include <catch2/catch.hpp>

#include <filesystem>

#include "mlgo/corpus/corpus.h"
#include "mlgo/corpus/embedded_sections.h"
#include "mlgo/corpus/extract_ir.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {
ExtractOptions optionsFor(const fs::path &input, const fs::path &output) {
  ExtractOptions options;
  options.input = input;
  options.outputDirectory = output;
  return options;
}
}  // namespace

TEST_CASE("extract-ir: the test project becomes a corpus in LLVM's layout", "[corpus][extract]") {
  test::ScratchDirectory out;
  ExtractSummary summary = extractIR(optionsFor(test::testProject() / "compile_commands.json", out.path()));
  // Seven objects carry bitcode; no_bitcode.o was built without it.
  CHECK(summary.moduleNames == std::vector<std::string>{"helpers.o", "big_callee.o", "tables.o", "sub/list.o",
                                                        "recursion.o", "strings.o", "shapes.o"});
  CHECK(summary.skippedByReason == std::map<std::string, size_t>{{"no embedded bitcode", 1}});
  REQUIRE(summary.warnings.size() == 1);
  CHECK_THAT(summary.warnings[0], Contains("entry 7") && Contains("no_bitcode.o") && Contains("fembed-bitcode"));

  Corpus corpus = Corpus::load(out.path());
  REQUIRE(corpus.modules.size() == 7);
  for (const CorpusModule &module : corpus.modules) {
    // The .bc is exactly the embedded section and starts with bitcode magic.
    EmbeddedModule embedded = readEmbeddedModule(test::testProject() / module.name);
    CHECK(readFile(module.bitcodePath) == embedded.bitcode);
    CHECK(embedded.bitcode.substr(0, 4) == "BC\xC0\xDE");
    CHECK(module.commandLine.front() == "-cc1");
    CHECK(std::find(module.commandLine.begin(), module.commandLine.end(), "-Oz") != module.commandLine.end());
  }
  CHECK(fs::exists(out / "sub/list.o.bc"));
  CHECK(fs::exists(out / "sub/list.o.cmd"));
}

TEST_CASE("extract-ir: the same result with one thread and with four", "[corpus][extract]") {
  test::ScratchDirectory one, four;
  ExtractOptions a = optionsFor(test::testProject() / "compile_commands.json", one.path());
  a.threads = 1;
  ExtractOptions b = optionsFor(test::testProject() / "compile_commands.json", four.path());
  b.threads = 4;
  extractIR(a);
  extractIR(b);
  CHECK(readFile(one / kCorpusDescriptionFile) == readFile(four / kCorpusDescriptionFile));
  CHECK(readFile(one / "shapes.o.bc") == readFile(four / "shapes.o.bc"));
}

TEST_CASE("extract-ir: --cmd-filter keeps matching command lines only", "[corpus][extract]") {
  test::ScratchDirectory out;
  ExtractOptions options = optionsFor(test::testProject() / "compile_commands.json", out.path());
  options.commandFilter = "^-O2$";
  ExtractSummary none = extractIR(options);
  CHECK(none.extracted() == 0);
  CHECK(none.skippedByReason["excluded by --cmd-filter"] == 7);
  CHECK_FALSE(fs::exists(out / kCorpusDescriptionFile));  // nothing extracted: no corpus

  options.commandFilter = "^-O2|-Os|-Oz$";
  CHECK(extractIR(options).extracted() == 7);
  options.commandFilter = "([unclosed";
  CHECK_THROWS_AS(extractIR(options), UsageError);
}

TEST_CASE("extract-ir: --cmd-filter on a 60,000-character recorded argument", "[corpus][extract][errors]") {
  // std::regex recursed once per character here and overflowed the stack.
  // clang records only code generation's options, so the long argument is
  // planted into the object's .llvmcmd section with llvm-objcopy.
  test::ScratchDirectory scratch;
  const std::string object = (scratch / "long.o").string();
  const auto built = test::runProgram(
      "/bin/sh",
      {"-c", "set -e; cd '" + scratch.path().string() + "'; '" + test::clangPath() +
                 "' -Oz -c -fembed-bitcode=all '" + (test::testData() / "helpers.c").string() +
                 "' -o plain.o; llvm-objcopy-19 --dump-section .llvmcmd=cmd plain.o; "
                 "{ cat cmd; head -c 60000 /dev/zero | tr '\\0' a; printf '\\0'; } > long-cmd; "
                 "llvm-objcopy-19 --update-section .llvmcmd=long-cmd plain.o long.o"});
  INFO(built.err);
  REQUIRE(built.exitCode == 0);
  writeFileAtomically(scratch / "objects.txt", object + "\n");
  ExtractOptions options = optionsFor(scratch / "objects.txt", scratch / "corpus");
  options.inputType = ExtractInputType::ObjectList;
  options.commandFilter = ".*zzz";
  CHECK(extractIR(options).extracted() == 0);
  options.commandFilter = "^a+$";
  CHECK(extractIR(options).extracted() == 1);
}

TEST_CASE("extract-ir: every bad input is a warning with a reason and a summary", "[corpus][extract]") {
  test::ScratchDirectory dir;
  const std::string project = test::testProject().string();
  writeFileAtomically(dir / "not-an-object.o", "this is text, not ELF");
  writeFileAtomically(dir / "cc.json", R"([
    {"directory": ")" + project + R"(", "arguments": ["clang", "-c", "h.c", "-o", "helpers.o"]},
    {"directory": ")" + project + R"(", "arguments": ["clang", "-c", "h.c", "-o", "helpers.o"]},
    {"directory": ")" + project + R"(", "arguments": ["clang", "-c", "gone.c", "-o", "gone.o"]},
    {"directory": ")" + dir.path().string() + R"(", "arguments": ["clang", "-c", "t.c", "-o", "not-an-object.o"]},
    {"directory": ")" + project + R"(", "arguments": ["clang", "-c", "n.c", "-o", "no_bitcode.o"]},
    {"directory": ")" + project + R"(", "arguments": ["clang", "-E", "n.c"]}
  ])");
  ExtractSummary summary = extractIR(optionsFor(dir / "cc.json", dir / "corpus"));
  CHECK(summary.moduleNames == std::vector<std::string>{"helpers.o"});
  CHECK(summary.skippedByReason == std::map<std::string, size_t>{{"duplicate object", 1},
                                                                  {"missing object file", 1},
                                                                  {"not an object file", 1},
                                                                  {"no embedded bitcode", 1},
                                                                  {"unusable entry", 1}});
  CHECK(summary.warnings.size() == 5);
  CHECK_THAT(summary.warnings[0], Contains("entry 1") && Contains("duplicate"));
  CHECK_THAT(summary.warnings[1], Contains("entry 2") && Contains("gone.o") && Contains("missing"));
  CHECK_THAT(summary.warnings[2], Contains("entry 3") && Contains("not-an-object.o"));
}

TEST_CASE("extract-ir: malformed input files are errors naming the file", "[corpus][extract]") {
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "cc.json", "[{\"directory\": \"/x\", ");
  CHECK_THROWS_WITH(extractIR(optionsFor(dir / "cc.json", dir / "out")), Contains("cc.json"));
  CHECK_FALSE(fs::exists(dir / "out" / kCorpusDescriptionFile));
}

TEST_CASE("extract-ir: object lists work like compile commands", "[corpus][extract]") {
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "objects.txt", (test::testProject() / "helpers.o").string() + "\n" +
                                               (test::testProject() / "sub/list.o").string() + "\n");
  ExtractOptions options = optionsFor(dir / "objects.txt", dir / "corpus");
  options.inputType = ExtractInputType::ObjectList;
  ExtractSummary summary = extractIR(options);
  REQUIRE(summary.extracted() == 2);
  CHECK(Corpus::load(dir / "corpus").modules.size() == 2);
}

TEST_CASE("extract-ir: never writes through a symbolic link out of the output directory",
          "[corpus][extract][security]") {
  test::ScratchDirectory scratch;
  const fs::path output = scratch / "corpus";
  const fs::path outside = scratch / "outside";
  fs::create_directories(output);
  fs::create_directories(outside);
  // The test project has sub/list.o: its files would go through this link.
  fs::create_directory_symlink(outside, output / "sub");
  // A link at a module's own file is replaced, never followed.
  writeFileAtomically(outside / "helpers.o.bc", "kept");
  fs::create_symlink(outside / "helpers.o.bc", output / "helpers.o.bc");
  const ExtractSummary summary = extractIR(optionsFor(test::testProject() / "compile_commands.json", output));
  CHECK(readFile(outside / "helpers.o.bc") == "kept");
  CHECK_FALSE(fs::exists(outside / "list.o.bc"));
  CHECK_FALSE(fs::exists(outside / "list.o.cmd"));
  CHECK(summary.skippedByReason.at("unsafe output path") == 1);
  bool named = false;
  for (const std::string &warning : summary.warnings)
    if (warning.find("symbolic link") != std::string::npos && warning.find("sub") != std::string::npos) named = true;
  CHECK(named);
  CHECK_FALSE(fs::is_symlink(output / "helpers.o.bc"));
  CHECK(readEmbeddedModule(test::testProject() / "helpers.o").bitcode == readFile(output / "helpers.o.bc"));
}
