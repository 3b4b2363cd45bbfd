#include <catch2/catch.hpp>

#include "mlgo/eval/eval_report.h"
#include "mlgo/eval/evaluation.h"
#include "mlgo/eval/fidelity_check.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace std::chrono_literals;

TEST_CASE("eval: never inlining against the -Oz baseline", "[eval]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  CompilerDriver driver({});
  EvalOptions options;
  options.inlineMode = InlineMode::Never;
  EvalReport report = evaluateCorpus(corpus, driver, options);
  CHECK_FALSE(report.candidateIsBaseline);
  CHECK(report.compared == corpus.modules.size());
  CHECK(report.candidateTotals.sizes.text > report.baselineTotals.sizes.text);
  // Totals are the sums of the modules.
  uint64_t text = 0;
  for (const ModuleEvaluation &module : report.modules) text += module.candidate.sizes.text;
  CHECK(text == report.candidateTotals.sizes.text);

  nlohmann::json json = evalReportToJson(report, "corpus");
  CHECK(json["candidate"] == "inline never");
  CHECK(json["totals"]["compared"] == corpus.modules.size());
  CHECK(json["totals"]["candidate"]["text"] == report.candidateTotals.sizes.text);
  CHECK(json["totals"]["change"]["text"].get<double>() > 0);
  const auto &helpers = json["modules"][0];
  CHECK(helpers["name"] == "helpers.o");
  CHECK(helpers["status"] == "ok");
  CHECK(helpers["baseline"]["text+data"].get<uint64_t>() ==
        helpers["baseline"]["text"].get<uint64_t>() + helpers["baseline"]["data"].get<uint64_t>() +
            helpers["baseline"]["rodata"].get<uint64_t>());
  CHECK(helpers["inlining_decisions"].get<uint64_t>() > 0);
  const std::string table = evalReportToTable(report);
  CHECK(table.find("total (7 modules)") != std::string::npos);
}

TEST_CASE("eval: the default choice compiles once and reports no change", "[eval]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  EvalReport report = evaluateCorpus(corpus, CompilerDriver({}), EvalOptions{});
  CHECK(report.candidateIsBaseline);
  CHECK(report.candidateTotals.sizes.text == report.baselineTotals.sizes.text);
  CHECK(report.geomeanTextPlusDataChange == 0.0);
}

TEST_CASE("eval: failed modules are counted and reported, the rest compared", "[eval]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  DriverOptions options;
  options.faults.crashModule = "strings.o";
  EvalReport report = evaluateCorpus(corpus, CompilerDriver(options), EvalOptions{});
  CHECK(report.failed() == 1);
  CHECK(report.compared == corpus.modules.size() - 1);
  nlohmann::json json = evalReportToJson(report, "corpus");
  CHECK(json["modules"][5]["status"] == "failed");
  CHECK(json["modules"][5]["baseline"]["failure"] == "crash");
}

TEST_CASE("eval: the fidelity check agrees with clang on the test corpus", "[eval][fidelity]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  CompilerDriver driver({});
  EvalReport report = evaluateCorpus(corpus, driver, EvalOptions{});
  std::vector<CompileResult> baseline;
  for (const ModuleEvaluation &module : report.modules) baseline.push_back(module.baseline);
  FidelityReport fidelity = checkFidelity(corpus, baseline, test::clangPath(), 2, 60s);
  INFO(fidelityReportToText(fidelity));
  CHECK(fidelity.compared == corpus.modules.size());
  CHECK(fidelity.matching == fidelity.compared);
  CHECK(fidelity.mismatches.empty());
  // A wrong size must show up as a mismatch naming the module.
  baseline[0].sizes.text += 1;
  FidelityReport tampered = checkFidelity(corpus, baseline, test::clangPath(), 2, 60s);
  INFO(fidelityReportToText(tampered));
  REQUIRE(tampered.mismatches.size() == 1);
  CHECK(tampered.mismatches[0].name == "helpers.o");
  CHECK(fidelityReportToText(tampered).find("helpers.o") != std::string::npos);
}
