// LibTorch first: its logging defines a CHECK macro that Catch's must replace.
#include <torch/torch.h>
#undef CHECK
#include <catch2/catch.hpp>

#include <fstream>

#include "mlgo/policy/position_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/training/ppo/ppo_actor.h"
#include "mlgo/training/ppo/ppo_loss.h"
#include "mlgo/training/ppo/ppo_trainer.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// The regalloc test programs, their default trace and a BC warm start.
struct RegallocPPO : test::RegallocWarmStart {
  PPOOptions options(const std::string &output, unsigned threads, std::vector<std::string> sets = {}) const {
    std::vector<std::string> all{"num_policy_iterations=3", "num_modules=2",           "num_iterations=10",
                                 "batch_size=8",            "train_sequence_length=4", "learning_rate=0.01",
                                 "checkpoint_every=0",      "reward_metric=regalloc_score"};
    all.insert(all.end(), sets.begin(), sets.end());
    PPOOptions options;
    options.problem = &findProblem("regalloc");
    options.corpus = scratch / "corpus";
    options.warmstart = scratch / "bc";
    options.baselines = scratch / "trace";
    options.output = scratch / output;
    options.seed = 5;
    options.config = ppoSchema().resolve(std::nullopt, all);
    options.driver.threads = threads;
    return options;
  }
};

std::vector<json> metricsWithoutTimings(const fs::path &path) {
  std::vector<json> records;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    json record = json::parse(line);
    for (const char *key : {"seconds", "decisions_per_second", "modules_per_second", "threads", "memo"})
      record.erase(key);
    records.push_back(record);
  }
  return records;
}

/// Mean log-probability of the chosen actions of batch rows [first, end).
double meanLogProbability(const DistributionTerms &terms, int64_t first, int64_t end) {
  return terms.newLogProbability.slice(0, first, end).mean().item<double>();
}

}  // namespace

TEST_CASE("train-ppo on regalloc: rewards by LLVM's regalloc score, the same for any thread count, and resumes "
          "to the same policy",
          "[training][rl][regalloc][determinism][resume]") {
  RegallocPPO run;
  const PPOSummary whole = trainPPO(run.options("whole", 1));
  REQUIRE(whole.lastIteration == 3);
  const json &last = whole.lastMetrics;
  CHECK(last["size"]["metric"] == "regalloc_score");
  CHECK(last["size"]["default"].get<double>() > 0);
  CHECK(last["size"]["policy"].get<double>() > 0);
  CHECK(last["failed"] == 0);
  CHECK(last["decisions"].get<int64_t>() > 20);
  CHECK(last["gradient_steps"] == 10);
  CHECK(last["kl"].get<double>() > 0);  // the steps changed the policy
  const PositionPolicy trained =
      PositionPolicy::load(run.scratch / "whole", "regalloc", findProblem("regalloc").decisionSpec());
  CHECK(trained.training["trainer"] == "ppo");
  CHECK(readFile(run.scratch / "whole/policy/model.json") != readFile(run.scratch / "bc/policy/model.json"));
  // The start's input statistics stay with the policy.
  const PositionPolicy start =
      PositionPolicy::load(run.scratch / "bc", "regalloc", findProblem("regalloc").decisionSpec());
  CHECK(trained.means() == start.means());

  trainPPO(run.options("threads", 2));
  CHECK(readFile(run.scratch / "threads/policy/model.json") == readFile(run.scratch / "whole/policy/model.json"));
  CHECK(metricsWithoutTimings(run.scratch / "threads/metrics.jsonl") ==
        metricsWithoutTimings(run.scratch / "whole/metrics.jsonl"));

  trainPPO(run.options("resumed", 2, {"num_policy_iterations=1"}));
  PPOOptions resume = run.options("resumed", 1);
  resume.resume = true;
  CHECK(trainPPO(resume).firstIteration == 2);
  CHECK(readFile(run.scratch / "resumed/policy/model.json") == readFile(run.scratch / "whole/policy/model.json"));
}

