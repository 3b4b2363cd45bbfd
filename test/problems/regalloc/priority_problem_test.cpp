#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "mlgo/policy/decision_steer.h"
#include "mlgo/policy/continuous_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/problems/regalloc/priority_hook.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/text_input.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/tracing/default_trace.h"
#include "hooked_compile.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

DefaultTraceSummary tracePriorities(const Corpus &corpus, const fs::path &output, unsigned threads) {
  DefaultTraceOptions options;
  options.output = output;
  options.shards = 2;
  return runDefaultTrace(corpus, CompilerDriver(test::driverThreads(threads)), findProblem("regalloc-priority"),
                         options);
}

std::string readBytes(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

/// Records what LLVM's default priority advisor answered, with the features.
class Observer final : public regalloc::PrioritySteer {
 public:
  double decide(const regalloc::PriorityObservation &observation) override {
    seen.push_back(observation);
    return observation.defaultPriority;
  }
  std::vector<regalloc::PriorityObservation> seen;
};

/// Answers every value with the default's, noting where segments begin.
class DefaultValueSteer final : public DecisionSteer {
 public:
  int64_t decide(const int64_t *, int64_t) override { throw std::logic_error("not a choice"); }
  double decideValue(const int64_t *, double defaultValue) override {
    ++values;
    return defaultValue;
  }
  void beginSegment(std::string_view key) override { segments.emplace_back(key); }
  size_t values = 0;
  std::vector<std::string> segments;
};

}  // namespace

TEST_CASE("regalloc-priority problem: a steer answering the default's values gives LLVM's code byte for byte, "
          "each function's decisions a segment",
          "[regalloc][priority][rl]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "regalloc/pressure.c", "-O2");
  const Problem &problem = findProblem("regalloc-priority");
  CompilerDriver driver({});
  auto plain = std::make_shared<test::ObjectCapture>(), steered = std::make_shared<test::ObjectCapture>();
  REQUIRE(driver.compile({&corpus.modules.front(), "", {plain}}).ok());
  DefaultValueSteer steer;
  const std::shared_ptr<PipelineHook> hook = problem.steeringHook(steer);
  REQUIRE(driver.compile({&corpus.modules.front(), "", {steered, hook}}).ok());
  REQUIRE(!plain->bytes.empty());
  CHECK(steered->bytes == plain->bytes);
  CHECK(steer.values > 10);
  CHECK(steer.values == hook->decisionsTaken());
  // pressure.c's functions, each once, in the order LLVM allocates them.
  CHECK(steer.segments.size() >= 3);
  CHECK(std::set<std::string>(steer.segments.begin(), steer.segments.end()).size() == steer.segments.size());
  CHECK(problem.segmentMeasures(*hook).at("regalloc_score").size() == steer.segments.size());
}

TEST_CASE("regalloc-priority problem: default-trace records LLVM's default priorities with their features",
          "[regalloc][priority]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "regalloc/pressure.c", "-O2");
  const DefaultTraceSummary summary = tracePriorities(corpus, scratch / "trace", 1);
  REQUIRE(summary.failures.empty());
  REQUIRE(summary.decisions > 10);

  // The same compile observed directly: the trace holds these decisions.
  auto observer = std::make_shared<Observer>();
  const CompileRequest observed{&corpus.modules.front(), "", {std::make_shared<regalloc::PriorityHook>(observer)}};
  REQUIRE(CompilerDriver({}).compile(observed).ok());
  REQUIRE(observer->seen.size() == summary.decisions);

  trace::TraceReader reader(scratch / "trace");
  CHECK(reader.problem() == "regalloc-priority");
  CHECK(reader.decisionSpec() == regalloc::priorityDecisionSpec());
  CHECK(reader.decisionSpec().kind() == trace::DecisionKind::Continuous);
  size_t d = 0;
  reader.forEachModule([&](const trace::ModuleTrace &module) {
    CHECK(module.actions.empty());
    for (size_t i = 0; i < module.decisions(); ++i, ++d) {
      const regalloc::PriorityObservation &seen = observer->seen.at(d);
      const int64_t *words = module.featuresOf(i);
      CHECK(words[0] == seen.size);
      CHECK(words[1] == seen.stage);
      float weight;
      std::memcpy(&weight, &words[2], sizeof weight);
      CHECK(weight == seen.weight);
      CHECK(module.defaultValues[i] == static_cast<float>(seen.defaultPriority));
      CHECK(module.values[i] == module.defaultValues[i]);
    }
  });
  CHECK(d == summary.decisions);
  const nlohmann::json baselines = nlohmann::json::parse(readBytes(scratch / "trace" / "baselines.json"));
  CHECK(baselines["measures"]["regalloc_score"]["pressure.o"].get<double>() > 0);
}

