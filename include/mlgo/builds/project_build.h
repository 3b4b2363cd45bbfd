#pragma once
// Builds a user's project one way through `mlgo cc` (or with clang-19
// alone), with the project's own build system, then runs its test suite.
// CMake projects build out of tree (the compiler launcher variables); make
// and configure/make projects build in a copy of the tree with CC and CXX
// set to the launcher.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace mlgo::builds {

enum class ProjectKind { CMake, Configure, Make };

/// What the project's top directory holds: CMakeLists.txt, configure, or a
/// Makefile. Throws InputError naming the directory when it holds none.
ProjectKind detectProjectKind(const std::filesystem::path &project);
const char *projectKindName(ProjectKind kind);

/// Every way builds through `mlgo cc` (its links write linker maps into the
/// way's link-maps/); a way with nothing to apply runs clang itself.
struct BuildVariant {
  std::string name;                    ///< e.g. "clang-19", "mlgo cc", "policy"
  bool throughLauncher = false;        ///< mlgo cc takes part in its compiles (its log counts units)
  /// What mlgo cc applies, as its environment variables (launcher::ccAssignment):
  /// never words of a build system's compiler variable, where a path with a
  /// space (make) or a ';' (a CMake list) would be split.
  std::vector<std::string> ccEnvironment;
  /// Its links ship as linked (mlgo cc --unchecked-links): the way measured
  /// as it is, for comparison; labelled "raw" wherever it is shown.
  bool raw = false;
};

struct BuildSettings {
  std::filesystem::path project;
  std::filesystem::path mlgo;  ///< the mlgo executable the launcher runs
  unsigned jobs = 2;
  std::string testTarget = "check";  ///< make projects; CMake projects run ctest
  std::vector<std::string> configureArgs;  ///< after cmake's or ./configure's own
  std::vector<std::string> makeArgs;       ///< after make's (or cmake --build's) own
  std::chrono::minutes timeout{120};
  /// The level every way compiles at, as the project's build system takes
  /// it: CMake's MinSizeRel with this level, or CFLAGS and CXXFLAGS in the
  /// environment of configure and make. Empty: the project's own flags (a
  /// CMake project with no build type then compiles with no -O at all).
  std::string optimization = "-Oz";
  /// --bench: a command run in each built tree after its tests (through
  /// /bin/sh), `benchRuns` times; empty: none.
  std::string bench;
  unsigned benchRuns = 5;
  /// When set, every way builds at this path and is then moved to its own
  /// directory, so that paths compiled into the program do not differ.
  std::filesystem::path buildTree;
};

enum class TestResult { Passed, Failed, None };
const char *testResultName(TestResult result);

struct BuildOutcome {
  bool built = false;
  double configureSeconds = 0;  ///< cmake or ./configure
  double buildSeconds = 0;      ///< the build itself: what the launcher costs shows here
  TestResult tests = TestResult::None;
  double testSeconds = 0;   ///< the test suite's wall time
  double benchSeconds = 0;  ///< --bench's median wall time; 0: none, or it failed
  std::filesystem::path tree;  ///< where the objects and the linked files are
  std::filesystem::path log;   ///< everything the build and the tests printed
  std::filesystem::path ccLog;  ///< mlgo cc's per-unit log (through the launcher)
};

/// Builds `variant` into `directory` (created; must not exist yet) and runs
/// the tests. Never throws for a failing build: `built` says.
BuildOutcome buildProject(const BuildSettings &settings, const BuildVariant &variant,
                          const std::filesystem::path &directory);

}  // namespace mlgo::builds
