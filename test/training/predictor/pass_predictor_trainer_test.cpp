#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "mlgo/autotune/module_features.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/training/predictor/pass_predictor_trainer.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::autotune;

namespace {

size_t featureIndex(const std::string &name) {
  const std::vector<std::string> &names = moduleFeatureNames();
  return size_t(std::find(names.begin(), names.end(), name) - names.begin());
}

/// Random module features with a planted rule: a module with switches is
/// smallest under list 0, one without under list 1; list 2 helps every
/// module a little, less than the others (a coreset leaves it out).
std::vector<double> randomFeatures(std::mt19937 &random, bool switches) {
  std::vector<double> features(moduleFeatureNames().size());
  for (double &value : features) value = double(std::uniform_int_distribution<int>(0, 200)(random));
  features[featureIndex("op.switch")] = switches ? double(std::uniform_int_distribution<int>(1, 30)(random)) : 0.0;
  return features;
}

/// `perProject` modules a project (0: each module its own).
SweepTable plantedSweep(size_t modules, uint32_t seed, size_t perProject = 0) {
  std::mt19937 random(seed);
  SweepTable table;
  table.featureNames = moduleFeatureNames();
  for (const char *pass : {"default<O1>", "default<Os>", "mergefunc"})
    table.lists.push_back({{pass}, pass, GateVerdict{true, "", "", false}});
  for (size_t m = 0; m < modules; ++m) {
    const bool switches = m % 2 == 0;
    SweptModule module;
    module.name = perProject ? "project" + std::to_string(m / perProject) + "/module" + std::to_string(m)
                             : "module" + std::to_string(m);
    module.features = randomFeatures(random, switches);
    module.oz.sizes.text = 1000;
    for (uint64_t size : {switches ? 800u : 950u, switches ? 950u : 800u, 990u}) {
      ListOutcome outcome;
      outcome.sizes.text = size;
      module.lists.push_back(outcome);
    }
    table.modules.push_back(module);
  }
  return table;
}

PassPredictorOptions options(const SweepTable &table, uint64_t seed) {
  PassPredictorOptions options;
  options.table = &table;
  options.coreset = buildCoreset(table, SizeMetric::Text, 3, false);
  options.config = passPredictorSchema().resolve(std::nullopt, {"validation_folds=4"});
  options.seed = seed;
  return options;
}

}  // namespace

TEST_CASE("pass predictor training: the ranking recovers a planted rule on modules it never saw",
          "[training][predictor]") {
  // 80 features of noise and one that decides: the defaults must find it.
  const SweepTable table = plantedSweep(400, 1);
  const PassPredictorOptions settings = options(table, 3);
  REQUIRE(settings.coreset.lists.size() == 2);  // list 2 adds nothing over the other two
  const PassPredictorResult result = trainPassPredictor(settings);
  REQUIRE(result.validation.modules == 400);  // each validated once, by a model that never saw it
  const double best = 800.0 / 1000 - 1;  // every module's best list
  CHECK(result.train.top1 == Approx(best).margin(1e-9));
  CHECK(result.validation.top1 < 0.9 * best);  // most of the gain on modules it did not train on
  CHECK(result.validation.top5 == Approx(best).margin(1e-9));  // both lists tried: always the best
  // The coreset's own order gives every module its first list: about half of them get their worse one.
  CHECK(result.coresetOrder.modules == result.validation.modules);
  CHECK(result.coresetOrder.top1 == Approx(std::sqrt(0.8 * 0.95) - 1).margin(0.02));
  CHECK(result.validation.top1 < result.coresetOrder.top1);
  CHECK(result.predictor.ranking == PredictorRanking::Model);
  CHECK(result.train.modules == 400);  // trained again on every module

  std::mt19937 random(99);
  size_t right = 0;
  for (int i = 0; i < 40; ++i) {
    const bool switches = i % 2 == 0;
    const std::vector<size_t> ranking = result.predictor.rank(randomFeatures(random, switches), false);
    right += result.predictor.coreset().lists[ranking[0]].pipeline == (switches ? "default<O1>" : "default<Os>");
  }
  CHECK(right >= 36);  // chance would be 20
}

