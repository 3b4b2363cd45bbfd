#include <cstdio>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "mlgo/autotune/correctness_gate.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/text_input.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

TEST_CASE("cli pass prediction: sweep, coreset, train, predict, eval --pass-lists and autotune --strategy predicted",
          "[cli][predictor]") {
  test::ScratchDirectory scratch;
  const std::string corpus = (scratch / "corpus").string();
  test::extractTestCorpus(corpus);
  writeFileAtomically(scratch / "pool.txt", "default<Oz> mergefunc\nmem2reg\ndefault<O1>\ndefault<Os>\n");
  // A gate of three programs: one C, two C++ (one of which `mem2reg` alone leaves unlinkable).
  fs::create_directories(scratch / "programs");
  for (const char *program : {"avl_order_stats.c", "ast_interpreter.cpp"})
    fs::copy_file(autotune::defaultGatePrograms() / program, scratch / "programs" / program);
  fs::copy_file(test::testData() / "gate" / "extern_template.cpp", scratch / "programs" / "extern_template.cpp");
  auto sweepArguments = [&](const std::string &output, const std::string &threads) {
    return std::vector<std::string>{"sweep-passes", "--corpus", corpus, "--lists", (scratch / "pool.txt").string(),
                                    "--output", (scratch / output).string(), "--gate-programs",
                                    (scratch / "programs").string(), "--threads", threads};
  };
  const test::CommandOutcome swept = test::runProgram(test::mlgoBinary(), sweepArguments("sweep", "2"));
  INFO(swept.err);
  REQUIRE(swept.exitCode == exit_code::kSuccess);
  CHECK_THAT(swept.out, Contains("swept 4 lists over 7 of 7 modules"));
  CHECK_THAT(swept.out, Contains("1 lists rejected (1 only for C++ link failures)"));
  REQUIRE(test::runProgram(test::mlgoBinary(), sweepArguments("sweep1", "1")).exitCode == exit_code::kSuccess);
  CHECK(readFile(scratch / "sweep" / "sweep.json") == readFile(scratch / "sweep1" / "sweep.json"));

  const std::string coreset = (scratch / "coreset.json").string();
  const test::CommandOutcome selected =
      test::runProgram(test::mlgoBinary(),
                       {"select-coreset", "--sweep", (scratch / "sweep").string(), "--output", coreset, "--size", "3"});
  INFO(selected.err);
  REQUIRE(selected.exitCode == exit_code::kSuccess);
  const nlohmann::json coresetJson = readJsonFile(coreset);
  REQUIRE_FALSE(coresetJson["lists"].empty());
  // --fill: the same lists first, then those the greedy choice left out that gain somewhere.
  const std::string candidates = (scratch / "candidates.json").string();
  const test::CommandOutcome filled = test::runProgram(
      test::mlgoBinary(),
      {"select-coreset", "--sweep", (scratch / "sweep").string(), "--output", candidates, "--size", "4", "--fill"});
  INFO(filled.err);
  REQUIRE(filled.exitCode == exit_code::kSuccess);
  const nlohmann::json candidatesJson = readJsonFile(candidates);
  REQUIRE(candidatesJson["lists"].size() >= coresetJson["lists"].size());
  for (size_t k = 0; k < coresetJson["lists"].size(); ++k)
    CHECK(candidatesJson["lists"][k]["pipeline"] == coresetJson["lists"][k]["pipeline"]);
  CHECK(candidatesJson["oracle_geomean_change"] == coresetJson["oracle_geomean_change"]);

  const std::string predictor = (scratch / "predictor").string();
  const test::CommandOutcome trained = test::runProgram(
      test::mlgoBinary(), {"train-pass-predictor", "--sweep", (scratch / "sweep").string(), "--coreset", coreset,
                           "--output", predictor, "--set", "epochs=100"});
  INFO(trained.err);
  REQUIRE(trained.exitCode == exit_code::kSuccess);
  // 7 modules, each its own project (no PROJECT/ in their names): one fold each, then all 7 trained on.
  CHECK_THAT(trained.out,
             Contains("validated on 7 modules of 7 projects in 7 folds") && Contains("trained on 7 modules"));
  const std::string ranking = readJsonFile(fs::path(predictor) / "predictor.json")["ranking"];
  CHECK_THAT(trained.out, Contains("it ranks by the " + ranking));

  // Zero-shot: the first-ranked list of every module, without compiling; eval applies it.
  auto predict = [&](const std::string &json, const std::string &threads) {
    return test::runProgram(test::mlgoBinary(), {"predict-passes", "--corpus", corpus, "--predictor", predictor,
                                                 "--json", (scratch / json).string(), "--threads", threads});
  };
  const test::CommandOutcome predicted = predict("predicted.json", "2");
  INFO(predicted.err);
  REQUIRE(predicted.exitCode == exit_code::kSuccess);
  CHECK_THAT(predicted.out, Contains("-passes='"));
  CHECK_THAT(predicted.err, Contains("ranked by the " + ranking));
  REQUIRE(predict("predicted1.json", "1").exitCode == exit_code::kSuccess);
  CHECK(predicted.out == predict("predicted1.json", "1").out);
  const nlohmann::json predictions = readJsonFile(scratch / "predicted.json");
  REQUIRE(predictions["modules"].size() == 7);
  CHECK(predictions["ranking"] == ranking);
  for (const auto &module : predictions["modules"]) {
    INFO(module.dump());
    REQUIRE(module["status"] == "ok");
    bool inCoreset = false;
    for (const auto &list : coresetJson["lists"]) inCoreset = inCoreset || list["pipeline"] == module["pipeline"];
    CHECK(inCoreset);
    // The C-only list is never predicted for the C++ module.
    if (module["name"] == "shapes.o") CHECK(module["pipeline"] != "function(mem2reg)");
  }
  // What the rankings give on the sweep, without compiling. With every list
  // (K = 3 covers the coreset) both rankings reach each module's best coreset
  // list, which on the sweep the coreset was chosen on is select-coreset's oracle.
  const test::CommandOutcome scored =
      test::runProgram(test::mlgoBinary(), {"predict-passes", "--corpus", corpus, "--predictor", predictor, "--sweep",
                                            (scratch / "sweep").string(), "--top", "3"});
  INFO(scored.err);
  REQUIRE(scored.exitCode == exit_code::kSuccess);
  char oracle[32];
  std::snprintf(oracle, sizeof oracle, "%+.2f%%", 100 * coresetJson["oracle_geomean_change"].get<double>());
  const std::string coresetSize = std::to_string(coresetJson["lists"].size());
  CHECK_THAT(scored.out, Contains("7 of 7 ranked modules") && Contains("geomean text+data vs -Oz") &&
                             Contains("best of the " + coresetSize + " coreset lists: " + oracle));
  CHECK_THAT(scored.out, !Contains("-passes='"));
  const size_t lastRow = scored.out.find("\n   3  ");
  REQUIRE(lastRow != std::string::npos);
  const std::string row = scored.out.substr(lastRow + 1, scored.out.find('\n', lastRow + 1) - lastRow - 1);
  INFO(scored.out);
  CHECK(row.find(oracle) != row.rfind(oracle));  // in both columns
  // A sweep without the coreset's lists is refused before anything is ranked.
  writeFileAtomically(scratch / "other-pool.txt", "default<O2>\n");
  REQUIRE(test::runProgram(test::mlgoBinary(),
                           {"sweep-passes", "--corpus", corpus, "--lists", (scratch / "other-pool.txt").string(),
                            "--output", (scratch / "other-sweep").string(), "--no-gate"})
              .exitCode == exit_code::kSuccess);
  const test::CommandOutcome lacking = test::runProgram(
      test::mlgoBinary(),
      {"predict-passes", "--corpus", corpus, "--predictor", predictor, "--sweep", (scratch / "other-sweep").string()});
  CHECK(lacking.exitCode == exit_code::kBadInput);
  CHECK_THAT(lacking.err, Contains("no column for the coreset's list"));

  const test::CommandOutcome evaluated =
      test::runProgram(test::mlgoBinary(), {"eval", "--corpus", corpus, "--pass-lists",
                                            (scratch / "predicted.json").string(), "--json",
                                            (scratch / "eval.json").string()});
  INFO(evaluated.err);
  CHECK(evaluated.exitCode == exit_code::kSuccess);

  // The predicted strategy: the first ranked lists and -Oz, never larger than -Oz.
  const test::CommandOutcome tuned = test::runProgram(
      test::mlgoBinary(), {"autotune", "--corpus", corpus, "--output", (scratch / "tuned").string(), "--strategy",
                           "predicted", "--predictor", predictor, "--budget", "2", "--threads", "2"});
  INFO(tuned.err);
  REQUIRE(tuned.exitCode == exit_code::kSuccess);
  const nlohmann::json best = readJsonFile(scratch / "tuned" / "best.json");
  CHECK(best["strategy"] == "predicted");
  for (const auto &module : best["modules"]) {
    INFO(module.dump());
    CHECK(module["compilations"].get<size_t>() <= 3);
    CHECK(module["best"]["text+data"].get<uint64_t>() <= module["oz"]["text+data"].get<uint64_t>());
  }

  // A predictor of another version is refused, naming the file.
  nlohmann::json metadata = readJsonFile(fs::path(predictor) / "predictor.json");
  metadata["version"] = 99;
  writeFileAtomically(fs::path(predictor) / "predictor.json", metadata.dump());
  const test::CommandOutcome refused = predict("refused.json", "1");
  CHECK(refused.exitCode == exit_code::kBadInput);
  CHECK_THAT(refused.err, Contains("predictor.json: version: a predictor of version 99"));
  CHECK(test::runProgram(test::mlgoBinary(), {"autotune", "--corpus", corpus, "--output", (scratch / "x").string(),
                                               "--predictor", predictor})
            .exitCode == exit_code::kUsage);  // --predictor without the predicted strategy
}

