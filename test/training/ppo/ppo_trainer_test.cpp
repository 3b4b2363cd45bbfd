#include <catch2/catch.hpp>

#include <fstream>

#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/training/cloning/bc_trainer.h"
#include "mlgo/training/ppo/ppo_trainer.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// The test project's corpus with its default trace and vocab.
struct TracedCorpus : test::TracedTestCorpus {
  /// A few tiny policy iterations; `sets` override the test's settings.
  PPOOptions options(const std::string &output, std::vector<std::string> sets = {}) const {
    std::vector<std::string> all{"num_policy_iterations=3", "num_modules=5",   "num_iterations=20",
                                 "batch_size=8",            "train_sequence_length=4", "learning_rate=0.01",
                                 "checkpoint_every=2"};
    all.insert(all.end(), sets.begin(), sets.end());
    PPOOptions options;
    options.corpus = scratch / "corpus";
    options.vocab = scratch / "vocab";
    options.baselines = scratch / "trace";
    options.output = scratch / output;
    options.seed = 11;
    options.config = ppoSchema().resolve(std::nullopt, all);
    options.driver.threads = 2;
    return options;
  }
};

std::vector<json> readMetrics(const fs::path &path) {
  std::vector<json> records;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) records.push_back(json::parse(line));
  return records;
}

/// A metrics record without what depends on timing or the thread count.
json withoutTimings(json record) {
  for (const char *key : {"seconds", "decisions_per_second", "modules_per_second", "threads", "memo"})
    record.erase(key);
  return record;
}

YesNoPolicy loadPolicy(const fs::path &directory) {
  const Problem &problem = findProblem("inlining");
  return YesNoPolicy::load(directory, problem.name(), problem.featureNames());
}

}  // namespace

TEST_CASE("train-ppo: a short run writes metrics, policy, checkpoints and resumable state", "[training][rl]") {
  TracedCorpus traced;
  PPOSummary summary = trainPPO(traced.options("ppo"));
  CHECK(summary.firstIteration == 1);
  CHECK(summary.lastIteration == 3);

  const std::vector<json> metrics = readMetrics(traced / "ppo/metrics.jsonl");
  REQUIRE(metrics.size() == 3);
  for (size_t i = 0; i < metrics.size(); ++i) {
    const json &m = metrics[i];
    CHECK(m["iteration"] == i + 1);
    CHECK(m["modules"] == 5);
    CHECK(m["failed"] == 0);
    CHECK(m["baselines_known"] == 7);  // all from the trace's baselines.json
    CHECK(m["gradient_steps"] == 20);
    CHECK(m["reward_distribution"]["count"] == 5);
    for (const char *key : {"mean", "p10", "p25", "p50", "p75", "p90"}) CHECK(m["reward_distribution"].contains(key));
    CHECK(m["reward_distribution"]["p10"] <= m["reward_distribution"]["p90"]);
    CHECK(m["size"]["policy"].get<double>() > 0);
    CHECK(m["size"]["change"].get<double>() ==
          Approx(m["size"]["policy"].get<double>() / m["size"]["default"].get<double>() - 1));
    CHECK(m["entropy"].get<double>() > 0);
    CHECK(m["entropy"].get<double>() <= std::log(2.0) + 1e-9);
    CHECK(m["kl"].get<double>() >= 0);
    for (const char *key : {"total", "policy_gradient", "entropy_regularization", "kl_penalty", "l2_regularization"})
      CHECK(m["loss"].contains(key));
    CHECK(m["seconds"]["collect"].get<double>() > 0);
    CHECK(m["decisions"].get<size_t>() > 0);
  }
  // The policy of every iteration is a normal policy directory; it learns.
  const YesNoPolicy final = loadPolicy(traced / "ppo/policy");
  const YesNoPolicy second = loadPolicy(traced / "ppo/checkpoints/iteration-2");
  CHECK(final.training["trainer"] == "ppo");
  CHECK(final.training["iterations"] == 3);
  CHECK(final.layers()[0].weights != second.layers()[0].weights);
  CHECK_NOTHROW(final.checkVocab(traced / "vocab"));
  CHECK(readJsonFile(traced / "ppo/resume/state.json")["iteration"] == 3);

  // Running the finished run again with --resume has nothing to do.
  PPOOptions again = traced.options("ppo");
  again.resume = true;
  PPOSummary nothing = trainPPO(again);
  CHECK(nothing.lastIteration < nothing.firstIteration);
}

