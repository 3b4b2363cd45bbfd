#pragma once
// What `mlgo cc` applies to every translation unit of a build: a policy's
// hooks and tuned pass lists, loaded and checked once per compiler call.
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "mlgo/driver/pipeline_hook.h"

namespace mlgo::launcher {

struct Application {
  std::string policyDescription;  ///< the policy directory; empty: none
  std::function<std::shared_ptr<PipelineHook>()> policyHooks;
  std::string passListsDescription;  ///< the best.json; empty: none
  std::map<std::string, std::string> passLists;  ///< module name -> opt pipeline
  std::chrono::milliseconds timeout{600000};
  bool empty() const { return !policyHooks && passLists.empty(); }
};

/// Loads the policy directory (its problem read from it) and the best.json
/// (or predict-passes --json) given; empty paths are not applied. Throws
/// InputError naming the file when one is missing or malformed: a build
/// asked to use them never quietly builds without.
Application loadApplication(const std::filesystem::path &policy, const std::filesystem::path &passLists,
                            std::chrono::milliseconds timeout);

}  // namespace mlgo::launcher
