#include "mlgo/autotune/cost_calibration.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <numeric>

#include <nlohmann/json.hpp>

#include "mlgo/driver/optimization_work.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::autotune;

namespace {

const std::vector<std::string> kSources{"big_callee.c", "helpers.c", "recursion.c", "strings.c", "tables.c"};

Corpus fiveModules(const std::filesystem::path &directory) {
  std::vector<std::filesystem::path> sources;
  for (const std::string &name : kSources) sources.push_back(test::testData() / name);
  return test::sourcesCorpus(directory, sources, "-Oz");
}

}  // namespace

TEST_CASE("cost calibration: the modules with the largest function and the most code are timed", "[autotune][clang]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = fiveModules(scratch.path());
  const CorpusModule *largestFunction = nullptr, *mostCode = nullptr;
  uint64_t largest = 0, most = 0;
  size_t withCode = 0;
  for (const CorpusModule &module : corpus.modules) {
    const std::vector<uint64_t> functions = functionInstructionCounts(module.bitcodePath);
    if (functions.empty()) continue;  // data alone: nothing to time
    ++withCode;
    const uint64_t total = std::accumulate(functions.begin(), functions.end(), uint64_t(0));
    if (*std::max_element(functions.begin(), functions.end()) > largest)
      largest = *std::max_element(functions.begin(), functions.end()), largestFunction = &module;
    if (total > most) most = total, mostCode = &module;
  }
  const std::vector<const CorpusModule *> three = calibrationModules(corpus, 3);
  REQUIRE(three.size() == 3);
  CHECK(std::find(three.begin(), three.end(), largestFunction) != three.end());
  CHECK(std::find(three.begin(), three.end(), mostCode) != three.end());
  CHECK(std::is_sorted(three.begin(), three.end()));  // the corpus's order
  CHECK(calibrationModules(corpus, 10).size() == withCode);
}

TEST_CASE("cost calibration: the lists run every pass of the space, rounds times", "[autotune]") {
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  CostCalibrationOptions options;
  options.rounds = 2;
  options.listLength = 8;
  const std::vector<std::string> pipelines = calibrationPipelines(space, options);
  REQUIRE(pipelines.front().empty());  // the recorded level first
  std::map<int, int> runs;
  for (size_t i = 1; i < pipelines.size(); ++i) {
    const std::vector<int> list = space.listOfPipeline(pipelines[i], "test", "list");
    CHECK(list.size() <= 8);
    for (int pass : list) ++runs[pass];
  }
  CHECK(runs.size() == space.passes().size());
  for (const auto &[pass, count] : runs) CHECK(count == 2);

  options.pipelines = {"function(instcombine<no-verify-fixpoint>)", "function(sroa),not-a-pass"};
  try {
    calibrationPipelines(space, options, "lists.txt");
    FAIL("a list outside the space was accepted");
  } catch (const InputError &error) {
    CHECK_THAT(error.what(), Catch::Contains("lists.txt") && Catch::Contains("line 2") && Catch::Contains("not-a-pass"));
  }
}

TEST_CASE("cost calibration: the fitted model names every pass it timed, and the model's error shows",
          "[autotune][clang]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = fiveModules(scratch.path());
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  const CompilerDriver driver(test::driverThreads(1));
  CostCalibrationOptions options;
  options.modules = 3;
  options.pipelines = {"function(instcombine<no-verify-fixpoint>)", "iroutliner", "default<Oz>,default<Oz>"};
  const CostCalibration calibration = calibrateCosts(corpus, driver, space, options);
  REQUIRE(calibration.modules.size() == 3);
  REQUIRE(calibration.compiles.size() == 3 * 4);
  for (const CalibrationCompile &compile : calibration.compiles) {
    INFO(compile.module << " " << compile.pipeline);
    CHECK(compile.ok);
    CHECK(compile.measuredNanoseconds > 0);
    CHECK(compile.estimatedNanoseconds > 0);
  }
  CHECK(ratioErrors(calibration).size() == 3 * 3);

  const std::string source = costModelSource(calibration.times);
  for (const char *pass : {"InstCombinePass", "IROutlinerPass", "AlwaysInlinerPass"}) {
    INFO(pass);
    CHECK(source.find(std::string("{\"") + pass + "\", ") != std::string::npos);
  }
  // Each pass's range: the prologue runs on every function as it came.
  const std::string prologue = "{\"AlwaysInlinerPass\", ";
  const size_t entry = source.find(prologue);
  REQUIRE(entry != std::string::npos);
  const std::string line = source.substr(entry, source.find('\n', entry) - entry);
  CHECK(line.find(", " + std::to_string(calibration.times.passes.at("AlwaysInlinerPass").largestFunction) + "},") !=
        std::string::npos);
  CHECK(source.find("constexpr PassCost kPassCosts[] = {") != std::string::npos);
  CHECK(source.find("constexpr double kCodeGenerationNsPerInstruction = ") != std::string::npos);
  CHECK(source.find("constexpr double kUncalibratedNsPerInstruction = ") != std::string::npos);
  CHECK(source.find("constexpr double kLargestCalibratedFunction = " +
                    std::to_string(calibration.times.largestFunction) + ";") != std::string::npos);
}

TEST_CASE("cost calibration: mlgo calibrate-costs writes the model and reports each compile", "[autotune][clang][cli]") {
  test::ScratchDirectory scratch;
  fiveModules(scratch / "corpus");
  writeFileAtomically(scratch / "lists.txt", "# a store's choices\nfunction(sroa),iroutliner\n");
  const test::CommandOutcome run =
      test::runMlgo({"calibrate-costs", "--corpus", (scratch / "corpus").string(), "--modules", "3", "--pipelines",
                     (scratch / "lists.txt").string(), "--output", (scratch / "pass_costs.inc").string(), "--report",
                     (scratch / "compiles.jsonl").string()});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  const nlohmann::json summary = nlohmann::json::parse(run.out);
  CHECK(summary["modules"] == 3);
  CHECK(summary["compiles"] == 6);
  CHECK(summary["failed"] == 0);
  CHECK(summary["model_ratio_error"]["lists"] == 3);
  CHECK(readFile(scratch / "pass_costs.inc").find("IROutlinerPass") != std::string::npos);
  size_t lines = 0;
  forEachLine(readFile(scratch / "compiles.jsonl"), [&lines](size_t, std::string_view line) {
    const nlohmann::json compile = nlohmann::json::parse(line);
    CHECK(compile["measured_ns"].get<uint64_t>() > 0);
    lines += compile["ok"].get<bool>() ? 1 : 0;
  });
  CHECK(lines == 6);

  writeFileAtomically(scratch / "bad.txt", "function(sroa),rm-rf\n");
  const test::CommandOutcome bad = test::runMlgo({"calibrate-costs", "--corpus", (scratch / "corpus").string(),
                                                  "--pipelines", (scratch / "bad.txt").string()});
  CHECK(bad.exitCode != 0);
  CHECK_THAT(bad.err, Catch::Contains("bad.txt") && Catch::Contains("line 1") && Catch::Contains("rm-rf"));
}