TEST_CASE("train-ppo: the same inputs and seed give the same policies at 1 and 2 threads",
          "[training][rl][determinism]") {
  TracedCorpus traced;
  PPOOptions one = traced.options("one");
  one.driver.threads = 1;
  PPOOptions two = traced.options("two");
  two.driver.threads = 2;
  trainPPO(one);
  trainPPO(two);
  CHECK(readFile(traced / "one/policy/model.json") == readFile(traced / "two/policy/model.json"));
  const auto a = readMetrics(traced / "one/metrics.jsonl"), b = readMetrics(traced / "two/metrics.jsonl");
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(withoutTimings(a[i]) == withoutTimings(b[i]));

  // Another seed is another run.
  PPOOptions other = traced.options("other");
  other.seed = 12;
  trainPPO(other);
  CHECK(readFile(traced / "one/policy/model.json") != readFile(traced / "other/policy/model.json"));
}

TEST_CASE("train-ppo: resuming an interrupted run gives the uninterrupted run's policy", "[training][rl][resume]") {
  TracedCorpus traced;
  trainPPO(traced.options("whole"));
  trainPPO(traced.options("cut", {"num_policy_iterations=2"}));

  // What a kill -9 during iteration 3 can leave: its metrics record written,
  // a half-written state, and the state mid-replacement (only resume.old).
  {
    std::ofstream metrics(traced / "cut/metrics.jsonl", std::ios::app);
    metrics << R"({"iteration":3,"partial":true})" << "\n";
  }
  fs::create_directories(traced / "cut/resume.partial");
  writeFileAtomically(traced / "cut/resume.partial/state.json", "{\"trunc");
  fs::rename(traced / "cut/resume", traced / "cut/resume.old");

  PPOOptions resumed = traced.options("cut");
  resumed.resume = true;
  PPOSummary summary = trainPPO(resumed);
  CHECK(summary.firstIteration == 3);
  CHECK(summary.lastIteration == 3);
  CHECK(readFile(traced / "whole/policy/model.json") == readFile(traced / "cut/policy/model.json"));
  const auto whole = readMetrics(traced / "whole/metrics.jsonl"), cut = readMetrics(traced / "cut/metrics.jsonl");
  REQUIRE(cut.size() == 3);
  for (size_t i = 0; i < whole.size(); ++i) CHECK(withoutTimings(whole[i]) == withoutTimings(cut[i]));
  CHECK(fs::exists(traced / "cut/resume/state.json"));
  CHECK_FALSE(fs::exists(traced / "cut/resume.old"));
}

TEST_CASE("train-ppo: refuses to overwrite or to resume with another config", "[training][rl][errors]") {
  TracedCorpus traced;
  trainPPO(traced.options("ppo", {"num_policy_iterations=1"}));
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(traced.options("ppo")); }), Contains("--resume"));

  PPOOptions changed = traced.options("ppo", {"learning_rate=0.5"});
  changed.resume = true;
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(changed); }), Contains("learning_rate"));
  PPOOptions reseeded = traced.options("ppo");
  reseeded.resume = true;
  reseeded.seed = 99;
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(reseeded); }), Contains("seed"));
  // The run is intact after the refusals.
  CHECK(readMetrics(traced / "ppo/metrics.jsonl").size() == 1);
}

TEST_CASE("train-ppo: bad inputs name the file", "[training][rl][errors]") {
  TracedCorpus traced;
  PPOOptions noVocab = traced.options("a");
  noVocab.vocab = traced / "missing-vocab";
  CHECK_THROWS_AS(trainPPO(noVocab), InputError);
  PPOOptions noWarmstart = traced.options("b");
  noWarmstart.warmstart = traced / "missing-policy";
  CHECK_THAT(test::messageOf<InputError>([&] { trainPPO(noWarmstart); }), Contains("missing-policy"));
  PPOOptions otherMetric = traced.options("c", {"reward_metric=text+data"});
  CHECK_THAT(test::messageOf<InputError>([&] { trainPPO(otherMetric); }), Contains("baselines.json"));
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(traced.options("d", {"reward_metric=bss"})); }),
             Contains("reward_metric"));
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(traced.options("e", {"num_modules=0"})); }),
             Contains("num_modules"));
  CHECK_THROWS_AS(ppoSchema().resolve(std::nullopt, {"no_such_key=1"}), UsageError);
}

