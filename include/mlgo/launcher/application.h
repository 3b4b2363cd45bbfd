#pragma once
// What `mlgo cc` applies to every translation unit of a build: a policy's
// hooks and tuned pass lists, loaded and checked once per compiler call.
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mlgo/driver/pipeline_hook.h"

namespace mlgo::store {
class BuildStore;
}

namespace mlgo::autotune {
class PassPredictor;
class PassListGate;
class SearchSpace;
}

namespace mlgo::launcher {

class PlainObjects;

/// A pass-list predictor as the launcher uses it: the first `count` lists it
/// ranks for a unit are compiled beside the recorded level, and the smallest
/// object (.text+data) is kept.
struct Prediction {
  std::string description;  ///< the predictor directory
  std::shared_ptr<const autotune::PassPredictor> predictor;
  std::vector<std::string> pipelines;  ///< the coreset's lists, rendered, by coreset index
  size_t count = 1;
};

struct Application {
  std::string policyDescription;  ///< the policy directory; empty: none
  std::function<std::shared_ptr<PipelineHook>()> policyHooks;
  std::map<std::string, std::string> passLists;  ///< module name -> opt pipeline
  std::optional<Prediction> prediction;           ///< for units without a tuned list
  std::chrono::milliseconds timeout{600000};
  /// --never-larger: each unit is also compiled plainly at its recorded
  /// level, and the smaller object (.text+data) is kept.
  bool neverLarger = false;
  /// --base-dir: paths under it are left out of a store unit's key
  /// (portable_unit.h); empty: each compile's own.
  std::filesystem::path baseDirectory;
  /// From a choice file: the units that get the policy. A unit neither here
  /// nor in passLists compiles as clang compiles it. Unset: the policy
  /// applies to every unit.
  std::optional<std::set<std::string>> policyUnits;
  /// --record DIR: every unit compiled in-process also goes into this
  /// corpus (unit_recording.h).
  std::filesystem::path recordCorpus;
  /// --store FILE: what the project's builds tried (builds/build_store.h);
  /// null when none was given or the store is another LLVM's or search space's.
  std::shared_ptr<mlgo::store::BuildStore> store;
  /// --explore N: new lists each unit tries (unit_exploration.h), and the
  /// budget of the autotune search it replays.
  size_t explore = 0;
  size_t exploreBudget = 500;
  /// --cost-bound: the bound on the build's estimated compile cost against
  /// its plain build's (autotune/store_model.h); without a store, a
  /// predicted list's against its unit's recorded level.
  double costBound = 1.05;
  /// The search space of the store's lists.
  std::shared_ptr<const autotune::SearchSpace> space;
  /// Without a store, where clang's objects of the units compiled another
  /// way are kept for the links to compare with (link_baseline.h); null when
  /// nothing changes a unit.
  std::shared_ptr<PlainObjects> plainObjects;
  /// The correctness gate that judges a list before the store chooses it;
  /// made when first asked (its programs compile then).
  std::function<autotune::PassListGate &()> gate;
  bool empty() const {
    return !policyHooks && passLists.empty() && !prediction && !policyUnits && recordCorpus.empty() && !store;
  }
  /// Whether the unit named `module` gets the policy.
  bool policyFor(const std::string &module) const {
    return policyHooks && (!policyUnits || policyUnits->count(module));
  }
};

struct ApplicationFiles {
  std::filesystem::path policy;     ///< a policy directory; empty: none
  std::filesystem::path passLists;  ///< a best.json or predict-passes --json; empty: none
  bool predict = false;             ///< rank lists with `predictor`
  std::filesystem::path predictor;  ///< empty: the one shipped with mlgo
  size_t predictedLists = 1;
  std::filesystem::path choices;    ///< a choice file (unit_choices.h); empty: none
  std::filesystem::path record;     ///< a corpus to record units into; empty: none
  std::string store;  ///< the project's store: a file or postgresql://... (store_database.h); empty: none
  size_t explore = 0;
  size_t exploreBudget = 500;
  double costBound = 1.05;
  bool uncheckedLinks = false;  ///< links ship as linked: no plain objects kept for them
  std::filesystem::path gatePrograms;  ///< the gate's programs; empty: the shipped ones
};

/// Loads what `files` names (a policy's problem is read from its
/// directory). A choice file goes alone: with a policy, lists or a
/// predictor it is a UsageError; so is a store with a policy, lists or a
/// choice file, and --explore without a store. A store of another LLVM or
/// search space is ignored, with one warning per store. Throws InputError naming the file when one is missing or
/// malformed: a build asked to use them never quietly builds without.
Application loadApplication(const ApplicationFiles &files, std::chrono::milliseconds timeout);

}  // namespace mlgo::launcher
