#include "mlgo/launcher/application.h"

#include "mlgo/autotune/autotuner.h"
#include "mlgo/autotune/pass_predictor.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/policy/policy_directory.h"
#include "mlgo/problems/problem.h"

namespace mlgo::launcher {

namespace {

Prediction loadPrediction(const ApplicationFiles &files, const autotune::SearchSpace &space) {
  Prediction prediction;
  const std::filesystem::path directory =
      files.predictor.empty() ? autotune::defaultPredictorDirectory() : files.predictor;
  auto predictor = std::make_shared<autotune::PassPredictor>(autotune::PassPredictor::load(directory, space));
  const std::string metadata = (directory / autotune::PassPredictor::kMetadataFile).string();
  for (const std::vector<int> &list : autotune::predictedLists(*predictor, space, metadata))
    prediction.pipelines.push_back(space.pipeline(list));
  prediction.predictor = std::move(predictor);
  prediction.description = directory.string();
  prediction.count = files.predictedLists;
  return prediction;
}

}  // namespace

Application loadApplication(const ApplicationFiles &files, std::chrono::milliseconds timeout) {
  Application application;
  application.timeout = timeout;
  if (!files.policy.empty()) {
    const Problem &problem = findProblem(policy_directory::problemOf(files.policy));
    application.policyHooks = problem.policyHooks(files.policy);
    application.policyDescription = files.policy.string();
  }
  if (files.passLists.empty() && !files.predict) return application;
  const autotune::SearchSpace space = autotune::SearchSpace::load(autotune::defaultSearchSpaceFile());
  if (!files.passLists.empty()) application.passLists = autotune::readPassLists(files.passLists, space);
  if (files.predict) application.prediction = loadPrediction(files, space);
  return application;
}

}  // namespace mlgo::launcher
