#include "mlgo/builds/project_build.h"

#include <algorithm>

#include "mlgo/launcher/cc_options.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/subprocess.h"

namespace mlgo::builds {

namespace fs = std::filesystem;

ProjectKind detectProjectKind(const fs::path &project) {
  if (fs::is_regular_file(project / "CMakeLists.txt")) return ProjectKind::CMake;
  if (fs::is_regular_file(project / "configure")) return ProjectKind::Configure;
  if (fs::is_regular_file(project / "Makefile") || fs::is_regular_file(project / "makefile") ||
      fs::is_regular_file(project / "GNUmakefile"))
    return ProjectKind::Make;
  throw InputError(describeInputProblem(project.string(), "",
                                        "not a project mlgo can build: no CMakeLists.txt, configure or Makefile"));
}

const char *projectKindName(ProjectKind kind) {
  switch (kind) {
    case ProjectKind::CMake: return "cmake";
    case ProjectKind::Configure: return "configure";
    case ProjectKind::Make: return "make";
  }
  return "?";
}

const char *testResultName(TestResult result) {
  switch (result) {
    case TestResult::Passed: return "passed";
    case TestResult::Failed: return "failed";
    case TestResult::None: return "none";
  }
  return "?";
}

namespace {

/// One step of a build: `command` in `directory` with `variables` added to
/// the environment, its output appended to the log.
class StepRunner {
 public:
  StepRunner(fs::path log, std::chrono::minutes timeout) : log_(std::move(log)), timeout_(timeout) {}
  bool run(const fs::path &directory, const std::vector<std::string> &variables,
           const std::vector<std::string> &command) const {
    std::vector<std::string> argv{"/bin/sh", "-c",
                                  "log=$1; directory=$2; shift 2; echo \"+ $*\" >>\"$log\"; "
                                  "cd \"$directory\" && exec env \"$@\" >>\"$log\" 2>&1",
                                  "sh", log_.string(), directory.string()};
    argv.insert(argv.end(), variables.begin(), variables.end());
    argv.insert(argv.end(), command.begin(), command.end());
    return runProcess(argv, timeout_).succeeded();
  }