TEST_CASE("cli select-coreset and train-pass-predictor: an ungated sweep needs --allow-ungated, or nothing is written",
          "[cli][predictor]") {
  test::ScratchDirectory scratch;
  const std::string corpus = (scratch / "corpus").string();
  test::extractTestCorpus(corpus);
  writeFileAtomically(scratch / "pool.txt", "default<Oz> mergefunc\nmem2reg\n");
  const auto swept = test::runMlgo({"sweep-passes", "--corpus", corpus, "--lists", (scratch / "pool.txt").string(),
                                    "--output", (scratch / "sweep").string(), "--no-gate"});
  REQUIRE(swept.exitCode == exit_code::kSuccess);
  // Ungated lists are usable only when asked for.
  const std::string coreset = (scratch / "coreset.json").string();
  const auto refused = test::runMlgo({"select-coreset", "--sweep", (scratch / "sweep").string(), "--output", coreset});
  CHECK(refused.exitCode == exit_code::kBadInput);
  CHECK_THAT(refused.err, Contains("sweep.json") && Contains("--allow-ungated") && Contains("nothing was written"));
  CHECK_FALSE(fs::exists(coreset));

  // The predictor's trainer refuses the same lists.
  REQUIRE(test::runMlgo({"select-coreset", "--sweep", (scratch / "sweep").string(), "--output", coreset,
                         "--allow-ungated"})
              .exitCode == exit_code::kSuccess);
  auto train = [&](const std::string &output, bool allowUngated) {
    std::vector<std::string> args{"train-pass-predictor", "--sweep", (scratch / "sweep").string(), "--coreset",
                                  coreset, "--output", (scratch / output).string(), "--set", "epochs=5"};
    if (allowUngated) args.push_back("--allow-ungated");
    return test::runMlgo(args);
  };
  const auto ungated = train("predictor", false);
  CHECK(ungated.exitCode == exit_code::kBadInput);
  CHECK_THAT(ungated.err, Contains("sweep.json: lists[") && Contains("never gated") && Contains("--allow-ungated") &&
                              Contains("nothing was written"));
  CHECK_FALSE(fs::exists(scratch / "predictor"));
  const auto allowed = train("allowed", true);
  INFO(allowed.err);
  CHECK(allowed.exitCode == exit_code::kSuccess);
  CHECK(fs::exists(scratch / "allowed" / "predictor.json"));
}