TEST_CASE("regalloc-priority problem: traces do not depend on --threads", "[regalloc][priority]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  tracePriorities(corpus, scratch / "one", 1);
  tracePriorities(corpus, scratch / "two", 2);
  for (const char *shard : {"regalloc-priority-00000-of-00002.mlgotrace", "regalloc-priority-00001-of-00002.mlgotrace"})
    CHECK(readBytes(scratch / "one" / shard) == readBytes(scratch / "two" / shard));
  CHECK(readBytes(scratch / "one" / "baselines.json") == readBytes(scratch / "two" / "baselines.json"));
}

TEST_CASE("regalloc-priority problem: the CLI traces it, clones the default's priorities and evaluates the policy",
          "[regalloc][priority][cli]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "regalloc/pressure.c", "-O2");
  const std::string trace = (scratch / "trace").string();
  auto traced = test::runMlgo({"default-trace", "--problem", "regalloc-priority", "--corpus",
                               corpus.directory.string(), "--output", trace});
  REQUIRE(traced.exitCode == exit_code::kSuccess);
  auto info = test::runMlgo({"trace-info", trace, "--json"});
  REQUIRE(info.exitCode == exit_code::kSuccess);
  const nlohmann::json stats = nlohmann::json::parse(info.out);
  CHECK(stats["problem"] == "regalloc-priority");
  CHECK(stats["decisions"].get<uint64_t>() > 10);
  CHECK(stats["differ_from_default"] == 0);
  CHECK(stats["values"]["max"].get<double>() > stats["values"]["min"].get<double>());
  // LLVM moves a range from RS_New to RS_Assign (1) as it queues it.
  CHECK(stats["features"]["stage"]["min"] == 1);
  CHECK(stats["features"]["li_size"]["max"].get<int64_t>() > 0);
  CHECK_FALSE(stats.contains("yes"));
  auto module = test::runMlgo({"trace-info", trace, "--module", "pressure.o", "--json"});
  REQUIRE(module.exitCode == exit_code::kSuccess);
  const nlohmann::json first = nlohmann::json::parse(module.out)["decisions"][0];
  CHECK(first["action"] == first["default"]);
  CHECK(first.contains("weight"));

  auto vocab = test::runMlgo({"gen-vocab", "--trace", trace, "--output-dir", (scratch / "vocab").string()});
  CHECK(vocab.exitCode == exit_code::kSuccess);
  CHECK(fs::exists(scratch / "vocab" / "li_size.buckets"));
  CHECK(fs::exists(scratch / "vocab" / "weight.buckets"));

  // Behavioral cloning regresses the default's priorities into a continuous policy.
  const std::string bc = (scratch / "bc").string();
  auto cloned = test::runMlgo({"train-bc", "--trace", trace, "--output", bc, "--set", "iterations=3000", "--set",
                               "holdout_fraction=0", "--set", "report_every=1000"});
  INFO(cloned.err);
  REQUIRE(cloned.exitCode == exit_code::kSuccess);
  const nlohmann::json policy = readJsonFile(scratch / "bc" / "policy" / "policy.json");
  CHECK(policy["problem"] == "regalloc-priority");
  CHECK(policy["kind"] == "value-regression");
  const Problem &problem = findProblem("regalloc-priority");
  const ContinuousPolicy loaded = ContinuousPolicy::load(scratch / "bc", problem.name(), problem.decisionSpec());
  // Fitted: most priorities are within a factor of 2 of the default's.
  trace::TraceReader reader(scratch / "trace");
  size_t near = 0, decisions = 0;
  reader.forEachModule([&](const trace::ModuleTrace &traced) {
    for (size_t d = 0; d < traced.decisions(); ++d, ++decisions)
      near += std::fabs(ContinuousPolicy::target(loaded.decide(traced.featuresOf(d))) -
                        ContinuousPolicy::target(traced.values[d])) < 1.0;
  });
  CHECK(near * 2 > decisions);

  // eval compares its code with LLVM's default priorities by the regalloc score.
  const std::string report = (scratch / "eval.json").string();
  auto evaluated = test::runMlgo({"eval", "--corpus", corpus.directory.string(), "--policy", bc, "--json", report});
  INFO(evaluated.err);
  REQUIRE(evaluated.exitCode == exit_code::kSuccess);
  const nlohmann::json evaluation = readJsonFile(report);
  CHECK(evaluation["problem"] == "regalloc-priority");
  CHECK(evaluation["modules"][0]["measures"]["candidate"]["regalloc_score"].get<double>() > 0);
  CHECK(evaluation["modules"][0]["measures"]["baseline"]["regalloc_score"].get<double>() > 0);

  // A build applies it through mlgo cc: every priority of the compile is the policy's.
  const std::string object = (scratch / "built.o").string(), log = (scratch / "cc.jsonl").string();
  auto built = test::runMlgo({"cc", "--policy", bc, "--log", log, test::clangPath(), "-O2", "-c",
                              (test::testData() / "regalloc/pressure.c").string(), "-o", object});
  INFO(built.err);
  REQUIRE(built.exitCode == exit_code::kSuccess);
  const nlohmann::json logged = nlohmann::json::parse(readBytes(log));
  CHECK(logged["applied"]["policy"] == bc);
  CHECK(logged["decisions"].get<uint64_t>() > 10);

  // PPO samples priorities around the clone's and learns from LLVM's score; eval takes its policy.
  const std::string ppo = (scratch / "ppo").string();
  auto trained = test::runMlgo({"train-ppo", "--problem", "regalloc-priority", "--corpus", corpus.directory.string(),
                                "--warmstart", bc, "--baselines", trace, "--output", ppo, "--set",
                                "num_policy_iterations=2", "--set", "num_modules=1", "--set", "num_iterations=4",
                                "--set", "batch_size=8", "--set", "train_sequence_length=4", "--set",
                                "reward_metric=regalloc_score", "--set", "reward_scope=function"});
  INFO(trained.err);
  REQUIRE(trained.exitCode == exit_code::kSuccess);
  CHECK(readJsonFile(scratch / "ppo" / "policy" / "policy.json")["kind"] == "value-regression");
  auto evaluatedPPO = test::runMlgo({"eval", "--corpus", corpus.directory.string(), "--policy", ppo});
  CHECK(evaluatedPPO.exitCode == exit_code::kSuccess);
  // Without a starting policy it has no input statistics: refused, saying so.
  auto cold = test::runMlgo({"train-ppo", "--problem", "regalloc-priority", "--corpus", corpus.directory.string(),
                             "--output", (scratch / "cold").string()});
  CHECK(cold.exitCode == exit_code::kUsage);
  CHECK_THAT(cold.err, Contains("regalloc-priority") && Contains("--warmstart"));
  // explore flips choices: a real value has none, and it says so up front.
  auto explored = test::runMlgo({"explore", "--problem", "regalloc-priority", "--corpus", corpus.directory.string(),
                                 "--output", (scratch / "explored").string()});
  CHECK(explored.exitCode == exit_code::kUsage);
  CHECK_THAT(explored.err, Contains("nothing to flip"));
}
