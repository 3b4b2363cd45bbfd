// mlgo compare-builds: builds a project with clang-19, through mlgo cc with
// nothing to apply, with a policy and with tuned pass lists, and compares the
// linked files (and the object sums) with the plain build.
#include <cstdio>
#include <filesystem>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/builds/build_comparison.h"
#include "mlgo/builds/project_build.h"
#include "mlgo/launcher/application.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

namespace {

namespace fs = std::filesystem;

struct CompareBuildsFlags {
  std::string project;
  std::string output;
  std::string policy;
  std::string passLists;
  bool predict = false;
  unsigned jobs = 2;
  std::string testTarget = "check";
  std::vector<std::string> configureArgs, makeArgs;
  std::string optimization = "-Oz";
  bool force = false;
};

std::vector<builds::BuildVariant> variantsOf(const CompareBuildsFlags &flags) {
  std::vector<builds::BuildVariant> variants{{"clang-19", false, {}}, {"mlgo-cc", true, {}}};
  if (!flags.policy.empty()) variants.push_back({"policy", true, {"--policy", fs::absolute(flags.policy).string()}});
  if (!flags.passLists.empty())
    variants.push_back({"pass-lists", true, {"--pass-lists", fs::absolute(flags.passLists).string()}});
  if (flags.predict) variants.push_back({"predicted", true, {"--predict"}});
  return variants;
}

int runCompareBuilds(const CompareBuildsFlags &flags) {
  // Every input checked before anything is built or written.
  builds::detectProjectKind(flags.project);
  launcher::loadApplication({flags.policy, flags.passLists, flags.predict, "", 1}, std::chrono::milliseconds(1));
  const auto outputLock = claimOutput(flags.output, "compare-builds", freshOutput(flags.force));
  builds::BuildSettings settings;
  settings.project = fs::absolute(flags.project);
  settings.mlgo = fs::read_symlink("/proc/self/exe");
  settings.jobs = flags.jobs;
  settings.testTarget = flags.testTarget;
  settings.configureArgs = flags.configureArgs;
  settings.makeArgs = flags.makeArgs;
  settings.optimization = flags.optimization == "project" ? "" : flags.optimization;
  settings.buildTree = fs::path(flags.output) / "building";
  std::vector<builds::BuiltVariant> built;
  bool allBuilt = true;
  for (const builds::BuildVariant &variant : variantsOf(flags)) {
    spdlog::info("building {} ({})", flags.project, variant.name);
    builds::BuiltVariant result{variant, builds::buildProject(settings, variant, fs::path(flags.output) / variant.name),
                                {}, 0, 0};
    if (!result.outcome.built) {
      spdlog::error("the {} build failed: see {}", variant.name, result.outcome.log.string());
      allBuilt = false;
    } else {
      result.artifacts = builds::findArtifacts(result.outcome.tree);
    }
    builds::countLauncherLog(result);
    built.push_back(std::move(result));
  }
  writeFileAtomically(fs::path(flags.output) / "comparison.json", builds::comparisonToJson(built, settings.optimization).dump(2) + "\n");
  std::fputs(builds::comparisonTable(built, settings.optimization).c_str(), stdout);
  return allBuilt ? exit_code::kSuccess : exit_code::kFailure;
}

}  // namespace

void addCompareBuildsCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<CompareBuildsFlags>();
  command->add_option("--project", flags->project, "Project source directory (CMakeLists.txt, configure or Makefile)")
      ->required();
  command->add_option("--output", flags->output, "Directory for the builds and comparison.json")->required();
  command->add_option("--policy", flags->policy, "Also build with this policy (mlgo cc --policy)");
  command->add_option("--pass-lists", flags->passLists, "Also build with these tuned lists (mlgo cc --pass-lists)");
  command->add_flag("--predict", flags->predict,
                    "Also build with the shipped predictor's first list and -Oz's backup (mlgo cc --predict)");
  command->add_option("--jobs,-j", flags->jobs, "Parallel build jobs, the same for every build")
      ->capture_default_str()
      ->check(wholeNumber(1, 256));
  command->add_option("--test-target", flags->testTarget, "make target that runs a make project's tests (CMake: ctest)")
      ->capture_default_str();
  command->add_option("--configure-arg", flags->configureArgs,
                      "An argument for cmake or ./configure, e.g. --configure-arg=-DCMAKE_BUILD_TYPE=MinSizeRel "
                      "(repeatable)");
  command->add_option("--make-arg", flags->makeArgs, "An argument for make or cmake --build (repeatable)");
  command->add_option("--optimization", flags->optimization,
                      "The level every way is built at: CMake's MinSizeRel with it, or CFLAGS and CXXFLAGS for "
                      "configure and make; \"project\" keeps the project's own flags")
      ->capture_default_str()
      ->check(CLI::IsMember({"-Oz", "-Os", "-O1", "-O2", "-O3", "project"}));
  command->add_flag("--force", flags->force, "Replace the builds an earlier run left in --output");
  command->callback([flags, &runner] { runner = [flags] { return runCompareBuilds(*flags); }; });
}

}  // namespace mlgo::cli
