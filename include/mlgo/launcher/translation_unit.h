#pragma once
// One translation unit through mlgo: clang's frontend in-process, then mlgo's
// driver with what the user asked to apply (a policy's hooks, a tuned pass
// list), writing the object the build expects. What cannot be applied
// exactly (the frontend fails, a recorded flag cannot be reproduced, LLVM
// crashes or times out) comes back as a fallback reason: the caller then
// runs the real compiler, so the build gets clang's own object.
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "mlgo/driver/compile_result.h"
#include "mlgo/driver/pipeline_hook.h"
#include "mlgo/launcher/compile_plan.h"

namespace mlgo::launcher {

/// What to apply to every translation unit of a build; loaded once per
/// compiler call.
struct Application {
  std::string policyDescription;  ///< the policy directory; empty: none
  std::function<std::shared_ptr<PipelineHook>()> policyHooks;
  std::string passListsDescription;  ///< the best.json; empty: none
  std::map<std::string, std::string> passLists;  ///< module name -> opt pipeline
  std::chrono::milliseconds timeout{600000};
  bool empty() const { return !policyHooks && passLists.empty(); }
};

struct TranslationUnitOutcome {
  std::string module;       ///< the object's name as extract-ir names it (relative to the build directory)
  std::string passList;     ///< the pipeline applied; empty: the recorded level
  bool compiled = false;    ///< mlgo wrote the object
  std::string fallback;     ///< why not (the caller runs the real compiler)
  std::string diagnostics;  ///< clang's warnings, to print as clang would
  SectionSizes sizes;       ///< of the object written
  uint64_t decisions = 0;   ///< decisions the policy took
  double seconds = 0;
};

/// Compiles the planned translation unit with `application`, writing
/// plan.object (atomically) on success. `buildDirectory` is where the
/// compile runs: module names are relative to it.
TranslationUnitOutcome compileTranslationUnit(const CompilePlan &plan, const Application &application,
                                              const std::filesystem::path &buildDirectory);

}  // namespace mlgo::launcher
