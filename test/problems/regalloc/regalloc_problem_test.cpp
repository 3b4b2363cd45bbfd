#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <sstream>

#include "mlgo/policy/position_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/problems/regalloc/eviction_hook.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/text_input.h"
#include "mlgo/tracing/default_trace.h"
#include "mlgo/trace/trace_reader.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

DefaultTraceSummary traceRegalloc(const Corpus &corpus, const fs::path &output, unsigned threads) {
  DefaultTraceOptions options;
  options.output = output;
  options.shards = 2;
  return runDefaultTrace(corpus, CompilerDriver(test::driverThreads(threads)), findProblem("regalloc"), options);
}

std::string readBytes(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace

TEST_CASE("regalloc problem: default-trace records LLVM's default evictions with their masks", "[regalloc]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "regalloc/pressure.c", "-O2");
  const DefaultTraceSummary summary = traceRegalloc(corpus, scratch / "trace", 1);
  REQUIRE(summary.failures.empty());
  REQUIRE(summary.decisions > 10);

  trace::TraceReader reader(scratch / "trace");
  CHECK(reader.problem() == "regalloc");
  CHECK(reader.decisionSpec() == regalloc::decisionSpec());
  uint64_t decisions = 0;
  reader.forEachModule([&](const trace::ModuleTrace &module) {
    for (size_t d = 0; d < module.decisions(); ++d) {
      ++decisions;
      // The action is the default's, and the mask (the first tensor) allows it.
      CHECK(module.actions[d] == module.defaultDecisions[d]);
      int64_t allowed;
      std::memcpy(&allowed, module.featuresOf(d) + module.defaultDecisions[d], sizeof allowed);
      CHECK(allowed == 1);
    }
  });
  CHECK(decisions == summary.decisions);
  // baselines.json: LLVM's regalloc score beside the text size.
  const nlohmann::json baselines = nlohmann::json::parse(readBytes(scratch / "trace" / "baselines.json"));
  CHECK(baselines["measures"]["regalloc_score"]["pressure.o"].get<double>() > 0);
  CHECK(baselines["sizes"]["pressure.o"].get<uint64_t>() > 0);
  // The measures a hook reports are the ones the problem names up front.
  const Problem &problem = findProblem("regalloc");
  std::vector<std::string> measured;
  for (const auto &[name, value] : problem.measures(*problem.measuringHook())) measured.push_back(name);
  CHECK(measured == problem.measureNames());
  CHECK(problem.measureNames() == std::vector<std::string>{"regalloc_score"});
}

TEST_CASE("regalloc problem: traces do not depend on --threads", "[regalloc]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  traceRegalloc(corpus, scratch / "one", 1);
  traceRegalloc(corpus, scratch / "two", 2);
  for (const char *shard : {"regalloc-00000-of-00002.mlgotrace", "regalloc-00001-of-00002.mlgotrace"})
    CHECK(readBytes(scratch / "one" / shard) == readBytes(scratch / "two" / shard));
  CHECK(readBytes(scratch / "one" / "baselines.json") == readBytes(scratch / "two" / "baselines.json"));
}

TEST_CASE("regalloc problem: the CLI traces it, builds its vocab and explores it around the default",
          "[regalloc][cli]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "regalloc/pressure.c", "-O2");
  const std::string trace = (scratch / "trace").string();
  auto traced = test::runMlgo({"default-trace", "--problem", "regalloc", "--corpus", corpus.directory.string(),
                               "--output", trace});
  REQUIRE(traced.exitCode == exit_code::kSuccess);
  auto info = test::runMlgo({"trace-info", trace, "--json"});
  REQUIRE(info.exitCode == exit_code::kSuccess);
  const nlohmann::json stats = nlohmann::json::parse(info.out);
  CHECK(stats["problem"] == "regalloc");
  CHECK(stats["decisions"].get<uint64_t>() > 10);
  CHECK(stats["differ_from_default"] == 0);
  CHECK(stats["features"]["mask"]["max"] == 1);
  CHECK(stats["features"]["progress"]["max"].get<double>() <= 1.0);
  CHECK_FALSE(stats.contains("yes"));
  auto module = test::runMlgo({"trace-info", trace, "--module", "pressure.o", "--json"});
  REQUIRE(module.exitCode == exit_code::kSuccess);
  CHECK(nlohmann::json::parse(module.out)["decisions"][0]["mask"].size() == 33);

  // gen-vocab takes the tensors: one file per feature but the mask.
  auto vocab = test::runMlgo({"gen-vocab", "--trace", trace, "--output-dir", (scratch / "vocab").string()});
  CHECK(vocab.exitCode == exit_code::kSuccess);
  CHECK_THAT(vocab.out, Contains("wrote 20 vocab files"));
  CHECK(fs::exists(scratch / "vocab" / "liverange_size.buckets"));
  CHECK_FALSE(fs::exists(scratch / "vocab" / "mask.buckets"));

  // explore needs a policy to rank the evictions (the default names only its own).
  const std::vector<std::string> explore{"explore", "--problem", "regalloc", "--corpus", corpus.directory.string(),
                                         "--output", (scratch / "explored").string(), "--flips", "4", "--budget", "8"};
  auto unranked = test::runMlgo(explore);
  CHECK(unranked.exitCode == exit_code::kUsage);
  CHECK_THAT(unranked.err, Contains("regalloc") && Contains("--policy"));
  CHECK_FALSE(fs::exists(scratch / "explored" / "trace_description.json"));
  std::vector<std::string> aroundDefault = explore;
  aroundDefault.push_back("--around-default");
  auto withoutPolicy = test::runMlgo(aroundDefault);
  CHECK(withoutPolicy.exitCode == exit_code::kUsage);
  CHECK_THAT(withoutPolicy.err, Contains("--around-default needs --policy"));
  test::regallocPolicyScoringBy("liverange_size").save(scratch / "ranker");
  aroundDefault.insert(aroundDefault.end(), {"--policy", (scratch / "ranker").string()});
  auto explored = test::runMlgo(aroundDefault);
  REQUIRE(explored.exitCode == exit_code::kSuccess);
  CHECK_THAT(explored.out, Contains("explored 1 of 1 modules") && Contains("regalloc_score: default"));
  const nlohmann::json exploration = readJsonFile(scratch / "explored" / "exploration.json");
  CHECK(exploration["settings"]["around_default"] == true);
  CHECK(exploration["settings"]["metric"] == "regalloc_score");
  const nlohmann::json &figures = exploration["modules"][0];
  CHECK(figures["best_regalloc_score"].get<double>() <= figures["default_regalloc_score"].get<double>());
  CHECK(figures["compiles"].get<size_t>() <= 8);
  auto explorationInfo = test::runMlgo({"trace-info", (scratch / "explored").string(), "--json"});
  REQUIRE(explorationInfo.exitCode == exit_code::kSuccess);
  CHECK(nlohmann::json::parse(explorationInfo.out)["differ_from_default"] == figures["flips_kept"].size());
}
