#include "mlgo/launcher/application.h"

#include "mlgo/autotune/autotuner.h"
#include "mlgo/autotune/pass_predictor.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/launcher/unit_choices.h"
#include "mlgo/support/errors.h"
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

void loadPolicy(Application &application, const std::filesystem::path &policy) {
  const Problem &problem = findProblem(policy_directory::problemOf(policy));
  application.policyHooks = problem.policyHooks(policy);
  application.policyDescription = policy.string();
}

/// A choice file's units: the policy where chosen, lists where chosen,
/// clang's own compile everywhere else.
Application loadChoices(const std::filesystem::path &file, std::chrono::milliseconds timeout) {
  Application application;
  application.timeout = timeout;
  const autotune::SearchSpace space = autotune::SearchSpace::load(autotune::defaultSearchSpaceFile());
  const UnitChoices choices = readUnitChoices(file, space);
  application.policyUnits.emplace();
  for (const auto &[module, choice] : choices.units) {
    if (choice.way == UnitWay::Policy) application.policyUnits->insert(module);
    if (choice.way == UnitWay::PassList) application.passLists[module] = choice.pipeline;
  }
  if (!application.policyUnits->empty()) loadPolicy(application, choices.policy);
  return application;
}

}  // namespace

Application loadApplication(const ApplicationFiles &files, std::chrono::milliseconds timeout) {
  if (!files.choices.empty()) {
    if (!files.policy.empty() || !files.passLists.empty() || files.predict)
      throw UsageError("--choices says what each unit gets: it goes without --policy, --pass-lists and --predict");
    return loadChoices(files.choices, timeout);
  }
  Application application;
  application.timeout = timeout;
  if (!files.policy.empty()) loadPolicy(application, files.policy);
  if (files.passLists.empty() && !files.predict) return application;
  const autotune::SearchSpace space = autotune::SearchSpace::load(autotune::defaultSearchSpaceFile());
  if (!files.passLists.empty()) application.passLists = autotune::readPassLists(files.passLists, space);
  if (files.predict) application.prediction = loadPrediction(files, space);
  return application;
}

}  // namespace mlgo::launcher
