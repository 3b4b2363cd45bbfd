// LibTorch first: its logging defines a CHECK macro that Catch's must replace.
#include <torch/torch.h>
#undef CHECK
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "mlgo/policy/continuous_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/training/cloning/bc_trainer.h"
#include "mlgo/training/ppo/ppo_actor.h"
#include "mlgo/training/ppo/ppo_loss.h"
#include "mlgo/training/ppo/ppo_trainer.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// The register-allocation test programs at -O2, their default priority
/// trace and a BC clone of the default's priorities.
struct PriorityPPO {
  test::ScratchDirectory scratch;
  Corpus corpus;
  const Problem &problem = findProblem("regalloc-priority");

  PriorityPPO() : corpus(test::priorityTracedCorpus(scratch / "corpus", scratch / "trace")) {
    BCOptions bc;
    bc.trace = scratch / "trace";
    bc.output = scratch / "bc";
    bc.config = behavioralCloningSchema().resolve(std::nullopt, {"iterations=300", "holdout_fraction=0"});
    trainBehavioralCloning(bc);
  }

  PPOOptions options(const std::string &output, unsigned threads, std::vector<std::string> sets = {}) const {
    std::vector<std::string> all{"num_policy_iterations=3",
                                 "num_modules=2",
                                 "num_iterations=10",
                                 "batch_size=16",
                                 "learning_rate=0.01",
                                 "train_sequence_length=4",
                                 "reward_metric=regalloc_score",
                                 "checkpoint_every=0",
                                 "reward_scope=function"};
    all.insert(all.end(), sets.begin(), sets.end());
    PPOOptions options;
    options.problem = &problem;
    options.corpus = scratch / "corpus";
    options.warmstart = scratch / "bc";
    options.baselines = scratch / "trace";
    options.output = scratch / output;
    options.seed = 7;
    options.config = ppoSchema().resolve(std::nullopt, all);
    options.driver.threads = threads;
    return options;
  }
};

}  // namespace

TEST_CASE(
    "train-ppo on regalloc-priority: a Gaussian around a continuous policy, rewards by LLVM's regalloc score per "
    "function, the same for any thread count, and resumes to the same policy",
    "[training][rl][regalloc][priority][determinism][resume]") {
  PriorityPPO run;
  const PPOSummary whole = trainPPO(run.options("whole", 1));
  REQUIRE(whole.lastIteration == 3);
  const json &last = whole.lastMetrics;
  CHECK(last["size"]["metric"] == "regalloc_score");
  CHECK(last["failed"] == 0);
  CHECK(last["decisions"].get<int64_t>() > 20);
  CHECK(last["kl"].get<double>() > 0);  // the steps moved the means
  // A Gaussian of standard deviation 0.1: entropy 0.5 + 0.5 ln(2 pi) + ln(0.1).
  CHECK(last["entropy"].get<double>() == Approx(0.5 + 0.5 * std::log(2 * M_PI) + std::log(0.1)).epsilon(1e-5));
  const ContinuousPolicy trained =
      ContinuousPolicy::load(run.scratch / "whole", run.problem.name(), run.problem.decisionSpec());
  const ContinuousPolicy start =
      ContinuousPolicy::load(run.scratch / "bc", run.problem.name(), run.problem.decisionSpec());
  CHECK(trained.training["trainer"] == "ppo");
  CHECK(readFile(run.scratch / "whole/policy/model.json") != readFile(run.scratch / "bc/policy/model.json"));
  // The start's input statistics and target scale stay with the policy.
  CHECK(trained.means() == start.means());
  CHECK(trained.targetScale().mean == start.targetScale().mean);

  trainPPO(run.options("threads", 2));
  CHECK(readFile(run.scratch / "threads/policy/model.json") == readFile(run.scratch / "whole/policy/model.json"));

  trainPPO(run.options("resumed", 2, {"num_policy_iterations=1"}));
  PPOOptions resume = run.options("resumed", 1);
  resume.resume = true;
  CHECK(trainPPO(resume).firstIteration == 2);
  CHECK(readFile(run.scratch / "resumed/policy/model.json") == readFile(run.scratch / "whole/policy/model.json"));

  // Another standard deviation samples other priorities and learns another policy.
  trainPPO(run.options("wider", 1, {"value_std=0.3"}));
  CHECK(readFile(run.scratch / "wider/policy/model.json") != readFile(run.scratch / "whole/policy/model.json"));
}