TEST_CASE("train-ppo on regalloc: rewards per function, the same for any thread count, and resumes to the same policy",
          "[training][rl][regalloc][determinism][resume]") {
  RegallocPPO run;
  const PPOSummary byFunction = trainPPO(run.options("function", 1, {"reward_scope=function"}));
  REQUIRE(byFunction.lastIteration == 3);
  CHECK(byFunction.lastMetrics["failed"] == 0);
  // The module's own figures are reported as before; the decisions learn from their functions' rewards.
  CHECK(byFunction.lastMetrics["size"]["metric"] == "regalloc_score");
  trainPPO(run.options("module", 1));
  CHECK(readFile(run.scratch / "function/policy/model.json") != readFile(run.scratch / "module/policy/model.json"));
  trainPPO(run.options("shares", 1, {"reward_scope=function", "segment_reward=module_share"}));
  CHECK(readFile(run.scratch / "shares/policy/model.json") != readFile(run.scratch / "function/policy/model.json"));

  // Every function with evictions has its own baseline, started at the default's score.
  const json state = json::parse(readFile(run.scratch / "function/resume/state.json"));
  CHECK(state["segment_defaults_known"].size() == run.corpus.modules.size());
  size_t functions = 0;
  for (const auto &[key, entry] : state["segment_baselines"].items()) {
    CHECK(key.find('|') != std::string::npos);
    CHECK(entry["default"].get<double>() >= 0);
    ++functions;
  }
  CHECK(functions >= 3);  // pressure.c's mix, blend and main at least

  trainPPO(run.options("function-threads", 2, {"reward_scope=function"}));
  CHECK(readFile(run.scratch / "function-threads/policy/model.json") ==
        readFile(run.scratch / "function/policy/model.json"));
  CHECK(metricsWithoutTimings(run.scratch / "function-threads/metrics.jsonl") ==
        metricsWithoutTimings(run.scratch / "function/metrics.jsonl"));
  trainPPO(run.options("function-resumed", 2, {"reward_scope=function", "num_policy_iterations=1"}));
  PPOOptions resume = run.options("function-resumed", 1, {"reward_scope=function"});
  resume.resume = true;
  CHECK(trainPPO(resume).firstIteration == 2);
  CHECK(readFile(run.scratch / "function-resumed/policy/model.json") ==
        readFile(run.scratch / "function/policy/model.json"));
}

TEST_CASE("train-ppo on regalloc: the actor scores as the policy does, and PPO steps make rewarded evictions likelier",
          "[training][rl][regalloc]") {
  RegallocPPO run;
  const Problem &problem = findProblem("regalloc");
  const json config = ppoSchema().resolve(std::nullopt, {});
  const std::unique_ptr<PPOActor> actor = makePPOActor(problem, run.scratch / "bc", "", readPPOSettings(config));
  const auto start = samplingPolicy(PositionPolicy::load(run.scratch / "bc", "regalloc", problem.decisionSpec()));
  CollectionPlan plan;
  plan.modules = {0, 1};
  plan.needsDefault = {false, false};
  plan.seed = 1;
  plan.iteration = 1;
  const std::vector<CollectedModule> collected =
      collectTrajectories(CompilerDriver(test::driverThreads(2)), run.corpus, problem, *start, plan);
  // Module 0's evictions rewarded, module 1's punished.
  const PPOBatch batch =
      actor->makeBatch(collected, {std::vector<double>(collected[0].trajectory.decisions(), 1.0),
                                   std::vector<double>(collected[1].trajectory.decisions(), -1.0)});
  const int64_t firstModule = int64_t(collected[0].trajectory.decisions());
  REQUIRE(firstModule > 0);
  REQUIRE(batch.size() == firstModule + int64_t(collected[1].trajectory.decisions()));
  CHECK(batch.mask.sizes() == batch.oldLogits.sizes());
  CHECK(batch.mask.gather(1, batch.actions.unsqueeze(1)).all().item<bool>());  // every chosen position allowed

  torch::manual_seed(3);
  TorchMlp network(actor->networkInputs(), std::vector<int64_t>{40, 40, 20}, Activation::Relu, 0.0,
                   actor->networkOutputs());
  actor->loadStartingWeights(network);
  const torch::Tensor rows = torch::arange(batch.size(), torch::kInt64);
  const DistributionTerms before = actor->distributions(network, batch, rows);
  // The network with the start's weights gives the distribution the policy sampled from.
  CHECK(torch::allclose(before.newLogProbability.detach(), before.oldLogProbability, 1e-4, 1e-4));
  CHECK(before.kl.abs().max().item<double>() < 1e-4);

  torch::optim::Adam optimizer(network->parameters(), torch::optim::AdamOptions(0.003));
  PPOHyperparameters hyper;
  for (int step = 0; step < 30; ++step) {
    optimizer.zero_grad();
    ppoLoss(actor->distributions(network, batch, rows), batch.rewards, 0.0, {}, hyper).total.backward();
    optimizer.step();
  }
  const DistributionTerms after = actor->distributions(network, batch, rows);
  CHECK(meanLogProbability(after, 0, firstModule) > meanLogProbability(before, 0, firstModule));
  CHECK(meanLogProbability(after, firstModule, batch.size()) < meanLogProbability(before, firstModule, batch.size()));
  // A forbidden position stays forbidden: the entropy counts only allowed positions, whose probabilities sum to 1.
  const auto layout = PositionLayout(problem.decisionSpec());
  const torch::Tensor logits = positionLogits(
      network,
      batch.inputs.reshape({-1, int64_t(layout.positions()), int64_t(layout.width())}), batch.mask).detach();
  CHECK((logits.masked_select(batch.mask.logical_not()) == kForbiddenLogit).all().item<bool>());
}

