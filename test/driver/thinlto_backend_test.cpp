#include <catch2/catch.hpp>

#include "mlgo/corpus/extract_ir.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/driver/object_sizes.h"
#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/problems/inlining/fixed_policies.h"
#include "mlgo/problems/inlining/inlining_hook.h"
#include "mlgo/support/atomic_file.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

Corpus extractThinLTO(const fs::path &input, const fs::path &output, ThinLTOBuild flavour) {
  ExtractOptions options;
  options.input = input;
  options.outputDirectory = output;
  options.thinlto = flavour;
  extractIR(options);
  return Corpus::load(output);
}

uint64_t textOf(const fs::path &object) {
  SectionSizes sizes;
  std::string error;
  REQUIRE(measureObjectSizes(readFile(object), sizes, error));
  return sizes.text;
}

CompileResult compileWith(const CompilerDriver &driver, const CorpusModule &module, inlining::FixedChoice choice) {
  CompileRequest request{&module, "", {}};
  request.hooks.push_back(std::make_shared<inlining::InliningHook>(inlining::makeFixedPolicy(choice)));
  return driver.compile(request);
}

}  // namespace

TEST_CASE("thinlto: .text equals what each flavour's real backend produced", "[driver][thinlto][fidelity]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build");
  const Corpus local = extractThinLTO(build.local, scratch / "local", ThinLTOBuild::Local);
  const Corpus distributed =
      extractThinLTO(build.distributed / "compile_commands.json", scratch / "distributed", ThinLTOBuild::Distributed);
  CompilerDriver driver({});
  for (const std::string stem : {"main", "helper"}) {
    INFO(stem);
    const CompileResult fromLocal = driver.compile({&test::moduleNamed(local, stem + ".o"), "", {}});
    REQUIRE(fromLocal.ok());
    CHECK(fromLocal.sizes.text == textOf(build.localBackendObject(stem)));
    const CompileResult fromDistributed =
        driver.compile({&test::moduleNamed(distributed, stem + ".native.o"), "", {}});
    REQUIRE(fromDistributed.ok());
    CHECK(fromDistributed.sizes.text == textOf(build.distributedBackendObject(stem)));
  }
}

TEST_CASE("thinlto: the driver equals clang -cc1 compiling the module as the ThinLTO backend",
          "[driver][thinlto][fidelity]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build");
  const Corpus corpus = extractThinLTO(build.local, scratch / "corpus", ThinLTOBuild::Local);
  CompilerDriver driver({});
  for (const CorpusModule &module : corpus.modules) {
    INFO(module.name);
    const CompileResult ours = driver.compile({&module, "", {}});
    const CompileResult clang = compileWithClangSubprocess(test::clangPath(), module, scratch.path(), 60s);
    INFO(ours.message << clang.message);
    REQUIRE(ours.ok());
    REQUIRE(clang.ok());
    CHECK(ours.sizes.text == clang.sizes.text);
  }
}

TEST_CASE("thinlto: inlining hooks decide the imported call sites", "[driver][thinlto][inlining]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build");
  const Corpus corpus = extractThinLTO(build.local, scratch / "corpus", ThinLTOBuild::Local);
  const CorpusModule &main = test::moduleNamed(corpus, "main.o");
  CompilerDriver driver({});
  const CompileResult plain = driver.compile({&main, "", {}});
  const CompileResult viaDefault = compileWith(driver, main, inlining::FixedChoice::Default);
  const CompileResult never = compileWith(driver, main, inlining::FixedChoice::Never);
  // main.c calls only helper.c's functions: every decision is about an
  // imported callee, and the default heuristic inlines some of them.
  CHECK(viaDefault.decisions > 0);
  CHECK(viaDefault.sizes.text == plain.sizes.text);
  CHECK(never.sizes.text != plain.sizes.text);
}

TEST_CASE("thinlto: another module's index fails the module, naming the file", "[driver][thinlto][errors]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build");
  extractThinLTO(build.local, scratch / "corpus", ThinLTOBuild::Local);
  fs::copy_file(scratch / "corpus" / "helper.o.thinlto.bc", scratch / "corpus" / "main.o.thinlto.bc",
                fs::copy_options::overwrite_existing);
  writeFileAtomically(scratch / "corpus" / "helper.o.thinlto.bc", "not an index");
  const Corpus corpus = Corpus::load(scratch / "corpus");
  CompilerDriver driver({});
  const CompileResult main = driver.compile({&test::moduleNamed(corpus, "main.o"), "", {}});
  CHECK(main.failure == FailureKind::InvalidInput);
  CHECK_THAT(main.message, Contains("main.o.thinlto.bc") && Contains("not this module's index") &&
                               Contains("'main'"));
  const CompileResult helper = driver.compile({&test::moduleNamed(corpus, "helper.o"), "", {}});
  CHECK(helper.failure == FailureKind::InvalidInput);
  CHECK_THAT(helper.message, Contains("helper.o.thinlto.bc") && Contains("cannot be read"));
}

TEST_CASE("thinlto: the memo key covers the index", "[driver][thinlto][memo]") {
  test::ScratchDirectory scratch;
  const test::ThinLTOTestBuild build = test::buildThinLTOTestProgram(scratch / "build");
  const Corpus corpus = extractThinLTO(build.local, scratch / "corpus", ThinLTOBuild::Local);
  const CorpusModule &main = test::moduleNamed(corpus, "main.o");
  const std::string before = CompilerDriver::requestMemoKey({&main, "", {}});
  writeFileAtomically(main.thinltoIndexPath, readFile(test::moduleNamed(corpus, "helper.o").thinltoIndexPath));
  CHECK_FALSE(before.empty());
  CHECK(CompilerDriver::requestMemoKey({&main, "", {}}) != before);
}
