#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

TEST_CASE("cli harvest: grows a pool in chunks, a second run compiles nothing, pool-info reports coverage",
          "[cli][harvest]") {
  test::ScratchDirectory scratch;
  const std::string corpus = (scratch / "corpus").string(), pool = (scratch / "pool").string();
  test::extractTestCorpus(corpus);
  auto harvest = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"harvest", "--corpus", corpus, "--pool", pool, "--budget", "16", "--no-gate",
                                  "--isolation", "thread", "--threads", "2", "--chunk", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::runProgram(test::mlgoBinary(), args);
  };
  const test::CommandOutcome first = harvest({"--limit", "3"});
  INFO(first.err);
  REQUIRE(first.exitCode == exit_code::kSuccess);
  CHECK_THAT(first.out, Contains("7 modules: 0 already in the pool, 3 harvested") && Contains("4 left for a later run"));

  const test::CommandOutcome partial =
      test::runProgram(test::mlgoBinary(), {"pool-info", "--pool", pool, "--corpus", corpus, "--budget", "16", "--json"});
  REQUIRE(partial.exitCode == exit_code::kSuccess);
  const nlohmann::json info = nlohmann::json::parse(partial.out);
  CHECK(info["entries"] == 3);
  CHECK(info["coverage"]["covered"] == 3);
  CHECK(info["coverage"]["missing"].size() == 4);

  const test::CommandOutcome rest = harvest({});
  REQUIRE(rest.exitCode == exit_code::kSuccess);
  CHECK_THAT(rest.out, Contains("3 already in the pool, 4 harvested"));
  std::string before;
  for (const auto &file : fs::directory_iterator(pool)) before += readFile(file.path());
  const test::CommandOutcome again = harvest({});
  REQUIRE(again.exitCode == exit_code::kSuccess);
  CHECK_THAT(again.out, Contains("7 already in the pool, 0 harvested") && Contains("0 compilations"));
  std::string after;
  for (const auto &file : fs::directory_iterator(pool)) after += readFile(file.path());
  CHECK(after == before);

  const test::CommandOutcome text =
      test::runProgram(test::mlgoBinary(), {"pool-info", "--pool", pool, "--corpus", corpus});
  CHECK_THAT(text.out, Contains("7 modules harvested") && Contains("coverage at budget 500 or more: 0 of 7"));
  const test::CommandOutcome covered =
      test::runProgram(test::mlgoBinary(), {"pool-info", "--pool", pool, "--corpus", corpus, "--budget", "16"});
  CHECK_THAT(covered.out, Contains("coverage at budget 16 or more: 7 of 7 modules (100.0%)"));

  // A damaged pool file stops the harvest before anything is compiled, naming it.
  writeFileAtomically(fs::path(pool) / "broken.jsonl", "{\"format\": \"something else\"}\n");
  const test::CommandOutcome damaged = harvest({});
  CHECK(damaged.exitCode == exit_code::kBadInput);
  CHECK_THAT(damaged.err, Contains("broken.jsonl") && Contains("line 1") && Contains("format"));
  const test::CommandOutcome missing = test::runProgram(test::mlgoBinary(), {"pool-info", "--pool", (scratch / "none").string()});
  CHECK(missing.exitCode == exit_code::kBadInput);
  CHECK_THAT(missing.err, Contains("none") && Contains("not a pool directory"));
}
