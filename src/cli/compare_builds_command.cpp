// mlgo compare-builds: builds a project with clang-19, through mlgo cc with
// nothing to apply, with a policy and with tuned pass lists, and compares the
// linked files (and the object sums) with the plain build.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/autotune/pass_pool.h"
#include "mlgo/store/build_store.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/builds/build_comparison.h"
#include "mlgo/builds/linked_choices.h"
#include "mlgo/builds/project_build.h"
#include "mlgo/launcher/application.h"
#include "mlgo/launcher/cc_options.h"
#include "mlgo/launcher/unit_choices.h"
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
  std::string bench;
  unsigned benchRuns = 5;
  bool neverLarger = false;
  size_t storeBuilds = 0;
  size_t explore = 5;
  bool force = false;
};

/// The store the --store-builds ways share: every build of them learns from
/// the ones before.
fs::path storeOf(const CompareBuildsFlags &flags) { return fs::absolute(fs::path(flags.output) / "units.db"); }

std::vector<builds::BuildVariant> variantsOf(const CompareBuildsFlags &flags) {
  using launcher::CcSettings;
  using launcher::ccAssignment;
  const std::string policy =
      flags.policy.empty() ? "" : ccAssignment(&CcSettings::policy, fs::absolute(flags.policy).string());
  const std::string predict = ccAssignment(&CcSettings::predict, "1");
  // The ways the choice file is made from are measured raw: each unit's
  // linked bytes as the way alone gives them.
  const std::string unchecked = ccAssignment(&CcSettings::uncheckedLinks, "1");
  std::vector<builds::BuildVariant> variants{{"clang-19", false, {}}, {"mlgo-cc", true, {}}};
  if (!flags.policy.empty()) variants.push_back({"policy", true, {policy, unchecked}, true});
  if (!flags.policy.empty() && flags.neverLarger)
    variants.push_back({"never-larger", true, {policy, ccAssignment(&CcSettings::neverLarger, "1")}});
  if (!flags.passLists.empty())
    variants.push_back({"pass-lists",
                        true,
                        {ccAssignment(&CcSettings::passLists, fs::absolute(flags.passLists).string()), unchecked},
                        true});
  if (flags.predict) variants.push_back({"predicted", true, {predict, unchecked}, true});
  for (size_t build = 1; build <= flags.storeBuilds; ++build)
    variants.push_back({"store-" + std::to_string(build),
                        true,
                        {ccAssignment(&CcSettings::store, storeOf(flags).string()),
                         ccAssignment(&CcSettings::explore, std::to_string(flags.explore)), predict}});
  return variants;
}

bool isStoreWay(const builds::BuildVariant &variant) { return variant.name.rfind("store-", 0) == 0; }

/// What the linker kept of a store way's units goes into the store, so that
/// the next build chooses by what ships rather than by object sizes.
void teachStore(const CompareBuildsFlags &flags, const builds::BuiltVariant &storeWay,
                const builds::BuiltVariant &plain, const fs::path &buildRoot) {
  const std::vector<store::KeptByLinker> kept = builds::keptForStore(storeWay, plain, buildRoot);
  if (kept.empty()) return;
  const autotune::SearchSpace space = autotune::SearchSpace::load(autotune::defaultSearchSpaceFile());
  store::BuildStore store(storeOf(flags), store::storeIdentity(autotune::searchSpaceHash(space)));
  if (!store.usable()) return;
  store.recordKept(kept);
  std::set<std::string> units;
  for (const store::KeptByLinker &entry : kept) units.insert(entry.unit);
  spdlog::info("{}: what the linker kept of {} units went into the store", storeWay.variant.name, units.size());
}

bool isWithin(const fs::path &inner, const fs::path &outer) {
  const fs::path relative = inner.lexically_relative(outer);
  return !relative.empty() && *relative.begin() != "..";
}

/// Where the output may go: never around the project (--force would remove
/// it), nor inside a make or configure project's tree, which every way
/// copies (the copy would hold itself).
void checkOutputPlace(const CompareBuildsFlags &flags, builds::ProjectKind kind) {
  const fs::path project = fs::weakly_canonical(flags.project), output = fs::weakly_canonical(flags.output);
  if (isWithin(project, output))
    throw UsageError("--output " + flags.output + " holds the project " + flags.project +
                     ": choose an output outside it (nothing was written)");
  if (kind != builds::ProjectKind::CMake && isWithin(output, project))
    throw UsageError("--output " + flags.output + " is inside the " + builds::projectKindName(kind) + " project " +
                     flags.project + ", whose tree every build copies: choose an output outside it (nothing was "
                     "written)");
}

/// A way with something to apply whose log names no unit: the build never
/// called mlgo cc's compiler (a Makefile that names gcc itself), so its
/// sizes say nothing about what was applied.
void markUnmeasured(builds::BuiltVariant &built) {
  if (!built.variant.ccEnvironment.empty() && built.outcome.built && built.units == 0) {
    built.measured = false;
    spdlog::warn("the {} build compiled no unit through mlgo cc (does the build call its own compiler?): not "
                 "measured",
                 built.variant.name);
  }
}

/// Builds one way into OUTPUT/NAME (replacing an earlier round's), with its
/// linked files, its objects and what the linker kept of each unit.
builds::BuiltVariant buildVariant(const CompareBuildsFlags &flags, const builds::BuildSettings &settings,
                                  const builds::BuildVariant &variant) {
  spdlog::info("building {} ({})", flags.project, variant.name);
  const fs::path directory = fs::path(flags.output) / variant.name;
  fs::remove_all(directory);
  builds::BuiltVariant built;
  built.variant = variant;
  built.outcome = builds::buildProject(settings, variant, directory);
  if (!built.outcome.built) {
    spdlog::error("the {} build failed: see {}", variant.name, built.outcome.log.string());
  } else {
    built.artifacts = builds::findArtifacts(built.outcome.tree);
    built.kept = builds::attributeLinkMaps(directory / "link-maps", settings.buildTree, built.outcome.tree);
  }
  builds::countLauncherLog(built);
  markUnmeasured(built);
  return built;
}

