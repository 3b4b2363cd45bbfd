#pragma once
// `mlgo compare-builds`: one project built several ways, each way's linked
// files and object sum against the plain clang-19 build, with its build time
// and test suite result.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/builds/build_artifacts.h"
#include "mlgo/builds/project_build.h"
#include "mlgo/builds/unit_attribution.h"

namespace mlgo::builds {

struct BuiltVariant {
  BuildVariant variant;
  BuildOutcome outcome;
  BuildArtifacts artifacts;
  KeptBytes kept;  ///< what the linker kept of each unit (its linker maps)
  size_t fallbacks = 0;    ///< translation units mlgo cc could not apply to (compiled plainly)
  size_t unoptimized = 0;  ///< -O0 units, left as clang compiles them on purpose
  size_t backups = 0;      ///< units --never-larger kept plain (what was given made them larger)
  size_t units = 0;        ///< translation units mlgo cc logged
  /// False when mlgo cc had something to apply but compiled no unit: the
  /// build called another compiler, and its sizes measure nothing of mlgo's.
  bool measured = true;
};

/// The first variant is the reference every other one is compared with;
/// `optimization` is the level every way was built at ("" for the
/// project's own flags).
nlohmann::json comparisonToJson(const std::vector<BuiltVariant> &variants, const std::string &optimization);
/// The table printed at the end: per linked file and variant, `.text` and
/// `.text+data` against the reference, then per variant the linked and the
/// object sums, build time and tests.
std::string comparisonTable(const std::vector<BuiltVariant> &variants, const std::string &optimization);

/// What compare-builds writes into its output directory (fnmatch patterns):
/// one directory per variant and the comparison.
std::vector<std::string> compareBuildsEntries();

/// Counts the units, fallbacks, -O0 units and backups of a mlgo cc log
/// (none when absent).
void countLauncherLog(BuiltVariant &built);

}  // namespace mlgo::builds
