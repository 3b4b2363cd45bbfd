#include <catch2/catch.hpp>

#include <regex>

#include "mlgo/eval/eval_report.h"
#include "mlgo/eval/evaluation.h"
#include "mlgo/eval/fidelity_check.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace std::chrono_literals;

TEST_CASE("eval: never inlining against the -Oz baseline", "[eval]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  CompilerDriver driver({});
  EvalOptions options;
  options.candidateHooks = findProblem("inlining").fixedChoiceHooks("never");
  options.candidateDescription = "inline never";
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

TEST_CASE("eval: a regalloc policy against LLVM's default evictions, compared by the regalloc score",
          "[eval][regalloc]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::regallocTracedCorpus(scratch / "corpus", scratch / "trace");
  // Evicting the last allowed position (nothing, where LLVM allows that) is
  // a legal policy and a poor one: the allocator splits or spills instead.
  test::regallocPolicyScoringBy("position").save(scratch / "never-evict");
  EvalOptions options;
  options.problem = &findProblem("regalloc");
  options.candidateHooks = findProblem("regalloc").policyHooks(scratch / "never-evict");
  options.candidateDescription = "policy never-evict";
  const EvalReport report = evaluateCorpus(corpus, CompilerDriver(test::driverThreads(2)), options);
  REQUIRE(report.compared == corpus.modules.size());

  // The baseline is the default trace's compile: the same score, module by module.
  const nlohmann::json baselines = nlohmann::json::parse(readFile(scratch / "trace" / "baselines.json"));
  double traced = 0;
  for (const ModuleEvaluation &module : report.modules) {
    CHECK(module.baselineMeasures.at("regalloc_score") ==
          baselines["measures"]["regalloc_score"][module.name].get<double>());
    traced += module.baselineMeasures.at("regalloc_score");
    CHECK(module.decisions > 0);
  }
  CHECK(report.baselineMeasureTotals.at("regalloc_score") == Approx(traced));
  CHECK(report.candidateMeasureTotals.at("regalloc_score") > report.baselineMeasureTotals.at("regalloc_score"));

  const nlohmann::json json = evalReportToJson(report, "corpus");
  CHECK(json["problem"] == "regalloc");
  CHECK(json["totals"]["measures"]["change"]["regalloc_score"].get<double>() > 0);
  CHECK(json["modules"][0]["measures"]["candidate"]["regalloc_score"].get<double>() > 0);
  CHECK(evalReportToTable(report).find("regalloc_score: ") != std::string::npos);

  // From the command line; a policy of another problem, and inlining's flags, are refused.
  const std::string corpusPath = corpus.directory.string();
  const auto cli = test::runMlgo({"eval", "--problem", "regalloc", "--corpus", corpusPath, "--policy",
                                  (scratch / "never-evict").string()});
  CHECK(cli.exitCode == 0);
  CHECK(cli.out.find("regalloc_score: ") != std::string::npos);
  // The policy directory records its problem: --problem may be left out.
  const auto fromPolicy =
      test::runMlgo({"eval", "--corpus", corpusPath, "--policy", (scratch / "never-evict").string()});
  CHECK(fromPolicy.exitCode == 0);
  // The same report but for the wall time it states.
  auto withoutTime = [](const std::string &out) { return std::regex_replace(out, std::regex("[0-9.]+ s on"), "s on"); };
  CHECK(withoutTime(fromPolicy.out) == withoutTime(cli.out));
  const auto inline_ = test::runMlgo({"eval", "--problem", "regalloc", "--corpus", corpusPath, "--inline", "never"});
  CHECK(inline_.exitCode == 2);
  CHECK(inline_.err.find("--inline") != std::string::npos);
  test::TracedTestCorpus inlining;
  test::randomInliningPolicy(inlining, 2).save(scratch / "inlining-policy");
  const auto wrong = test::runMlgo({"eval", "--problem", "regalloc", "--corpus", corpusPath, "--policy",
                                    (scratch / "inlining-policy").string()});
  CHECK(wrong.exitCode == 3);
  CHECK(wrong.err.find("inlining-policy/policy.json: problem: the policy is for inlining, not regalloc") !=
        std::string::npos);
}
