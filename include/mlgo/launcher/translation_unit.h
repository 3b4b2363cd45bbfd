#pragma once
// One translation unit through mlgo: clang's frontend in-process, then mlgo's
// driver with what the user asked to apply (a policy's hooks, a tuned pass
// list), writing the object the build expects. What cannot be applied
// exactly (the frontend fails, a recorded flag cannot be reproduced, LLVM
// crashes or times out) comes back as a fallback reason: the caller then
// runs the real compiler, so the build gets clang's own object.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "mlgo/driver/compile_result.h"
#include "mlgo/launcher/application.h"
#include "mlgo/launcher/compile_plan.h"

namespace mlgo::launcher {

struct TranslationUnitOutcome {
  std::string module;       ///< the object's name as extract-ir names it (relative to the build directory)
  std::string passList;     ///< the pipeline applied; empty: the recorded level
  size_t candidates = 0;    ///< ways compiled (more than one with a predictor or --never-larger); with --store, new lists
  /// Predicted lists cut short and skipped for being over --cost-bound.
  size_t overCostBound = 0;
  /// --never-larger kept the plain recorded level: what was given made the
  /// unit's object larger.
  bool keptBackup = false;
  /// With --store: "hit" (compiled once with its choice: without --explore,
  /// or its share of the build's exploration is none), "new" (first seen),
  /// "explored" (new lists compiled), "decided" (its search has spent its
  /// budget).
  std::string storeUse;
  /// With --store: the unit's key in the store (what a build's linker maps
  /// are recorded under).
  std::string storeUnit;
  /// With --store: .text+.data of the unit at its recorded level, when known.
  std::optional<uint64_t> recordedTextData;
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
