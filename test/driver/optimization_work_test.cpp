#include <catch2/catch.hpp>

#include "mlgo/driver/compiler_driver.h"
#include "mlgo/driver/optimization_work.h"
#include <nlohmann/json.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/text_input.h"
#include "support/test_environment.h"

using namespace mlgo;

namespace {

uint64_t workOf(const CompilerDriver &driver, const CorpusModule &module, const std::string &pipeline) {
  auto work = std::make_shared<OptimizationWork>();
  const CompileResult result = driver.compile({&module, pipeline, {work}});
  REQUIRE(result.ok());
  return work->estimatedNanoseconds();
}

}  // namespace

TEST_CASE("optimization work: the same on every compile, and larger for a longer pipeline", "[driver][clang]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch.path(), test::testData() / "big_callee.c");
  const CompilerDriver driver(test::driverThreads(1));
  const CorpusModule &module = corpus.modules.front();
  const uint64_t recorded = workOf(driver, module, "");
  CHECK(recorded > 0);
  CHECK(workOf(driver, module, "") == recorded);
  const uint64_t once = workOf(driver, module, "default<Oz>");
  const uint64_t twice = workOf(driver, module, "default<Oz>,default<Oz>");
  const uint64_t short_ = workOf(driver, module, "function(sroa)");
  CHECK(twice > once);
  CHECK(short_ < once);
  CHECK(short_ > 0);
}

namespace {

/// C source of `functions` functions of `statements` statements each.
std::string functionsOf(int functions, int statements) {
  std::string source = "int table[7];\n";
  for (int f = 0; f < functions; ++f) {
    source += "int f" + std::to_string(f) + "(int acc) {\n";
    for (int s = 0; s < statements; ++s)
      source += "  acc = acc * " + std::to_string(31 + s % 5) + " + (table[" + std::to_string(s % 7) + "] ^ " +
                std::to_string(s) + ");\n";
    source += "  return acc;\n}\n";
  }
  return source;
}

}  // namespace

TEST_CASE("optimization work: a module pass costs the square of each function, not of the module",
          "[driver][clang]") {
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch.path() / "one.c", functionsOf(1, 400));
  writeFileAtomically(scratch.path() / "eight.c", functionsOf(8, 50));
  const Corpus one = test::singleSourceCorpus(scratch.path() / "one", scratch.path() / "one.c");
  const Corpus eight = test::singleSourceCorpus(scratch.path() / "eight", scratch.path() / "eight.c");
  const CompilerDriver driver(test::driverThreads(1));
  // Per instruction of the module the pass is given (a list that does nothing).
  auto perInstruction = [&driver](const CorpusModule &module, const std::string &pipeline) {
    const CompileResult unchanged = driver.compile({&module, "no-op-module", {}});
    REQUIRE(unchanged.ok());
    REQUIRE(unchanged.irInstructions > 0);
    return double(workOf(driver, module, pipeline)) / double(unchanged.irInstructions);
  };
  // The same instructions in one function or in eight: the IR outliner,
  // whose time the calibration found growing with the square of a function,
  // costs several times as much per instruction on the one (squaring the
  // module would price both alike).
  CHECK(perInstruction(one.modules.front(), "iroutliner") > 2 * perInstruction(eight.modules.front(), "iroutliner"));
}

TEST_CASE("optimization work: mlgo ir-counts gives each defined function's instructions, as llvm-dis lists them",
          "[driver][clang][cli]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch.path(), test::testData() / "big_callee.c");
  const std::filesystem::path bitcode = corpus.modules.front().bitcodePath;
  // llvm-dis's listing: a function's instructions are its lines indented by
  // two spaces; a switch's cases continue on deeper lines, and "  ]" ends them.
  const test::CommandOutcome listing = test::runProgram("/usr/bin/llvm-dis-19", {bitcode.string(), "-o", "-"});
  REQUIRE(listing.exitCode == 0);
  std::vector<uint64_t> listed;
  bool inFunction = false;
  forEachLine(listing.out, [&](size_t, std::string_view line) {
    if (line.rfind("define ", 0) == 0) {
      listed.push_back(0);
      inFunction = true;
    } else if (inFunction && line.rfind("}", 0) == 0) {
      inFunction = false;
    } else if (inFunction && line.size() > 2 && line.rfind("  ", 0) == 0 && line[2] != ' ' && line[2] != ';' &&
               line[2] != ']') {
      ++listed.back();
    }
  });
  REQUIRE(listed.size() > 1);
  CHECK(functionInstructionCounts(bitcode) == listed);

  const test::CommandOutcome counted = test::runMlgo({"ir-counts", bitcode.string()});
  REQUIRE(counted.exitCode == 0);
  const nlohmann::json line = nlohmann::json::parse(counted.out);
  CHECK(line["file"] == bitcode.string());
  CHECK(line["functions"].get<std::vector<uint64_t>>() == listed);

  writeFileAtomically(scratch / "not.bc", "not bitcode");
  const test::CommandOutcome refused = test::runMlgo({"ir-counts", bitcode.string(), (scratch / "not.bc").string()});
  CHECK(refused.exitCode == 3);
  CHECK_THAT(refused.err, Catch::Contains("not.bc") && Catch::Contains("not LLVM bitcode"));
  CHECK(refused.out.empty());  // nothing printed before every file was read
}