TEST_CASE("pass predictor training: a seed gives one predictor", "[training][predictor]") {
  const SweepTable table = plantedSweep(60, 2);
  test::ScratchDirectory scratch;
  trainPassPredictor(options(table, 5)).predictor.save(scratch / "a");
  trainPassPredictor(options(table, 5)).predictor.save(scratch / "b");
  trainPassPredictor(options(table, 6)).predictor.save(scratch / "c");
  const std::string weights = PassPredictor::kWeightsFile;
  CHECK(readFile(scratch / "a" / weights) == readFile(scratch / "b" / weights));
  CHECK(readFile(scratch / "a" / weights) != readFile(scratch / "c" / weights));
}

TEST_CASE("pass predictor training: a model that does not beat the coreset's order on unseen projects ranks in it",
          "[training][predictor]") {
  // Features say nothing; list 0 is best for 70% of modules, so the coreset takes it first.
  SweepTable skewed = plantedSweep(200, 4, 10);
  std::mt19937 random(8);
  for (SweptModule &module : skewed.modules) {
    const bool firstBest = std::bernoulli_distribution(0.7)(random);
    module.lists[0]->sizes.text = firstBest ? 800 : 950;
    module.lists[1]->sizes.text = firstBest ? 950 : 800;
  }
  const PassPredictorOptions settings = options(skewed, 3);
  REQUIRE(settings.coreset.lists.size() == 2);
  REQUIRE(settings.coreset.lists[0].pipeline == "default<O1>");
  const PassPredictorResult result = trainPassPredictor(settings);
  INFO("model " << result.validation.top1 << ", coreset order " << result.coresetOrder.top1);
  CHECK(result.validation.top1 >= result.coresetOrder.top1);
  CHECK(result.predictor.ranking == PredictorRanking::CoresetOrder);
  std::mt19937 features(5);
  for (bool switches : {true, false})
    CHECK(result.predictor.rank(randomFeatures(features, switches), false) == std::vector<size_t>{0, 1});
}

TEST_CASE("pass predictor training: validation holds out whole projects and refuses a sweep of one",
          "[training][predictor]") {
  SweepTable table = plantedSweep(200, 6, 20);  // 10 projects of 20 modules
  const PassPredictorResult folded = trainPassPredictor(options(table, 1));
  CHECK(folded.validationProjects == 10);
  CHECK(folded.validationFolds == 4);
  CHECK(folded.validation.modules == 200);
  CHECK(folded.predictor.training["validation_folds"] == 4);
  PassPredictorOptions perProject = options(table, 1);
  perProject.config["validation_folds"] = 50;  // at most one fold a project
  CHECK(trainPassPredictor(perProject).validationFolds == 10);

  // Every module of a project alike, its best list a coin flip per project: a
  // model learns each project it trained on, and can only guess one it never
  // saw. Validation that leaked a module's project into its training would
  // score like training.
  std::mt19937 random(12);
  std::vector<std::vector<double>> projectFeatures;
  std::vector<bool> projectWantsFirst;
  for (int p = 0; p < 10; ++p) {
    projectFeatures.push_back(randomFeatures(random, p % 2 == 0));
    projectWantsFirst.push_back(std::bernoulli_distribution(0.5)(random));
  }
  for (size_t m = 0; m < table.modules.size(); ++m) {
    table.modules[m].features = projectFeatures[m / 20];
    table.modules[m].lists[0]->sizes.text = projectWantsFirst[m / 20] ? 800 : 950;
    table.modules[m].lists[1]->sizes.text = projectWantsFirst[m / 20] ? 950 : 800;
  }
  PassPredictorOptions memorizing = options(table, 1);
  memorizing.config["epochs"] = 1500;
  const PassPredictorResult memorized = trainPassPredictor(memorizing);
  PassPredictor model = memorized.predictor;  // its ranking aside: what the network learned
  model.ranking = PredictorRanking::Model;
  for (int p = 0; p < 10; ++p)
    CHECK(model.coreset().lists[model.rank(projectFeatures[p], false)[0]].pipeline ==
          (projectWantsFirst[p] ? "default<O1>" : "default<Os>"));
  INFO("validation " << memorized.validation.top1);
  CHECK(memorized.validation.top1 > 0.9 * (800.0 / 1000 - 1));  // some unseen projects got their worse list

  const SweepTable one = plantedSweep(40, 6, 40);
  CHECK_THROWS_WITH(trainPassPredictor(options(one, 1)),
                    Catch::Contains("of 1 project") && Catch::Contains("projects that training never saw"));
}
