#include <catch2/catch.hpp>

#include "mlgo/corpus/corpus.h"
#include "mlgo/corpus/extract_ir.h"
#include "mlgo/corpus/thinlto_modules.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

bool contains(const std::vector<std::string> &args, const std::string &arg) {
  return std::find(args.begin(), args.end(), arg) != args.end();
}

ExtractSummary extractThinLTO(const fs::path &input, const fs::path &output, ThinLTOBuild flavour) {
  ExtractOptions options;
  options.input = input;
  options.outputDirectory = output;
  options.thinlto = flavour;
  return extractIR(options);
}

}  // namespace

TEST_CASE("thinlto: a local build's post-import modules, indexes and backend command lines", "[corpus][thinlto]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build");
  const ExtractSummary summary = extractThinLTO(build.local, scratch / "corpus", ThinLTOBuild::Local);
  CHECK(summary.moduleNames == std::vector<std::string>{"helper.o", "main.o"});
  CHECK(summary.skipped() == 0);

  const Corpus corpus = Corpus::load(scratch / "corpus");
  CHECK(corpus.hasThinLTO);
  const CorpusModule &main = test::moduleNamed(corpus, "main.o");
  CHECK(main.loadError.empty());
  // The module is lld's post-import one, byte for byte, and the index its own.
  CHECK(readFile(main.bitcodePath) == readFile(build.local / "main.o.3.import.bc"));
  CHECK(main.thinltoIndexPath == scratch / "corpus" / "main.o.thinlto.bc");
  CHECK(readFile(main.thinltoIndexPath) == readFile(build.local / "main.o.thinlto.bc"));
  // The compile's command line made into lld's backend: level 2, sections and
  // vectorizers as lld sets them, no pre-link or embedding flags.
  CHECK(contains(main.commandLine, "-O2"));
  CHECK_FALSE(contains(main.commandLine, "-Oz"));
  CHECK(contains(main.commandLine, "-ffunction-sections"));
  CHECK(contains(main.commandLine, "-vectorize-loops"));
  CHECK(contains(main.commandLine, "-emit-obj"));
  CHECK_FALSE(contains(main.commandLine, "-flto=thin"));
  CHECK_FALSE(contains(main.commandLine, "-emit-llvm-bc"));
  CHECK_FALSE(contains(main.commandLine, "-fembed-bitcode=all"));
  CHECK(contains(main.commandLine, "-fthinlto-index=main.o.thinlto.bc"));
}

TEST_CASE("thinlto: local module names are relative to the scan root, however it is spelled", "[corpus][thinlto]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build");
  // A relative root once gave names with the root's own name in front.
  const fs::path previous = fs::current_path();
  fs::current_path(build.local.parent_path());
  std::vector<ObjectEntry> relative;
  try {
    relative = findLocalThinLTOModules(build.local.filename());
  } catch (...) {
    fs::current_path(previous);
    throw;
  }
  fs::current_path(previous);
  const std::vector<ObjectEntry> absolute = findLocalThinLTOModules(build.local);
  REQUIRE(relative.size() == 2);
  REQUIRE(absolute.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(relative[i].moduleName == absolute[i].moduleName);
    CHECK(relative[i].objectPath == absolute[i].objectPath);
  }
  CHECK(absolute[0].moduleName == "helper.o");
}

TEST_CASE("thinlto: the link's LTO level becomes the backend's", "[corpus][thinlto]") {
  const std::vector<std::string> compile{"-cc1", "-triple", "x86_64-pc-linux-gnu", "-emit-llvm-bc", "-flto=thin",
                                         "-Os", "-vectorize-slp", "-fembed-bitcode=all"};
  const auto atThree = localBackendCommandLine(compile, 3, "a.o.thinlto.bc");
  CHECK(contains(atThree, "-O3"));
  CHECK_FALSE(contains(atThree, "-Os"));
  CHECK(contains(atThree, "-vectorize-slp"));
  const auto atOne = localBackendCommandLine(compile, 1, "a.o.thinlto.bc");
  CHECK(contains(atOne, "-O1"));
  CHECK_FALSE(contains(atOne, "-vectorize-slp"));  // lld vectorizes above level 1 only
  CHECK(std::count(atOne.begin(), atOne.end(), "-triple") == 1);
}

TEST_CASE("thinlto: a distributed build's backend compiles", "[corpus][thinlto]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build");
  const ExtractSummary summary =
      extractThinLTO(build.distributed / "compile_commands.json", scratch / "corpus", ThinLTOBuild::Distributed);
  CHECK(summary.moduleNames == std::vector<std::string>{"main.native.o", "helper.native.o"});
  // The two pre-link compiles are not backend compiles.
  CHECK(summary.skippedByReason.at("not a ThinLTO backend compile") == 2);

  const Corpus corpus = Corpus::load(scratch / "corpus");
  CHECK(corpus.hasThinLTO);
  const CorpusModule &main = test::moduleNamed(corpus, "main.native.o");
  CHECK(main.loadError.empty());
  CHECK(readFile(main.thinltoIndexPath) == readFile(build.distributed / "main.o.thinlto.bc"));
  CHECK(contains(main.commandLine, "-O2"));
  // The option that asked the build to embed is not a compile option.
  for (const std::string &arg : main.commandLine) CHECK_THAT(arg, !Contains("lto-embed-bitcode"));
}

