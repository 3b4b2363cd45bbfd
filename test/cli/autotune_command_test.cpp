#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/text_input.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

TEST_CASE("cli autotune: list, tune, dataset, eval --pass-lists, usage errors", "[cli][autotune]") {
  const test::CommandOutcome list = test::runProgram(test::mlgoBinary(), {"autotune", "--list-passes"});
  CHECK(list.exitCode == exit_code::kSuccess);
  size_t lines = 0, included = 0;
  forEachLine(list.out, [&](size_t, std::string_view line) {
    ++lines;
    included += line.rfind("include\t", 0) == 0;
  });
  CHECK(lines > 300);
  CHECK(included == 121);

  test::ScratchDirectory scratch;
  const std::string corpus = (scratch / "corpus").string();
  REQUIRE(test::runProgram(test::mlgoBinary(),
                           {"extract-ir", "--input", (test::testProject() / "compile_commands.json").string(),
                            "--output-dir", corpus})
              .exitCode == exit_code::kSuccess);
  const test::CommandOutcome tuned = test::runProgram(
      test::mlgoBinary(), {"autotune", "--corpus", corpus, "--output", (scratch / "tuned").string(), "--budget", "40",
                           "--no-gate", "--dataset", (scratch / "dataset.jsonl").string(), "--threads", "2"});
  INFO(tuned.err);
  REQUIRE(tuned.exitCode == exit_code::kSuccess);
  CHECK_THAT(tuned.out, Catch::Contains("7 modules"));
  const nlohmann::json best = nlohmann::json::parse(readFile(scratch / "tuned" / "best.json"));
  CHECK(best["summary"]["modules"] == 7);
  CHECK(best["budget"] == 40);
  REQUIRE(best["summary"]["improved"].get<int>() > 0);
  size_t datasetLines = 0;
  forEachLine(readFile(scratch / "dataset.jsonl"), [&](size_t, std::string_view line) {
    const nlohmann::json entry = nlohmann::json::parse(line);
    CHECK(entry["ir"].get<std::string>().find("target triple = \"x86_64") != std::string::npos);
    CHECK(entry["size_best"].get<uint64_t>() <= entry["size_oz"].get<uint64_t>());
    ++datasetLines;
  });
  CHECK(datasetLines == 7);

  const test::CommandOutcome eval = test::runProgram(
      test::mlgoBinary(), {"eval", "--corpus", corpus, "--pass-lists", (scratch / "tuned" / "best.json").string()});
  CHECK(eval.exitCode == exit_code::kSuccess);
  CHECK_THAT(eval.out, Catch::Contains("pass lists"));

  CHECK(test::runProgram(test::mlgoBinary(), {"autotune", "--output", "x"}).exitCode == exit_code::kUsage);
  CHECK(test::runProgram(test::mlgoBinary(), {"autotune", "--corpus", corpus, "--output", "x", "--budget", "1"})
            .exitCode == exit_code::kUsage);
  CHECK(test::runProgram(test::mlgoBinary(), {"autotune", "--corpus", corpus, "--output", "x", "--metric", "bss"})
            .exitCode == exit_code::kUsage);
  // A budget no run could spend is a typo, refused before anything runs.
  for (const std::vector<std::string> &command : std::vector<std::vector<std::string>>{
           {"autotune", "--corpus", corpus, "--output", "x"},
           {"harvest", "--corpus", corpus, "--pool", "x"},
           {"explore", "--corpus", corpus, "--output", "x"}}) {
    INFO(command.front());
    std::vector<std::string> args = command;
    args.insert(args.end(), {"--budget", "4294967296"});
    const test::CommandOutcome huge = test::runProgram(test::mlgoBinary(), args);
    CHECK(huge.exitCode == exit_code::kUsage);
    CHECK_THAT(huge.err, Catch::Contains("at most 100000") && Catch::Contains("4294967296"));
  }
  CHECK_FALSE(std::filesystem::exists("x"));
  writeFileAtomically(scratch / "bad.json", "{}");
  const test::CommandOutcome bad = test::runProgram(
      test::mlgoBinary(), {"eval", "--corpus", corpus, "--pass-lists", (scratch / "bad.json").string()});
  CHECK(bad.exitCode == exit_code::kBadInput);
  CHECK_THAT(bad.err, Catch::Contains("bad.json"));
}

