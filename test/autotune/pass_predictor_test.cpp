#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "mlgo/autotune/module_features.h"
#include "mlgo/autotune/pass_predictor.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::autotune;
namespace fs = std::filesystem;

namespace {

size_t featureIndex(const std::string &name) {
  const std::vector<std::string> &names = moduleFeatureNames();
  return size_t(std::find(names.begin(), names.end(), name) - names.begin());
}

Coreset threeLists() {
  Coreset coreset;
  coreset.trainingModules = 3;
  coreset.lists = {{{"default<O1>"}, "default<O1>", false, 0.5, 2},
                   {{"mem2reg"}, "function(mem2reg)", true, 0.2, 1},
                   {{"default<Oz>", "mergefunc"}, "default<Oz>,mergefunc", false, 0.1, 0}};
  return coreset;
}

/// One linear layer: list 0 scores the standardized switch count, list 1 its
/// negation plus 0.5, list 2 a constant 0.
PassPredictor handMade() {
  const size_t width = moduleFeatureNames().size();
  DenseLayer layer{width, 3, std::vector<float>(3 * width, 0.0f), {0.0f, 0.5f, 0.0f}};
  layer.weights[0 * width + featureIndex("op.switch")] = 1.0f;
  layer.weights[1 * width + featureIndex("op.switch")] = -1.0f;
  return PassPredictor(threeLists(), moduleFeatureNames(), std::vector<float>(width, 0.0f),
                       std::vector<float>(width, 2.0f), {layer});
}

/// mlgo's search space, written to `directory` with `elements` excluded, as
/// when a pass is found to miscompile after a predictor was trained.
SearchSpace spaceExcluding(const fs::path &directory, const std::vector<std::string> &elements) {
  std::istringstream lines(readFile(defaultSearchSpaceFile()));
  std::string text;
  for (std::string line; std::getline(lines, line);) {
    for (const std::string &element : elements)
      if (line.rfind("include\t", 0) == 0 && line.find("\t" + element + "\t") != std::string::npos)
        line = "exclude" + line.substr(line.find('\t'), line.rfind('\t') - line.find('\t')) +
               "\tmiscompiles ordinary code in LLVM 19: found by a test";
    text += line + "\n";
  }
  writeFileAtomically(directory / "passes.txt", text);
  return SearchSpace::load(directory / "passes.txt");
}

}  // namespace

TEST_CASE("pass predictor: lists the search space excludes are left out with their scores, the rest ranks as before",
          "[autotune][predictor]") {
  test::ScratchDirectory scratch;
  const PassPredictor predictor = handMade();
  predictor.save(scratch / "p");
  const SearchSpace space = spaceExcluding(scratch.path(), {"mem2reg"});
  CHECK(space.excludes("mem2reg"));
  CHECK_FALSE(space.excludes("sroa"));          // included
  CHECK_FALSE(space.excludes("no-such-pass"));  // unknown: refused, never left out
  const PassPredictor loaded = PassPredictor::load(scratch / "p", space);
  REQUIRE(loaded.coreset().lists.size() == 2);
  CHECK(loaded.coreset().lists[0].pipeline == "default<O1>");
  CHECK(loaded.coreset().lists[1].pipeline == "default<Oz>,mergefunc");
  CHECK(loaded.coreset().excludedLists == std::vector<std::string>{"function(mem2reg)"});
  CHECK(loaded.coreset().fileIndices == std::vector<size_t>{0, 2});
  for (double switches : {0.0, 3.0, 1000.0}) {
    std::vector<double> features(moduleFeatureNames().size(), 1.0);
    features[featureIndex("op.switch")] = switches;
    const std::vector<float> all = predictor.scores(features), kept = loaded.scores(features);
    CHECK(kept == std::vector<float>{all[0], all[2]});
  }
  CHECK(predictedLists(loaded, space, "p").size() == 2);
  // The coreset file alone reads the same way; saved, the predictor holds only what it kept.
  writeFileAtomically(scratch / "coreset.json", predictor.coreset().toJson().dump());
  CHECK(Coreset::read(scratch / "coreset.json", space).excludedLists.size() == 1);
  loaded.save(scratch / "kept");
  CHECK(PassPredictor::load(scratch / "kept", space).coreset().excludedLists.empty());
  // With every list excluded nothing is left to rank.
  fs::create_directories(scratch / "none");
  CHECK_THROWS_WITH(PassPredictor::load(scratch / "p", spaceExcluding(scratch / "none", {"mem2reg", "default<O1>",
                                                                                         "mergefunc"})),
                    Catch::Contains("holds no list the search space allows"));
}

TEST_CASE("pass predictor: scores from standardized log counts, ranking by language", "[autotune][predictor]") {
  const PassPredictor predictor = handMade();
  std::vector<double> features(moduleFeatureNames().size(), 0.0);
  features[featureIndex("op.switch")] = 3;  // log(1 + 3) / 2 = 0.693
  const std::vector<float> scores = predictor.scores(features);
  REQUIRE(scores.size() == 3);
  CHECK(scores[0] == Approx(std::log(4.0) / 2));
  CHECK(scores[1] == Approx(0.5 - std::log(4.0) / 2));
  CHECK(scores[2] == 0);
  CHECK(predictor.rank(features, false) == std::vector<size_t>{0, 2, 1});
  CHECK(predictor.rank(features, true) == std::vector<size_t>{0, 2});  // list 1 is for C modules only
  features[featureIndex("op.switch")] = 0;
  CHECK(predictor.rank(features, false) == std::vector<size_t>{1, 0, 2});  // ties keep coreset order
}

