#include <catch2/catch.hpp>

#include <fstream>

#include "mlgo/policy/position_policy.h"
#include "mlgo/policy/continuous_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/training/cloning/bc_trainer.h"
#include "mlgo/training/es/es_trainer.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

namespace {

/// The regalloc test programs, their default trace and a BC warm start.
struct RegallocES : test::RegallocWarmStart {
  ESOptions options(const std::string &output, unsigned threads, std::vector<std::string> sets) const {
    ESOptions options;
    options.problem = &findProblem("regalloc");
    options.corpus = scratch / "corpus";
    options.warmstart = scratch / "bc";
    options.baselines = scratch / "trace";
    options.output = scratch / output;
    options.seed = 8;
    options.driver.threads = threads;
    sets.insert(sets.end(), {"perturbations=2", "modules_per_iteration=2", "checkpoint_every=0", "sigma=0.2"});
    options.config = esSchema().resolve(std::nullopt, sets);
    return options;
  }
};

}  // namespace

TEST_CASE("train-es on regalloc: scores candidates by LLVM's regalloc score, the same for any thread count, "
          "and resumes to the same result",
          "[training][es][regalloc][determinism]") {
  RegallocES run;
  const ESSummary whole = trainES(run.options("whole", 1, {"iterations=2"}));
  REQUIRE(whole.lastIteration == 2);
  const nlohmann::json &last = whole.lastMetrics;
  CHECK(last["size"]["metric"] == "regalloc_score");
  CHECK(last["size"]["default"].get<double>() > 0);
  CHECK(last["size"]["policy"].get<double>() > 0);
  CHECK(last["modules"] == 2);
  CHECK(last["failed"] == 0);
  // The candidates' policies evict differently: their fitness differs.
  CHECK(last["fitness"]["best"].get<double>() > last["fitness"]["worst"].get<double>());
  const PositionPolicy trained =
      PositionPolicy::load(run.scratch / "whole", "regalloc", findProblem("regalloc").decisionSpec());
  CHECK(trained.training["trainer"] == "evolution-strategies");
  CHECK(readFile(run.scratch / "whole/policy/model.json") != readFile(run.scratch / "bc/policy/model.json"));

  trainES(run.options("threads", 2, {"iterations=2"}));
  CHECK(readFile(run.scratch / "threads/policy/model.json") == readFile(run.scratch / "whole/policy/model.json"));

  trainES(run.options("resumed", 1, {"iterations=1"}));
  ESOptions resume = run.options("resumed", 2, {"iterations=2"});
  resume.resume = true;
  CHECK(trainES(resume).firstIteration == 2);
  CHECK(readFile(run.scratch / "resumed/policy/model.json") == readFile(run.scratch / "whole/policy/model.json"));
}

TEST_CASE(
    "train-es on regalloc-priority: perturbs a continuous policy, scores it by LLVM's regalloc score, "
    "the same for any thread count",
    "[training][es][regalloc][priority][determinism]") {
  test::ScratchDirectory scratch;
  test::priorityTracedCorpus(scratch / "corpus", scratch / "trace");
  BCOptions bc;
  bc.trace = scratch / "trace";
  bc.output = scratch / "bc";
  bc.config = behavioralCloningSchema().resolve(std::nullopt, {"iterations=300", "holdout_fraction=0"});
  trainBehavioralCloning(bc);
  const auto options = [&](const std::string &output, unsigned threads) {
    ESOptions options;
    options.problem = &findProblem("regalloc-priority");
    options.corpus = scratch / "corpus";
    options.warmstart = scratch / "bc";
    options.baselines = scratch / "trace";
    options.output = scratch / output;
    options.seed = 3;
    options.driver.threads = threads;
    options.config = esSchema().resolve(std::nullopt, {"iterations=2", "perturbations=2", "modules_per_iteration=2",
                                                       "checkpoint_every=0", "sigma=0.5"});
    return options;
  };
  const ESSummary whole = trainES(options("one", 1));
  REQUIRE(whole.lastIteration == 2);
  const nlohmann::json &last = whole.lastMetrics;
  CHECK(last["size"]["metric"] == "regalloc_score");
  CHECK(last["size"]["default"].get<double>() > 0);
  CHECK(last["failed"] == 0);
  // The candidates give other priorities, so other code: their fitness differs.
  CHECK(last["fitness"]["best"].get<double>() > last["fitness"]["worst"].get<double>());
  const Problem &priority = findProblem("regalloc-priority");
  const ContinuousPolicy trained = ContinuousPolicy::load(scratch / "one", priority.name(), priority.decisionSpec());
  CHECK(trained.training["trainer"] == "evolution-strategies");
  CHECK(readFile(scratch / "one/policy/model.json") != readFile(scratch / "bc/policy/model.json"));

  trainES(options("two", 2));
  CHECK(readFile(scratch / "two/policy/model.json") == readFile(scratch / "one/policy/model.json"));
}
