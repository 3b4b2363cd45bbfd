#include "mlgo/launcher/application.h"

#include <spdlog/spdlog.h>

#include "mlgo/autotune/autotuner.h"
#include "mlgo/autotune/correctness_gate.h"
#include "mlgo/autotune/pass_predictor.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/autotune/pass_pool.h"
#include "mlgo/store/build_store.h"
#include "mlgo/launcher/store_outage.h"
#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/support/temporary_directory.h"
#include "mlgo/launcher/link_baseline.h"
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
  const autotune::SearchSpace space =
      autotune::SearchSpace::load(autotune::defaultSearchSpaceFile(), autotune::SearchSpace::PassCheck::WhenCompiled);
  const UnitChoices choices = readUnitChoices(file, space);
  application.policyUnits.emplace();
  for (const auto &[module, choice] : choices.units) {
    if (choice.way == UnitWay::Policy) application.policyUnits->insert(module);
    if (choice.way == UnitWay::PassList) application.passLists[module] = choice.pipeline;
  }
  if (!application.policyUnits->empty()) loadPolicy(application, choices.policy);
  return application;
}

/// The correctness gate of a compile, made when first asked: its programs
/// compile to bitcode in a directory of this process's own.
class LazyGate {
 public:
  LazyGate(std::filesystem::path programs, std::filesystem::path sharedCorpus)
      : programs_(std::move(programs)), sharedCorpus_(std::move(sharedCorpus)) {}
  autotune::PassListGate &get() {
    if (gate_) return *gate_;
    autotune::GateOptions options;
    options.programs = programs_.empty() ? autotune::defaultGatePrograms() : programs_;
    options.clang = findClang("");
    if (options.clang.empty()) throw UsageError("the correctness gate of --store needs clang-19");
    work_ = std::make_unique<RunTemporaryDirectory>("mlgo-cc-gate");
    options.workDirectory = work_->path();
    options.threads = 1;  // the build's -j runs the compiles side by side already
    options.sharedCorpus = sharedCorpus_;
    gate_ = std::make_unique<autotune::CorrectnessGate>(options);
    return *gate_;
  }

 private:
  std::filesystem::path programs_, sharedCorpus_;
  std::unique_ptr<RunTemporaryDirectory> work_;
  std::unique_ptr<autotune::CorrectnessGate> gate_;
};

/// The project's store, or null when it belongs to another LLVM, search
/// space or cost model (then the first compile that finds it so says so),
/// or cannot be reached now (then the build says so once).
std::shared_ptr<store::BuildStore> openStore(const std::string &location, const autotune::SearchSpace &space) {
  const store::StoreIdentity identity = store::storeIdentity(autotune::searchSpaceHash(space));
  std::shared_ptr<store::BuildStore> opened;
  try {
    opened = std::make_shared<store::BuildStore>(
        store::isPostgresLocation(location) ? location : std::filesystem::absolute(location).string(), identity);
  } catch (const store::StoreUnavailable &e) {
    warnStoreUnavailable(store::shownLocation(location), e.what());
    return nullptr;
  } catch (const InputError &) {
    throw;
  } catch (const std::exception &e) {
    spdlog::warn("{}; the unit builds without the store", e.what());
    return nullptr;
  }
  if (opened->usable()) return opened;
  if (opened->noteForeignWriter())
    spdlog::warn("{}: written under {}; this mlgo has {}: the store is ignored (give another --store)",
                 opened->location(), store::describeIdentity(opened->storedIdentity()),
                 store::describeIdentity(identity));
  return nullptr;
}

void loadStore(Application &application, const ApplicationFiles &files,
               std::shared_ptr<const autotune::SearchSpace> space) {
  if (!files.policy.empty() || !files.passLists.empty())
    throw UsageError("--store keeps pass lists per unit: it goes without --policy and --pass-lists");
  application.store = openStore(files.store, *space);
  // The store's choices keep the bound the latest build gave.
  if (application.store) application.store->setCostBound(files.costBound);
  application.explore = files.explore;
  application.exploreBudget = files.exploreBudget;
  application.space = std::move(space);
  // The programs compile once for the project's every compile, beside its store.
  auto gate = std::make_shared<LazyGate>(files.gatePrograms,
                                         store::localStoreBase(files.store).string() + ".gate-programs");
  application.gate = [gate]() -> autotune::PassListGate & { return gate->get(); };
}

/// Units compiled another way than clang's keep clang's object for the
/// links (a store keeps its own).
void keepPlainObjects(Application &application, const ApplicationFiles &files) {
  if (files.uncheckedLinks) return;
  if (application.policyHooks || !application.passLists.empty() || application.prediction || application.policyUnits)
    application.plainObjects = std::make_shared<PlainObjects>(PlainObjects::defaultDirectory());
}

}  // namespace

Application loadApplication(const ApplicationFiles &files, std::chrono::milliseconds timeout) {
  if (files.explore > 0 && files.store.empty()) throw UsageError("--explore needs --store: what was tried is kept there");
  if (!files.choices.empty()) {
    if (!files.policy.empty() || !files.passLists.empty() || files.predict || !files.store.empty())
      throw UsageError(
          "--choices says what each unit gets: it goes without --policy, --pass-lists, --predict and --store");
    Application application = loadChoices(files.choices, timeout);
    application.recordCorpus = files.record;
    keepPlainObjects(application, files);
    return application;
  }
  Application application;
  application.timeout = timeout;
  application.costBound = files.costBound;
  application.recordCorpus = files.record;
  if (!files.policy.empty()) loadPolicy(application, files.policy);
  if (files.passLists.empty() && !files.predict && files.store.empty()) {
    keepPlainObjects(application, files);
    return application;
  }
  auto space = std::make_shared<const autotune::SearchSpace>(
      autotune::SearchSpace::load(autotune::defaultSearchSpaceFile(), autotune::SearchSpace::PassCheck::WhenCompiled));
  if (!files.passLists.empty()) application.passLists = autotune::readPassLists(files.passLists, *space);
  if (files.predict) application.prediction = loadPrediction(files, *space);
  if (!files.store.empty()) loadStore(application, files, space);
  else keepPlainObjects(application, files);
  return application;
}

}  // namespace mlgo::launcher