TEST_CASE("pass predictor: a predictor whose model lost ranks in the coreset's order", "[autotune][predictor]") {
  PassPredictor predictor = handMade();
  predictor.ranking = PredictorRanking::CoresetOrder;
  std::vector<double> features(moduleFeatureNames().size(), 0.0);
  for (double switches : {0.0, 3.0, 300.0}) {
    features[featureIndex("op.switch")] = switches;
    CHECK(predictor.rank(features, false) == std::vector<size_t>{0, 1, 2});
    CHECK(predictor.rank(features, true) == std::vector<size_t>{0, 2});  // still by language
  }
}

TEST_CASE("pass predictor: save and load give the same predictor, other files are refused by name",
          "[autotune][predictor]") {
  test::ScratchDirectory scratch;
  PassPredictor predictor = handMade();
  predictor.training = {{"trainer", "by hand"}};
  predictor.save(scratch / "p");
  CHECK(!fs::exists(scratch / "p.partial"));
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  const PassPredictor loaded = PassPredictor::load(scratch / "p", space);
  std::vector<double> features(moduleFeatureNames().size(), 7.0);
  CHECK(loaded.scores(features) == predictor.scores(features));
  CHECK(loaded.coreset().toJson() == predictor.coreset().toJson());
  CHECK(loaded.training["trainer"] == "by hand");
  CHECK(loaded.ranking == PredictorRanking::Model);
  predictor.ranking = PredictorRanking::CoresetOrder;
  predictor.save(scratch / "order");
  CHECK(readJsonFile(scratch / "order" / PassPredictor::kMetadataFile)["ranking"] == "coreset order");
  CHECK(PassPredictor::load(scratch / "order", space).ranking == PredictorRanking::CoresetOrder);
  const std::vector<std::vector<int>> lists = predictedLists(loaded, space, "p");
  REQUIRE(lists.size() == 3);
  CHECK(space.pipeline(lists[2]) == "default<Oz>,mergefunc");

  const fs::path metadata = scratch / "p" / PassPredictor::kMetadataFile;
  const std::string original = readFile(metadata);
  nlohmann::json changed = nlohmann::json::parse(original);
  changed["version"] = 2;
  writeFileAtomically(metadata, changed.dump());
  CHECK_THROWS_WITH(PassPredictor::load(scratch / "p", space),
                    Catch::Contains("predictor.json: version: a predictor of version 2; this mlgo reads version 1"));
  changed = nlohmann::json::parse(original);
  changed["feature_names"][0] = "op.something_else";
  writeFileAtomically(metadata, changed.dump());
  CHECK_THROWS_WITH(PassPredictor::load(scratch / "p", space), Catch::Contains("feature_names"));
  changed = nlohmann::json::parse(original);
  changed["coreset"]["lists"].erase(0);
  writeFileAtomically(metadata, changed.dump());
  CHECK_THROWS_WITH(PassPredictor::load(scratch / "p", space), Catch::Contains("one score per coreset list"));
  changed = nlohmann::json::parse(original);
  changed["coreset"]["lists"][1]["passes"] = {"no-such-pass"};
  writeFileAtomically(metadata, changed.dump());
  CHECK_THROWS_WITH(PassPredictor::load(scratch / "p", space),
                    Catch::Contains("coreset: lists[1]") && Catch::Contains("'no-such-pass' is not a pass"));
  changed = nlohmann::json::parse(original);
  changed.erase("ranking");  // written before rankings were validated: the model's
  writeFileAtomically(metadata, changed.dump());
  CHECK(PassPredictor::load(scratch / "p", space).ranking == PredictorRanking::Model);
  changed["ranking"] = "best guess";
  writeFileAtomically(metadata, changed.dump());
  CHECK_THROWS_WITH(PassPredictor::load(scratch / "p", space),
                    Catch::Contains("predictor.json: ranking: neither \"model\" nor \"coreset order\""));
  changed = nlohmann::json::parse(original);
  changed["input_mean"][0] = 1e39;  // an infinite float
  writeFileAtomically(metadata, changed.dump());
  CHECK_THROWS_WITH(PassPredictor::load(scratch / "p", space), Catch::Contains("input_mean") &&
                                                                    Catch::Contains("finite mean"));
  writeFileAtomically(metadata, original);
  const fs::path weights = scratch / "p" / PassPredictor::kWeightsFile;
  const std::string originalWeights = readFile(weights);
  nlohmann::json changedWeights = nlohmann::json::parse(originalWeights);
  changedWeights["layers"][0]["weights"][0] = -1e39;
  writeFileAtomically(weights, changedWeights.dump());
  CHECK_THROWS_WITH(PassPredictor::load(scratch / "p", space),
                    Catch::Contains("model.json: layers[0]") && Catch::Contains("not a finite float"));
  writeFileAtomically(weights, originalWeights);
  fs::remove(scratch / "p" / PassPredictor::kWeightsFile);
  CHECK_THROWS_WITH(PassPredictor::load(scratch / "p", space), Catch::Contains("model.json: missing"));
}