TEST_CASE("thinlto: a missing or empty index skips the module, naming the file", "[corpus][thinlto][errors]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build");
  fs::remove(build.local / "helper.o.thinlto.bc");
  writeFileAtomically(build.local / "main.o.thinlto.bc", "");
  ExtractSummary summary = extractThinLTO(build.local, scratch / "corpus", ThinLTOBuild::Local);
  CHECK(summary.extracted() == 0);
  CHECK(summary.skippedByReason.at("ThinLTO index missing") == 1);
  CHECK(summary.skippedByReason.at("ThinLTO index empty (the link did not need the module)") == 1);
  REQUIRE(summary.warnings.size() == 2);
  CHECK_THAT(summary.warnings[0], Contains("helper.o.thinlto.bc"));
  CHECK_THAT(summary.warnings[1], Contains("main.o.thinlto.bc"));
}

TEST_CASE("thinlto: truncated, foreign and swapped indexes are refused, naming the file", "[corpus][thinlto][errors]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build");
  const std::string mainIndex = readFile(build.local / "main.o.thinlto.bc");
  const std::string helperIndex = readFile(build.local / "helper.o.thinlto.bc");
  const std::string variant = GENERATE(std::string("truncated"), std::string("a link to a text file"),
                                       std::string("helper's index for main"), std::string("main's index for helper"));
  CAPTURE(variant);
  std::string module = "main.o";
  if (variant == "truncated") {
    writeFileAtomically(build.local / "main.o.thinlto.bc", mainIndex.substr(0, mainIndex.size() / 2));
  } else if (variant == "a link to a text file") {
    writeFileAtomically(scratch / "secret.txt", "root:x:0:0:root:/root:/bin/bash\n");
    fs::remove(build.local / "main.o.thinlto.bc");
    fs::create_symlink(scratch / "secret.txt", build.local / "main.o.thinlto.bc");
  } else if (variant == "helper's index for main") {
    writeFileAtomically(build.local / "main.o.thinlto.bc", helperIndex);
  } else {
    // main's index lists every helper function (main imports them all), and main itself.
    writeFileAtomically(build.local / "helper.o.thinlto.bc", mainIndex);
    module = "helper.o";
  }
  const ExtractSummary summary = extractThinLTO(build.local, scratch / "corpus", ThinLTOBuild::Local);
  CHECK(summary.extracted() == 1);
  CHECK(summary.skippedByReason.at("ThinLTO index unusable") == 1);
  REQUIRE(summary.warnings.size() == 1);
  CHECK_THAT(summary.warnings[0], Contains(module + ".thinlto.bc: "));
  CHECK_THAT(summary.warnings[0], Contains(variant == "truncated" || variant == "a link to a text file"
                                               ? "not a ThinLTO index"
                                               : "another module's index"));
  CHECK_FALSE(fs::exists(scratch / "corpus" / (module + ".thinlto.bc")));
  CHECK_FALSE(fs::exists(scratch / "corpus" / (module + ".bc")));
  for (const fs::directory_entry &entry : fs::recursive_directory_iterator(scratch / "corpus"))
    if (entry.is_regular_file()) CHECK(readFile(entry.path()).find("root:x:0:0") == std::string::npos);
}

TEST_CASE("thinlto: a distributed build's swapped index is refused", "[corpus][thinlto][errors]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build");
  fs::copy_file(build.distributed / "helper.o.thinlto.bc", build.distributed / "main.o.thinlto.bc",
                fs::copy_options::overwrite_existing);
  const ExtractSummary summary =
      extractThinLTO(build.distributed / "compile_commands.json", scratch / "corpus", ThinLTOBuild::Distributed);
  CHECK(summary.moduleNames == std::vector<std::string>{"helper.native.o"});
  CHECK(summary.skippedByReason.at("ThinLTO index unusable") == 1);
}

TEST_CASE("thinlto: a corpus module without its index fails alone, naming the file", "[corpus][thinlto][errors]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build");
  extractThinLTO(build.local, scratch / "corpus", ThinLTOBuild::Local);
  fs::remove(scratch / "corpus" / "main.o.thinlto.bc");
  const Corpus corpus = Corpus::load(scratch / "corpus");
  CHECK_THAT(test::moduleNamed(corpus, "main.o").loadError,
             Contains("main.o.thinlto.bc") && Contains("missing") && Contains("ThinLTO index"));
  CHECK(test::moduleNamed(corpus, "helper.o").loadError.empty());
}

TEST_CASE("thinlto: a module whose functions the link all dropped has nothing to compile, and says so",
          "[corpus][thinlto][errors]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build", {"unused"});
  const std::string reason = "nothing to compile (the link dropped every function of the module)";
  const ExtractSummary local = extractThinLTO(build.local, scratch / "local", ThinLTOBuild::Local);
  CHECK(local.moduleNames == std::vector<std::string>{"helper.o", "main.o"});
  const ExtractSummary distributed =
      extractThinLTO(build.distributed / "compile_commands.json", scratch / "distributed", ThinLTOBuild::Distributed);
  CHECK(distributed.moduleNames == std::vector<std::string>{"main.native.o", "helper.native.o"});
  for (const ExtractSummary *summary : {&local, &distributed}) {
    CHECK(summary->skippedByReason.count("ThinLTO index unusable") == 0);
    REQUIRE(summary->skippedByReason.count(reason) == 1);
    CHECK(summary->skippedByReason.at(reason) == 1);
    bool named = false;
    for (const std::string &warning : summary->warnings) {
      CHECK_THAT(warning, !Contains("another module's index"));
      named = named || (warning.find("unused.o") != std::string::npos && warning.find(reason) != std::string::npos);
    }
    CHECK(named);
  }
}