/// The choice-file build: each unit the way whose linked bytes were smallest,
/// built and checked against the plain build; units that still made a linked
/// file larger are set plain and it is built again, at worst until every unit
/// is plain (clang's own objects), so that it is never larger anywhere.
builds::BuiltVariant buildChoices(const CompareBuildsFlags &flags, const builds::BuildSettings &settings,
                                  const std::vector<builds::BuiltVariant> &built, size_t &rounds) {
  constexpr size_t kRoundsBeforeAllPlain = 3;
  const fs::path file = fs::absolute(fs::path(flags.output) / "choices.json");
  launcher::UnitChoices choices =
      builds::chooseUnits(built, settings.buildTree, flags.policy.empty() ? fs::path() : fs::absolute(flags.policy));
  // Its links ship as linked: the rounds compare them with the plain build's
  // themselves, and find the units to set plain from what each link kept.
  const builds::BuildVariant variant{"choices",
                                     true,
                                     {launcher::ccAssignment(&launcher::CcSettings::choices, file.string()),
                                      launcher::ccAssignment(&launcher::CcSettings::uncheckedLinks, "1")}};
  for (rounds = 1;; ++rounds) {
    writeFileAtomically(file, launcher::unitChoicesToJson(choices).dump(2) + "\n");
    builds::BuiltVariant chosen = buildVariant(flags, settings, variant);
    if (!chosen.outcome.built) return chosen;
    const std::vector<std::string> larger = builds::largerLinkedFiles(chosen, built.front());
    if (larger.empty()) return chosen;
    size_t reverted = 0;
    if (rounds < kRoundsBeforeAllPlain)
      reverted = builds::revertUnits(choices, chosen, built.front(), larger, settings.buildTree);
    if (reverted == 0) {
      for (auto &[module, choice] : choices.units) choice = launcher::UnitChoice{};
      spdlog::info("choices: {} linked files still larger; every unit plain", larger.size());
    } else {
      spdlog::info("choices: {} linked files larger than plain; {} units set plain", larger.size(), reverted);
    }
  }
}

int runCompareBuilds(const CompareBuildsFlags &flags) {
  // Every input checked before anything is built or written.
  checkOutputPlace(flags, builds::detectProjectKind(flags.project));
  launcher::ApplicationFiles given;
  given.policy = flags.policy;
  given.passLists = flags.passLists;
  given.predict = flags.predict;
  launcher::loadApplication(given, std::chrono::milliseconds(1));
  const auto outputLock = claimOutput(flags.output, "compare-builds", freshOutput(flags.force));
  builds::BuildSettings settings;
  settings.project = fs::absolute(flags.project);
  settings.mlgo = fs::read_symlink("/proc/self/exe");
  settings.jobs = flags.jobs;
  settings.testTarget = flags.testTarget;
  settings.configureArgs = flags.configureArgs;
  settings.makeArgs = flags.makeArgs;
  settings.optimization = flags.optimization == "project" ? "" : flags.optimization;
  settings.bench = flags.bench;
  settings.benchRuns = flags.benchRuns;
  settings.buildTree = fs::absolute(fs::path(flags.output) / "building");
  std::vector<builds::BuiltVariant> built;
  for (const builds::BuildVariant &variant : variantsOf(flags)) {
    built.push_back(buildVariant(flags, settings, variant));
    if (isStoreWay(variant)) teachStore(flags, built.back(), built.front(), settings.buildTree);
  }
  size_t rounds = 0;
  const bool somethingApplied = built.size() > 2;
  if (somethingApplied && built.front().outcome.built) built.push_back(buildChoices(flags, settings, built, rounds));
  const bool allBuilt =
      std::all_of(built.begin(), built.end(), [](const builds::BuiltVariant &b) { return b.outcome.built; });
  nlohmann::json comparison = builds::comparisonToJson(built, settings.optimization);
  if (somethingApplied) comparison["choice_rounds"] = rounds;
  writeFileAtomically(fs::path(flags.output) / "comparison.json", comparison.dump(2) + "\n");
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
  command->add_flag("--never-larger", flags->neverLarger,
                    "Also build with the policy and mlgo cc --never-larger (each unit's object never larger than "
                    "its plain compile)");
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
  command->add_option("--bench", flags->bench,
                      "A benchmark command run in each built tree after its tests (through sh), --bench-runs times; "
                      "the table reports its median wall time");
  command->add_option("--bench-runs", flags->benchRuns, "How often --bench runs per build")
      ->capture_default_str()
      ->check(wholeNumber(1, 1000));
  command->add_option("--store-builds", flags->storeBuilds,
                      "Also build N times in a row with one store (mlgo cc --store OUTPUT/units.db --explore K "
                      "--predict): the ways store-1 .. store-N show what each build learned")
      ->capture_default_str()
      ->check(wholeNumber(0, 1000));
  command->add_option("--explore", flags->explore, "New lists each unit tries per --store-builds build")
      ->capture_default_str()
      ->check(wholeNumber(1, 1000));
  command->add_flag("--force", flags->force, "Replace the builds an earlier run left in --output");
  command->callback([flags, &runner] { runner = [flags] { return runCompareBuilds(*flags); }; });
}

}  // namespace mlgo::cli