 private:
  fs::path log_;
  std::chrono::minutes timeout_;
};

/// A word as POSIX sh reads it back: make and configure run their compiler
/// variables through the shell.
std::string shellQuoted(const std::string &word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%") ==
                           std::string::npos)
    return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/// VARIABLE=COMMAND for a make or configure command line: the launcher and
/// the compiler, quoted for the shell that runs them.
std::string compilerVariable(const BuildSettings &settings, const std::string &variable, const std::string &compiler) {
  return variable + "=" + shellQuoted(settings.mlgo.string()) + " cc " + compiler;
}

/// The commands that configure, build and test the project one way; empty
/// when a step does not apply (a make project has no configure step).
struct BuildCommands {
  std::vector<std::string> configure, build, test;
};

BuildCommands commandsFor(const BuildSettings &settings, ProjectKind kind, const fs::path &tree) {
  BuildCommands commands;
  const std::string jobs = std::to_string(settings.jobs);
  if (kind == ProjectKind::CMake) {
    commands.configure = {"cmake", "-S", fs::absolute(settings.project).string(), "-B", tree.string(),
                          "-DCMAKE_C_COMPILER=clang-19", "-DCMAKE_CXX_COMPILER=clang++-19"};
    // Every way goes through the launcher, for its links' maps; with nothing
    // to apply it runs clang itself (objects byte for byte clang's).
    const std::string launcher = settings.mlgo.string() + ";cc";  // a CMake list
    for (const char *language : {"C", "CXX"})
      for (const char *step : {"COMPILER", "LINKER"})
        commands.configure.push_back(std::string("-DCMAKE_") + language + "_" + step + "_LAUNCHER=" + launcher);
    if (!settings.optimization.empty())
      for (const std::string &argument : {std::string("-DCMAKE_BUILD_TYPE=MinSizeRel"),
                                          "-DCMAKE_C_FLAGS_MINSIZEREL=" + settings.optimization + " -DNDEBUG",
                                          "-DCMAKE_CXX_FLAGS_MINSIZEREL=" + settings.optimization + " -DNDEBUG"})
        commands.configure.push_back(argument);
    commands.configure.insert(commands.configure.end(), settings.configureArgs.begin(), settings.configureArgs.end());
    commands.build = {"cmake", "--build", tree.string(), "-j", jobs};
    commands.build.insert(commands.build.end(), settings.makeArgs.begin(), settings.makeArgs.end());
    commands.test = {"ctest", "--test-dir", tree.string(), "-j", jobs, "--output-on-failure"};
    return commands;
  }
  const std::string cc = compilerVariable(settings, "CC", "clang-19");
  const std::string cxx = compilerVariable(settings, "CXX", "clang++-19");
  if (kind == ProjectKind::Configure) {
    commands.configure = {"./configure", cc, cxx};
    commands.configure.insert(commands.configure.end(), settings.configureArgs.begin(), settings.configureArgs.end());
  }
  commands.build = {"make", "-j" + jobs, cc, cxx};
  commands.build.insert(commands.build.end(), settings.makeArgs.begin(), settings.makeArgs.end());
  commands.test = commands.build;
  commands.test.push_back(settings.testTarget);
  return commands;
}

/// Whether the build has tests to run: CTest's file, or a make rule for the
/// test target (make -q exits 2 when it has none at all).
bool hasTests(const BuildSettings &settings, ProjectKind kind, const fs::path &tree) {
  if (kind == ProjectKind::CMake) return fs::exists(tree / "CTestTestfile.cmake");
  const ProcessOutcome probe =
      runProcess({"make", "-C", tree.string(), "-q", settings.testTarget}, std::chrono::minutes(1));
  return !(probe.started && probe.exitCode == 2);
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// --bench: the user's command run `benchRuns` times in the tree (through
/// sh, as a build system would run it); the median wall time.
void runBenchmark(const BuildSettings &settings, const StepRunner &steps, const fs::path &tree,
                  BuildOutcome &outcome) {
  if (settings.bench.empty()) return;
  std::vector<double> seconds;
  for (unsigned run = 0; run < settings.benchRuns; ++run) {
    const auto start = std::chrono::steady_clock::now();
    if (!steps.run(tree, {}, {"/bin/sh", "-c", settings.bench})) return;  // a failing benchmark has no time
    seconds.push_back(secondsSince(start));
  }
  std::sort(seconds.begin(), seconds.end());
  const size_t n = seconds.size();
  outcome.benchSeconds = n % 2 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
}

/// Configures, builds and tests in `tree`; fills the outcome's timings and results.
void buildIn(const BuildSettings &settings, const BuildVariant &variant, ProjectKind kind, const fs::path &tree,
             const fs::path &directory, const std::vector<std::string> &variables, BuildOutcome &outcome) {
  const StepRunner steps(outcome.log, settings.timeout);
  // A make project builds in its copy: the source tree stays as it was.
  if (kind != ProjectKind::CMake)
    fs::copy(settings.project, tree, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const BuildCommands commands = commandsFor(settings, kind, tree);
  const fs::path workingDirectory = kind == ProjectKind::CMake ? directory : tree;
  auto start = std::chrono::steady_clock::now();
  if (!commands.configure.empty() && !steps.run(workingDirectory, variables, commands.configure)) return;
  outcome.configureSeconds = secondsSince(start);
  start = std::chrono::steady_clock::now();
  outcome.built = steps.run(workingDirectory, variables, commands.build);
  outcome.buildSeconds = secondsSince(start);
  if (!outcome.built || !hasTests(settings, kind, tree)) return;
  // Test scripts written for autotools find their data through $srcdir.
  std::vector<std::string> testVariables = variables;
  testVariables.push_back("srcdir=" + (kind == ProjectKind::CMake ? fs::absolute(settings.project) : tree).string());
  start = std::chrono::steady_clock::now();
  outcome.tests = steps.run(workingDirectory, testVariables, commands.test) ? TestResult::Passed : TestResult::Failed;
  outcome.testSeconds = secondsSince(start);
  runBenchmark(settings, steps, tree, outcome);
}

}  // namespace

BuildOutcome buildProject(const BuildSettings &settings, const BuildVariant &variant, const fs::path &directory) {
  const ProjectKind kind = detectProjectKind(settings.project);
  fs::create_directories(directory);
  BuildOutcome outcome;
  outcome.tree = fs::absolute(directory / "tree");
  outcome.log = fs::absolute(directory / "build.log");
  using launcher::CcSettings;
  std::vector<std::string> variables{
      launcher::ccAssignment(&CcSettings::linkMaps, fs::absolute(directory / "link-maps").string())};
  // configure takes them as its defaults; a Makefile that assigns its own
  // CFLAGS keeps them, as it would for a user.
  if (kind != ProjectKind::CMake && !settings.optimization.empty())
    variables.insert(variables.end(), {"CFLAGS=" + settings.optimization, "CXXFLAGS=" + settings.optimization});
  variables.insert(variables.end(), variant.ccEnvironment.begin(), variant.ccEnvironment.end());
  if (variant.throughLauncher) {
    outcome.ccLog = fs::absolute(directory / "cc.jsonl");
    variables.push_back(launcher::ccAssignment(&CcSettings::log, outcome.ccLog.string()));
  }
  if (settings.buildTree.empty()) {
    buildIn(settings, variant, kind, outcome.tree, directory, variables, outcome);
    return outcome;
  }
  // Every way builds at the same path, then moves aside: paths compiled into
  // the program (__FILE__, build directories) are then the same bytes.
  const fs::path tree = fs::absolute(settings.buildTree);
  fs::remove_all(tree);
  buildIn(settings, variant, kind, tree, directory, variables, outcome);
  fs::remove_all(outcome.tree);
  if (fs::exists(tree)) fs::rename(tree, outcome.tree);
  return outcome;
}

}  // namespace mlgo::builds