TEST_CASE("train-ppo: without baselines the default sizes are compiled once per module", "[training][rl]") {
  TracedCorpus traced;
  PPOOptions options = traced.options("ppo", {"num_modules=3"});
  options.baselines.reset();
  trainPPO(options);
  const auto metrics = readMetrics(traced / "ppo/metrics.jsonl");
  CHECK(metrics[0]["baselines_known"] == 3);
  CHECK(metrics[2]["baselines_known"].get<int>() >= 3);
  CHECK(metrics[2]["baselines_known"].get<int>() <= 7);
  // The reward of a module's first compile against its own fresh baseline
  // equals the reward against the default heuristic.
  CHECK(metrics[0]["training_reward_mean"].get<double>() != 0.0);
}

TEST_CASE("train-ppo: failed modules are skipped and counted, many in a row stop the run",
          "[training][rl][containment]") {
  TracedCorpus traced;
  PPOOptions options = traced.options("ppo", {"num_modules=7", "num_policy_iterations=2"});
  options.driver.faults.crashModule = "helpers.o";
  trainPPO(options);
  for (const json &m : readMetrics(traced / "ppo/metrics.jsonl")) {
    CHECK(m["failed"] == 1);
    CHECK(m["reward_distribution"]["count"] == 6);
    REQUIRE(m["failures"].size() == 1);
    CHECK(m["failures"][0]["module"] == "helpers.o");
    CHECK_THAT(m["failures"][0]["reason"].get<std::string>(), Contains("crash"));
  }

  PPOOptions strict =
      traced.options("strict", {"num_modules=7", "num_policy_iterations=5", "max_failed_share=0.1",
                                "max_bad_iterations=2"});
  strict.driver.faults.crashModule = "helpers.o";
  CHECK_THAT(test::messageOf<RunStopped>([&] { trainPPO(strict); }), Contains("helpers.o") && Contains("--resume"));
  // Iteration 1 finished and is resumable; iteration 2 stopped the run.
  CHECK(readJsonFile(traced / "strict/resume/state.json")["iteration"] == 1);
  CHECK(readMetrics(traced / "strict/metrics.jsonl").size() == 1);
}

TEST_CASE("train-ppo: warm start from a BC policy of the same shape", "[training][rl]") {
  TracedCorpus traced;
  BCOptions bc;
  bc.trace = traced / "trace";
  bc.vocab = traced / "vocab";
  bc.output = traced / "bc";
  bc.config = behavioralCloningSchema().resolve(std::nullopt, {"iterations=300", "holdout_fraction=0"});
  trainBehavioralCloning(bc);
  const YesNoPolicy warm = loadPolicy(traced / "bc");

  // With a negligible learning rate the result is the warm start, its logits
  // divided by the temperature.
  PPOOptions options =
      traced.options("ppo", {"num_policy_iterations=1", "learning_rate=1e-30", "warmstart_temperature=4"});
  options.warmstart = traced / "bc";
  trainPPO(options);
  const YesNoPolicy trained = loadPolicy(traced / "ppo/policy");
  size_t checked = 0;
  trace::TraceReader(traced / "trace").forEachModule([&](const trace::ModuleTrace &module) {
    for (size_t d = 0; d < module.decisions(); ++d, ++checked) {
      float a[2], b[2];
      warm.logits(module.features.data() + d * module.featureCount, a);
      trained.logits(module.features.data() + d * module.featureCount, b);
      CHECK(b[0] == Approx(a[0] / 4).margin(1e-4));
      CHECK(b[1] == Approx(a[1] / 4).margin(1e-4));
    }
  });
  CHECK(checked > 20);

  // Another network shape is refused.
  bc.output = traced / "bc-small";
  bc.config = behavioralCloningSchema().resolve(std::nullopt, {"iterations=10", "hidden_layers=[8]"});
  trainBehavioralCloning(bc);
  PPOOptions mismatch = traced.options("mismatch");
  mismatch.warmstart = traced / "bc-small";
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(mismatch); }), Contains("hidden_layers"));
}
