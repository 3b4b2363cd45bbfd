#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <functional>

#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/training/es/es_trainer.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

namespace {

double distance(const std::vector<float> &a, const std::vector<float> &b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return std::sqrt(sum);
}

/// Runs `steps` ES steps on the toy fitness -|w - target|^2.
std::vector<float> climb(const std::vector<float> &target, ESSettings settings, int steps, uint64_t seed) {
  EvolutionStrategy strategy(std::vector<float>(target.size(), 0.0f), settings, seed);
  for (int iteration = 1; iteration <= steps; ++iteration) {
    std::vector<double> fitness;
    for (size_t c = 0; c < strategy.candidates(); ++c)
      fitness.push_back(-distance(strategy.candidate(iteration, c), target));
    strategy.step(iteration, fitness);
  }
  return strategy.weights();
}

/// The traced test corpus with a random policy saved as the warm start.
struct ESCorpus : test::TracedTestCorpus {
  ESCorpus() { test::randomInliningPolicy(*this, 11).save(scratch / "start"); }
  ESOptions options(const std::string &output, unsigned threads, std::vector<std::string> sets) const {
    ESOptions options;
    options.corpus = scratch / "corpus";
    options.warmstart = scratch / "start";
    options.baselines = scratch / "trace";
    options.output = scratch / output;
    options.seed = 5;
    options.driver.threads = threads;
    sets.insert(sets.end(), {"perturbations=2", "modules_per_iteration=4", "checkpoint_every=0"});
    options.config = esSchema().resolve(std::nullopt, sets);
    return options;
  }
};

}  // namespace

TEST_CASE("train-es: the strategy climbs a toy fitness, deterministically for a seed", "[training][es]") {
  const std::vector<float> target{1.0f, -2.0f, 0.5f, 3.0f, 0.0f, -1.0f, 2.0f, 1.5f};
  for (FitnessShaping shaping : {FitnessShaping::CenteredRanks, FitnessShaping::ZScores}) {
    ESSettings settings = readESSettings(nlohmann::json::object());
    settings.perturbations = 8;
    settings.sigma = 0.1;
    settings.learningRate = 0.05;
    settings.shaping = shaping;
    const std::vector<float> reached = climb(target, settings, 200, 1);
    CHECK(distance(reached, target) < 0.25 * distance(std::vector<float>(target.size(), 0.0f), target));
    CHECK(climb(target, settings, 200, 1) == reached);
    CHECK(climb(target, settings, 200, 2) != reached);
  }
}

TEST_CASE("train-es: fitness shaping and the antithetic pairs", "[training][es]") {
  CHECK(shapeFitness({3.0, 1.0, 2.0}, FitnessShaping::CenteredRanks) == std::vector<double>{0.5, -0.5, 0.0});
  CHECK(shapeFitness({2.0, 2.0, 2.0}, FitnessShaping::ZScores) == std::vector<double>{0.0, 0.0, 0.0});
  const std::vector<double> z = shapeFitness({1.0, 3.0}, FitnessShaping::ZScores);
  CHECK(z[0] == Approx(-1.0));
  CHECK(z[1] == Approx(1.0));
  // Candidates 2p and 2p+1 lie on either side of theta.
  ESSettings settings = readESSettings(nlohmann::json::object());
  settings.sigma = 0.5;
  EvolutionStrategy strategy({1.0f, 2.0f, 3.0f}, settings, 9);
  const std::vector<float> plus = strategy.candidate(4, 2), minus = strategy.candidate(4, 3);
  for (size_t i = 0; i < 3; ++i) CHECK((plus[i] + minus[i]) / 2 == Approx(strategy.weights()[i]));
  CHECK(plus != strategy.candidate(4, 0));
}

TEST_CASE("train-es: a policy's weights flatten and come back unchanged", "[training][es]") {
  test::TracedTestCorpus traced;
  const YesNoPolicy policy = test::randomInliningPolicy(traced, 3);
  const std::vector<float> weights = flattenWeights(policy);
  const YesNoPolicy back = withWeights(policy, weights);
  CHECK(flattenWeights(back) == weights);
  CHECK(back.serialize() == policy.serialize());
  std::vector<float> shorter = weights;
  shorter.pop_back();
  CHECK_THROWS(withWeights(policy, shorter));
}