TEST_CASE("cli autotune: worker processes give the in-process result and survive heap corruption",
          "[cli][autotune][isolation]") {
  test::ScratchDirectory scratch;
  const std::string corpus = (scratch / "corpus").string();
  test::extractTestCorpus(corpus);
  auto tune = [&](const std::string &name, std::vector<std::string> extra) {
    std::vector<std::string> args{"autotune", "--corpus", corpus, "--output", (scratch / name).string(),
                                  "--budget", "16", "--no-gate", "--threads", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::runProgram(test::mlgoBinary(), args);
  };
  auto modules = [&](const std::string &name) {
    nlohmann::json best = nlohmann::json::parse(readFile(scratch / name / "best.json"));
    return best["modules"];
  };

  const test::CommandOutcome inProcess = tune("thread", {"--isolation", "thread"});
  const test::CommandOutcome inWorkers = tune("process", {});  // the default
  INFO(inProcess.err << inWorkers.err);
  REQUIRE(inProcess.exitCode == exit_code::kSuccess);
  REQUIRE(inWorkers.exitCode == exit_code::kSuccess);
  CHECK(modules("thread") == modules("process"));

  // Every compile of helpers.o double-frees: in-process that leaves glibc's
  // arena lock held (the next allocation would wait forever); in workers the
  // module fails and the run finishes.
  const test::CommandOutcome corrupted = tune("heap", {"--inject-fault", "heap:helpers.o"});
  INFO(corrupted.err);
  CHECK(corrupted.exitCode == exit_code::kPartialFailure);
  CHECK_THAT(corrupted.err, Catch::Contains("helpers.o") && Catch::Contains("lost to crashes"));
  size_t tuned = 0;
  for (const nlohmann::json &module : modules("heap")) {
    if (module["name"] == "helpers.o") {
      CHECK(module["status"] != "ok");
    } else {
      CHECK(module["status"] == "ok");
      ++tuned;
    }
  }
  CHECK(tuned == 6);
}

TEST_CASE("cli autotune and sweep-passes: every module failing is exit 1, and the earlier results stay",
          "[cli][autotune][errors]") {
  test::ScratchDirectory scratch;
  const Corpus good = test::extractTestCorpus(scratch / "good");
  // Two modules whose bitcode is not bitcode: every compile fails.
  const std::string corpus = (scratch / "broken").string();
  for (const char *name : {"a.o", "b.o"})
    test::writeModule(corpus, name, "not bitcode", test::moduleNamed(good, "helpers.o").commandLine);
  writeCorpusDescription(corpus, {"a.o", "b.o"}, false);
  writeFileAtomically(scratch / "tuned/best.json", "earlier");
  writeFileAtomically(scratch / "pool.txt", "default<Oz> mergefunc\n");

  const auto tuned = test::runMlgo({"autotune", "--corpus", corpus, "--output", (scratch / "tuned").string(),
                                    "--budget", "4", "--no-gate"});
  CHECK(tuned.exitCode == exit_code::kFailure);
  CHECK_THAT(tuned.err, Catch::Contains("every module failed") && Catch::Contains("a.o"));
  CHECK(readFile(scratch / "tuned/best.json") == "earlier");

  const auto swept = test::runMlgo({"sweep-passes", "--corpus", corpus, "--lists", (scratch / "pool.txt").string(),
                                    "--output", (scratch / "swept").string(), "--no-gate"});
  CHECK(swept.exitCode == exit_code::kFailure);
  CHECK_THAT(swept.err, Catch::Contains("every module failed"));
  CHECK_FALSE(fs::exists(scratch / "swept/sweep.json"));
}