TEST_CASE(
    "train-ppo on regalloc-priority: the actor gives the distribution collection sampled from, and PPO steps "
    "move the means towards rewarded outputs",
    "[training][rl][regalloc][priority]") {
  PriorityPPO run;
  const json config = ppoSchema().resolve(std::nullopt, {"value_std=0.2"});
  const std::unique_ptr<PPOActor> actor = makePPOActor(run.problem, run.scratch / "bc", "", readPPOSettings(config));
  const auto start = samplingPolicy(
      ContinuousPolicy::load(run.scratch / "bc", run.problem.name(), run.problem.decisionSpec()), std::log(0.2f));
  CollectionPlan plan;
  plan.modules = {0, 1};
  plan.needsDefault = {false, false};
  plan.seed = 1;
  plan.iteration = 1;
  const std::vector<CollectedModule> collected =
      collectTrajectories(CompilerDriver(test::driverThreads(2)), run.corpus, run.problem, *start, plan);
  // A sample above its mean rewarded, one below punished: PPO should move every mean up.
  std::vector<std::vector<double>> rewards;
  for (const CollectedModule &module : collected) {
    REQUIRE(module.trajectory.decisions() > 0);
    rewards.emplace_back();
    for (size_t d = 0; d < module.trajectory.decisions(); ++d)
      rewards.back().push_back(module.trajectory.outputs[d] > module.trajectory.means[d] ? 1.0 : -1.0);
  }
  const PPOBatch batch = actor->makeBatch(collected, rewards);
  REQUIRE(batch.size() == int64_t(collected[0].trajectory.decisions() + collected[1].trajectory.decisions()));
  CHECK(batch.oldLogStd == Approx(std::log(0.2)));
  // The samples spread around the means by the standard deviation.
  const torch::Tensor noise = batch.outputs - batch.oldMeans;
  CHECK(std::fabs(noise.mean().item<double>()) < 0.05);
  CHECK(noise.std().item<double>() == Approx(0.2).epsilon(0.15));

  torch::manual_seed(3);
  TorchMlp network(actor->networkInputs(), std::vector<int64_t>{40, 40, 20}, Activation::Relu, 0.0,
                   actor->networkOutputs());
  actor->loadStartingWeights(network);
  const torch::Tensor rows = torch::arange(batch.size(), torch::kInt64);
  const DistributionTerms before = actor->distributions(network, batch, rows);
  // The network with the start's weights gives the Gaussians the policy sampled from.
  CHECK(torch::allclose(before.newLogProbability.detach(), before.oldLogProbability, 1e-4, 1e-4));

  // Adam moves every weight by about the learning rate at once: a small one keeps the means within the KL cutoff.
  torch::optim::Adam optimizer(network->parameters(), torch::optim::AdamOptions(1e-4));
  for (int step = 0; step < 20; ++step) {
    optimizer.zero_grad();
    ppoLoss(actor->distributions(network, batch, rows), batch.rewards, 0.0, {}, PPOHyperparameters()).total.backward();
    optimizer.step();
  }
  // The network's outputs are the Gaussians' means: every sample above its mean was rewarded, so they moved up.
  const torch::Tensor after = network->forward(batch.inputs).squeeze(1).detach();
  const torch::Tensor moved = after - batch.oldMeans;
  CHECK(moved.mean().item<double>() > 0.02);
  CHECK(moved.gt(0).to(torch::kFloat64).mean().item<double>() > 0.9);
  // KL(old || new) = shift^2 / (2 sigma^2) past 2 x 0.01 costs 1000 x excess^2: the means stay near 0.04.
  CHECK(moved.mean().item<double>() < 0.06);
}

TEST_CASE("train-ppo on regalloc-priority: bad starts and settings are refused by name",
          "[training][rl][regalloc][priority][errors]") {
  PriorityPPO run;
  PPOOptions noStart = run.options("a", 1);
  noStart.warmstart.reset();
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(noStart); }), Contains("--warmstart"));
  // A temperature would move the means, which are the greedy answers themselves.
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(run.options("b", 1, {"warmstart_temperature=2"})); }),
             Contains("value_std"));
  CHECK_THAT(test::messageOf<UsageError>([&] { trainPPO(run.options("c", 1, {"with_sqrt=true"})); }),
             Contains("with_sqrt"));
  // A start of another problem names its file.
  PPOOptions eviction = run.options("d", 1);
  eviction.warmstart = run.scratch / "corpus";
  CHECK_THROWS_AS(trainPPO(eviction), InputError);
}