TEST_CASE("train-es: writes its run, the same for any thread count, and resumes to the same result",
          "[training][es][determinism]") {
  ESCorpus corpus;
  const ESSummary whole = trainES(corpus.options("whole", 1, {"iterations=3"}));
  CHECK(whole.lastIteration == 3);
  const auto &problem = findProblem("inlining");
  CHECK_NOTHROW(YesNoPolicy::load(corpus.scratch / "whole", problem.name(), problem.featureNames()));
  std::ifstream metrics(corpus.scratch / "whole" / "metrics.jsonl");
  size_t lines = 0;
  for (std::string line; std::getline(metrics, line); ++lines) {
    const nlohmann::json record = nlohmann::json::parse(line);
    CHECK(record["candidates"] == 4);
    CHECK(record["modules"] == 4);
    CHECK(record["fitness"]["best"].get<double>() >= record["fitness"]["worst"].get<double>());
  }
  CHECK(lines == 3);
  // The weights moved away from the start.
  CHECK(readFile(corpus.scratch / "whole/policy/model.json") != readFile(corpus.scratch / "start/model.json"));

  trainES(corpus.options("threads", 2, {"iterations=3"}));
  CHECK(readFile(corpus.scratch / "threads/policy/model.json") == readFile(corpus.scratch / "whole/policy/model.json"));

  // Two iterations, then resumed to three: the uninterrupted run's policy and metrics.
  trainES(corpus.options("resumed", 1, {"iterations=2"}));
  ESOptions resume = corpus.options("resumed", 1, {"iterations=3"});
  resume.resume = true;
  const ESSummary resumed = trainES(resume);
  CHECK(resumed.firstIteration == 3);
  CHECK(readFile(corpus.scratch / "resumed/policy/model.json") == readFile(corpus.scratch / "whole/policy/model.json"));
  ESOptions otherConfig = corpus.options("resumed", 1, {"iterations=4", "sigma=0.5"});
  otherConfig.resume = true;
  CHECK_THROWS_AS(trainES(otherConfig), UsageError);
}

TEST_CASE("train-es: a damaged resume state is an input error naming the entry, and trains nothing",
          "[training][es][errors]") {
  ESCorpus corpus;
  trainES(corpus.options("run", 1, {"iterations=2"}));
  const fs::path state = corpus.scratch / "run/resume/state.json";
  const std::string original = readFile(state);
  const std::string policy = readFile(corpus.scratch / "run/policy/model.json");
  auto resumeWith = [&](const std::function<void(nlohmann::json &)> &damage) {
    nlohmann::json saved = nlohmann::json::parse(original);
    damage(saved);
    writeFileAtomically(state, saved.dump());
    ESOptions options = corpus.options("run", 1, {"iterations=4"});
    options.resume = true;
    return test::messageOf<InputError>([&] { trainES(options); });
  };
  CHECK_THAT(resumeWith([](nlohmann::json &s) { s["strategy"]["theta"][0] = 1e39; }),
             Catch::Contains("state.json: strategy") && Catch::Contains("weight 0: not a finite weight"));
  CHECK_THAT(resumeWith([](nlohmann::json &s) { s["strategy"]["second_moment"][3] = -1.0; }),
             Catch::Contains("weight 3") && Catch::Contains("second moment >= 0"));
  CHECK_THAT(resumeWith([](nlohmann::json &s) { s["iteration"] = -2; }),
             Catch::Contains("state.json: iteration: -2 is not the number of steps taken (2)"));
  CHECK_THAT(resumeWith([](nlohmann::json &s) { s["iteration"] = 999; }),
             Catch::Contains("999 is not the number of steps taken"));
  CHECK_THAT(resumeWith([](nlohmann::json &s) { s["iteration"] = "two"; }), Catch::Contains("iteration"));
  CHECK(readFile(corpus.scratch / "run/policy/model.json") == policy);  // nothing trained on
}