TEST_CASE("train-ppo on regalloc: bad starts and settings are refused by name", "[training][rl][regalloc][errors]") {
  RegallocPPO run;
  PPOOptions noStart = run.options("a", 1);
  noStart.warmstart.reset();
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(noStart); }), Contains("--warmstart"));
  CHECK_FALSE(fs::exists(run.scratch / "a" / "metrics.jsonl"));

  // The BC policy relabelled as another problem's.
  PPOOptions inliningStart = run.options("b", 1);
  inliningStart.warmstart = run.scratch / "inlining-policy";
  fs::copy(run.scratch / "bc/policy", run.scratch / "inlining-policy");
  json metadata = json::parse(readFile(run.scratch / "bc/policy/policy.json"));
  metadata["problem"] = "inlining";
  writeFileAtomically(run.scratch / "inlining-policy" / "policy.json", metadata.dump());
  CHECK_THAT(test::messageOf<InputError>([&] { trainPPO(inliningStart); }),
             Contains("inlining-policy") && Contains("policy.json") && Contains("not regalloc"));

  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(run.options("c", 1, {"reward_metric=cycles"})); }),
             Contains("reward_metric") && Contains("regalloc_score"));
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(run.options("f", 1, {"reward_scope=loop"})); }),
             Contains("reward_scope") && Contains("\"loop\"") && Contains("module, function"));
  CHECK_THAT(test::messageOf<UsageError>(
                 [&] { trainPPO(run.options("g", 1, {"reward_scope=function", "reward_metric=text"})); }),
             Contains("reward_metric") && Contains("per function"));
  PPOOptions inlining = run.options("h", 1, {"reward_scope=function", "reward_metric=text"});
  inlining.problem = &findProblem("inlining");
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(inlining); }),
             Contains("reward_scope") && Contains("inlining rewards (module)"));
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(run.options("i", 1, {"segment_reward=sum"})); }),
             Contains("segment_reward") && Contains("one of relative, module_share, got sum"));
  for (const char *refused : {"f", "g", "h", "i"}) CHECK_FALSE(fs::exists(run.scratch / refused / "metrics.jsonl"));
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(run.options("d", 1, {"with_sqrt=true"})); }),
             Contains("with_sqrt"));
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(run.options("e", 1, {"hidden_layers=[8]"})); }),
             Contains("hidden_layers"));
}
