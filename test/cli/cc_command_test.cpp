#include <catch2/catch.hpp>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "mlgo/driver/object_sizes.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/text_input.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// The test project's sources by the module names its corpus gives them.
const std::vector<std::pair<std::string, std::string>> kProjectModules{
    {"helpers.o", "helpers.c"},       {"big_callee.o", "big_callee.c"}, {"tables.o", "tables.c"},
    {"sub/list.o", "sub/list.c"},     {"recursion.o", "recursion.c"},   {"strings.o", "strings.c"},
    {"shapes.o", "shapes.cpp"}};

std::string compilerFor(const std::string &source) {
  return source.size() > 4 && source.substr(source.size() - 4) == ".cpp" ? "clang++-19" : "clang-19";
}

/// `mlgo cc OPTIONS COMPILER ARGS` in `directory`.
test::CommandOutcome launch(const fs::path &directory, std::vector<std::string> options,
                            const std::vector<std::string> &compile, const std::vector<std::string> &variables = {}) {
  std::vector<std::string> command{test::mlgoBinary(), "cc"};
  command.insert(command.end(), options.begin(), options.end());
  command.insert(command.end(), compile.begin(), compile.end());
  return test::runIn(directory, command, variables);
}

std::vector<json> logLines(const fs::path &log) {
  std::vector<json> lines;
  forEachLine(readFile(log), [&](size_t, std::string_view line) {
    if (!line.empty()) lines.push_back(json::parse(line));
  });
  return lines;
}

/// Compiles every test-project source with -Oz to its module's object name in
/// `build`, through mlgo cc with `options` and a log; the log's lines by module.
std::map<std::string, json> buildTestProject(const fs::path &build, std::vector<std::string> options) {
  fs::create_directories(build / "sub");
  options.insert(options.end(), {"--log", (build / "cc.log").string()});
  for (const auto &[module, source] : kProjectModules) {
    const test::CommandOutcome built = launch(
        build, options, {compilerFor(source), "-Oz", "-c", (test::testData() / source).string(), "-o", module});
    INFO(built.err);
    REQUIRE(built.exitCode == 0);
  }
  std::map<std::string, json> byModule;
  for (const json &line : logLines(build / "cc.log")) byModule[line["module"]] = line;
  return byModule;
}

/// eval --json's candidate sizes by module.
std::map<std::string, json> evalCandidate(const std::vector<std::string> &args, const fs::path &output) {
  std::vector<std::string> command{"eval", "--json", output.string()};
  command.insert(command.end(), args.begin(), args.end());
  const test::CommandOutcome evaluated = test::runMlgo(command);
  INFO(evaluated.err);
  REQUIRE(evaluated.exitCode == 0);
  const json report = readJsonFile(output);
  std::map<std::string, json> sizes;
  for (const json &module : report["modules"]) sizes[module["name"]] = module["candidate"];
  return sizes;
}

/// A best.json that lists a list for a module no test compiles: whatever it
/// gets, every other unit goes through the in-process path with nothing applied.
fs::path listsForAnotherModule(const fs::path &directory) {
  const fs::path path = directory / "other-best.json";
  writeFileAtomically(path, json{{"format", "mlgo-autotune"},
                                 {"modules",
                                  {{{"name", "elsewhere.o"},
                                    {"passes", {"default<Oz>", "dce"}},
                                    {"pipeline", "default<Oz>,function(dce)"}}}}}
                                .dump());
  return path;
}

}  // namespace

TEST_CASE("mlgo cc: objects are clang-19's byte for byte, whether it runs clang or compiles in-process with nothing "
          "to apply",
          "[cli][launcher][clang]") {
  test::ScratchDirectory scratch;
  const fs::path otherLists = listsForAnotherModule(scratch.path());
  const std::vector<std::vector<std::string>> flagSets{
      {"-Oz"}, {"-O2"}, {"-O2", "-g"}, {"-Oz", "-fPIC"}, {"-O2", "-ffunction-sections", "-fdata-sections"},
      {"-Oz", "-g", "-fPIC", "-DGREETING=\"hello, wide world\""}};
  for (const std::string source : {"helpers.c", "strings.c", "shapes.cpp", "labels.c", "labels.cpp"})
    for (const std::vector<std::string> &flags : flagSets) {
      std::vector<std::string> compile{compilerFor(source)};
      compile.insert(compile.end(), flags.begin(), flags.end());
      compile.insert(compile.end(), {"-c", (test::testData() / source).string(), "-o", "unit.o"});
      CAPTURE(compile);
      REQUIRE(test::runIn(scratch.path(), compile).exitCode == 0);
      const std::string clangObject = readFile(scratch / "unit.o");
      fs::remove(scratch / "unit.o");
      REQUIRE(launch(scratch.path(), {}, compile).exitCode == 0);
      CHECK(readFile(scratch / "unit.o") == clangObject);
      fs::remove(scratch / "unit.o");
      const test::CommandOutcome inProcess =
          launch(scratch.path(), {"--pass-lists", otherLists.string(), "--log", (scratch / "log").string()}, compile);
      INFO(inProcess.err);
      REQUIRE(inProcess.exitCode == 0);
      CHECK(readFile(scratch / "unit.o") == clangObject);
      const json logged = logLines(scratch / "log").back();
      CHECK(logged["module"] == "unit.o");
      CHECK_FALSE(logged.contains("fallback"));
      CHECK(logged["applied"].empty());
    }
}

TEST_CASE("mlgo cc --policy: each unit's sizes are what mlgo eval --policy measures on its corpus module",
          "[cli][launcher][clang]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 7).save(traced / "policy");
  const std::map<std::string, json> built = buildTestProject(traced / "build", {"--policy", (traced / "policy").string()});
  const std::map<std::string, json> evaluated =
      evalCandidate({"--corpus", (traced / "corpus").string(), "--policy", (traced / "policy").string()},
                    traced / "eval.json");
  uint64_t decisions = 0;
  for (const auto &[module, source] : kProjectModules) {
    CAPTURE(module);
    REQUIRE(built.count(module));
    const json &line = built.at(module);
    CHECK(line["applied"]["policy"] == (traced / "policy").string());
    CHECK(line["text"] == evaluated.at(module)["text"]);
    CHECK(line["text_data"] == evaluated.at(module)["text+data"]);
    decisions += line["decisions"].get<uint64_t>();
  }
  CHECK(decisions > 0);
}

TEST_CASE("mlgo cc --pass-lists: each unit gets its module's tuned list, sized as mlgo eval --pass-lists measures",
          "[cli][launcher][clang]") {
  test::TracedTestCorpus traced;
  const test::CommandOutcome tuned =
      test::runMlgo({"autotune", "--corpus", (traced / "corpus").string(), "--output", (traced / "tune").string(),
                     "--budget", "20", "--no-gate", "--threads", "1"});
  INFO(tuned.err);
  REQUIRE(tuned.exitCode == 0);
  const fs::path best = traced / "tune" / "best.json";
  const std::map<std::string, json> built = buildTestProject(traced / "build", {"--pass-lists", best.string()});
  const std::map<std::string, json> evaluated =
      evalCandidate({"--corpus", (traced / "corpus").string(), "--pass-lists", best.string()}, traced / "eval.json");
  size_t withList = 0;
  for (const auto &[module, source] : kProjectModules) {
    CAPTURE(module);
    const json &line = built.at(module);
    CHECK(line["text"] == evaluated.at(module)["text"]);
    CHECK(line["text_data"] == evaluated.at(module)["text+data"]);
    withList += line["applied"].contains("pass_list");
  }
  CHECK(withList > 0);
}

TEST_CASE("mlgo cc --predict: each unit keeps the smallest of the recorded level and the predictor's first lists, as "
          "autotune --strategy predicted does",
          "[cli][launcher][clang]") {
  test::TracedTestCorpus traced;
  const test::CommandOutcome tuned = test::runMlgo({"autotune", "--corpus", (traced / "corpus").string(), "--output",
                                                    (traced / "predicted").string(), "--strategy", "predicted",
                                                    "--budget", "3", "--threads", "1"});
  INFO(tuned.err);
  REQUIRE(tuned.exitCode == 0);
  const json best = readJsonFile(traced / "predicted" / "best.json");
  // autotune weighs no compile cost: nor does a build without a bound.
  const std::map<std::string, json> built =
      buildTestProject(traced / "build", {"--predict", "--predicted-lists", "3", "--cost-bound", "100"});
  size_t improved = 0;
  for (const json &module : best["modules"]) {
    const std::string name = module["name"];
    CAPTURE(name);
    const json &line = built.at(name);
    CHECK(line["text_data"] == module["best"]["text+data"]);
    CHECK(line["applied"]["compiles"] == 4);
    CHECK(line["applied"].contains("pass_list") == (module["pipeline"] != "-Oz"));
    improved += line["applied"].contains("pass_list");
    CHECK_FALSE(line.contains("over_cost_bound"));
  }
  CHECK(improved > 0);
}

TEST_CASE("mlgo cc --predict: a predicted list over --cost-bound is skipped for the next one", "[cli][launcher][clang]") {
  test::ScratchDirectory scratch;
  // At a bound of 1, a list dearer than the unit's -Oz compile is cut short.
  const std::map<std::string, json> strict =
      buildTestProject(scratch / "strict", {"--predict", "--predicted-lists", "2", "--cost-bound", "1"});
  const std::map<std::string, json> unbounded =
      buildTestProject(scratch / "unbounded", {"--predict", "--predicted-lists", "2", "--cost-bound", "100"});
  size_t over = 0;
  for (const auto &[module, line] : strict) {
    CAPTURE(module);
    const size_t skipped = line.value("over_cost_bound", size_t(0));
    over += skipped;
    // The recorded level, the lists within the bound (2 at most), the ones skipped (3 spares at most).
    const size_t compiles = line["applied"]["compiles"];
    CHECK(compiles - 1 - skipped <= 2);
    CHECK(skipped <= 3 + 2 - (compiles - 1 - skipped));
    if (compiles - 1 - skipped < 2) CHECK(compiles == 1 + 2 + 3);  // the ranking's spares ran out
    // A list that fits is one the unbounded build may take too: where the
    // bound skipped none, both builds chose alike.
    if (skipped == 0) CHECK(line["text_data"] == unbounded.at(module)["text_data"]);
  }
  CHECK(over > 0);
  for (const auto &[module, line] : unbounded) CHECK(line["applied"]["compiles"] == 3);
}

TEST_CASE("mlgo cc loads its own library, not OpenMPI, protobuf or the other commands, and mlgo --help lists it",
          "[cli][launcher]") {
  // A build starts mlgo cc once per compile: what it loads is paid each time.
  const test::CommandOutcome loaded = test::runMlgoWithEnvironment({"LD_DEBUG=files"}, {"cc", "--print-plugin-path"});
  REQUIRE(loaded.exitCode == 0);
  CHECK_THAT(loaded.err, Contains("libmlgo_cc.so") && Contains("libclang-cpp") && !Contains("libmlgo_cli.so") &&
                             !Contains("libmpi") && !Contains("libprotobuf"));
  const test::CommandOutcome help = test::runMlgo({"--help"});
  REQUIRE(help.exitCode == 0);
  CHECK_THAT(help.out, Contains("Compiler launcher: build with a policy"));
  // The same flags and exit codes as from the full command line.
  const test::CommandOutcome refused = test::runMlgo({"cc", "--predicted-lists", "0", "clang-19", "-c", "x.c"});
  CHECK(refused.exitCode == exit_code::kUsage);
  CHECK_THAT(refused.err, Contains("--predicted-lists: expected a whole number of at least 1"));
}

TEST_CASE("pass plugin: a stock clang-19 given the plugin writes mlgo cc --policy's objects", "[cli][launcher][clang]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 3).save(traced / "policy");
  const test::CommandOutcome printed = test::runMlgo({"cc", "--print-plugin-path"});
  REQUIRE(printed.exitCode == 0);
  const std::string plugin = printed.out.substr(0, printed.out.find('\n'));
  REQUIRE(fs::is_regular_file(plugin));
  const fs::path build = traced / "build";
  fs::create_directories(build);
  const std::string policyVariable = "MLGO_CC_POLICY=" + (traced / "policy").string();
  // labels.c and labels.cpp: private names the optimizer creates after the frontend's.
  for (const std::string source : {"helpers.c", "big_callee.c", "shapes.cpp", "labels.c", "labels.cpp"})
    for (const std::vector<std::string> &flags :
         {std::vector<std::string>{"-Oz"}, std::vector<std::string>{"-Oz", "-fdata-sections", "-ffunction-sections"}}) {
      CAPTURE(source, flags);
      const std::string path = (test::testData() / source).string();
      std::vector<std::string> compile{compilerFor(source)};
      compile.insert(compile.end(), flags.begin(), flags.end());
      compile.insert(compile.end(), {"-c", path, "-o", "launched.o"});
      REQUIRE(launch(build, {"--policy", (traced / "policy").string()}, compile).exitCode == 0);
      compile.back() = "plugged.o";
      compile.insert(compile.begin() + 1, "-fpass-plugin=" + plugin);
      const test::CommandOutcome plugged = test::runIn(build, compile, {policyVariable});
      INFO(plugged.err);
      REQUIRE(plugged.exitCode == 0);
      CHECK(readFile(build / "plugged.o") == readFile(build / "launched.o"));
    }
  // A compile asked to use a policy never goes on without one.
  const std::string helpers = (test::testData() / "helpers.c").string();
  const test::CommandOutcome unset =
      test::runIn(build, {"clang-19", "-Oz", "-fpass-plugin=" + plugin, "-c", helpers, "-o", "none.o"});
  CHECK(unset.exitCode == 1);
  CHECK_THAT(unset.err, Contains("set MLGO_CC_POLICY"));
  const test::CommandOutcome missing =
      test::runIn(build, {"clang-19", "-Oz", "-fpass-plugin=" + plugin, "-c", helpers, "-o", "none.o"},
                  {"MLGO_CC_POLICY=" + (traced / "no-policy").string()});
  CHECK(missing.exitCode == 1);
  CHECK_THAT(missing.err, Contains("no-policy/policy.json"));
  // Nothing half-written stays behind.
  for (const fs::directory_entry &entry : fs::directory_iterator(build))
    CHECK_THAT(entry.path().filename().string(), !Contains("none"));
}

TEST_CASE("pass plugin: opt-19 is refused with a message saying why, never aborted", "[cli][launcher][clang]") {
  test::ScratchDirectory scratch;
  const test::CommandOutcome printed = test::runMlgo({"cc", "--print-plugin-path"});
  REQUIRE(printed.exitCode == 0);
  const std::string plugin = printed.out.substr(0, printed.out.find('\n'));
  const std::string helpers = (test::testData() / "helpers.c").string();
  REQUIRE(test::runIn(scratch.path(), {"clang-19", "-O1", "-emit-llvm", "-c", helpers, "-o", "helpers.bc"})
              .exitCode == 0);
  // Without the loader, opt-19 aborts loading clang's library ("Option
  // 'pgo-cold-func-opt' registered more than once").
  const test::CommandOutcome opt =
      test::runIn(scratch.path(), {"opt-19", "-load-pass-plugin=" + plugin, "-passes=default<Oz>", "helpers.bc",
                                   "-o", "out.bc"},
                  {"MLGO_CC_POLICY=" + (scratch / "policy").string()});
  INFO(opt.err);
  CHECK(opt.exitCode == 1);
  CHECK_THAT(opt.err, Contains("error: mlgo pass plugin: ") && Contains("defines the LLVM option -pgo-cold-func-opt") &&
                          Contains("not in opt-19") && !Contains("registered more than once"));
  CHECK_FALSE(fs::exists(scratch / "out.bc"));
}

TEST_CASE("pass plugin: its loader checks every option clang's library registers", "[cli][launcher][clang]") {
  // The names libclang-cpp adds to a process that has only libLLVM, as a
  // program linked against libLLVM alone sees them.
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "options.cpp", R"(#include <dlfcn.h>
#include <cstdio>
#include <llvm/Support/CommandLine.h>
int main(int, char **argv) {
  std::vector<std::string> before;
  for (const auto &option : llvm::cl::getRegisteredOptions()) before.push_back(option.getKey().str());
  if (!dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL)) return 1;
  for (const auto &option : llvm::cl::getRegisteredOptions())
    if (std::find(before.begin(), before.end(), option.getKey().str()) == before.end())
      std::printf("%s\n", option.getKey().str().c_str());
}
)");
  test::compileCxx({"-isystem", MLGO_LLVM_INCLUDE_DIR, (scratch / "options.cpp").string(), "-o",
                    (scratch / "options").string(), "-L", MLGO_LLVM_LIBRARY_DIR, "-lLLVM", "-ldl",
                    std::string("-Wl,-rpath,") + MLGO_LLVM_LIBRARY_DIR});
  const test::CommandOutcome added = test::runProgram(
      (scratch / "options").string(), {std::string(MLGO_LLVM_LIBRARY_DIR) + "/libclang-cpp.so"});
  REQUIRE(added.exitCode == 0);
  const std::string loader = readFile(fs::path(MLGO_TEST_SOURCES).parent_path() / "src/plugin/plugin_loader.cpp");
  size_t names = 0;
  forEachLine(added.out, [&](size_t, std::string_view name) {
    CHECK_THAT(loader, Contains("\"" + std::string(name) + "\","));
    ++names;
  });
  CHECK(names > 0);
}

TEST_CASE("mlgo cc: inputs it cannot use stop the compile naming the file, units it cannot apply to build plainly",
          "[cli][launcher][clang][errors]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 5).save(traced / "policy");
  const fs::path build = traced / "build";
  fs::create_directories(build);
  const std::string helpers = (test::testData() / "helpers.c").string();
  const std::vector<std::string> compile{"clang-19", "-Oz", "-c", helpers, "-o", "helpers.o"};
  REQUIRE(test::runIn(build, compile).exitCode == 0);
  const std::string plainObject = readFile(build / "helpers.o");
  fs::remove(build / "helpers.o");

  SECTION("a missing policy, or one from the environment, is exit code 3 and no object") {
    const test::CommandOutcome missing = launch(build, {"--policy", (traced / "nothing").string()}, compile);
    CHECK(missing.exitCode == 3);
    CHECK_THAT(missing.err, Contains((traced / "nothing" / "policy.json").string()));
    const test::CommandOutcome fromEnvironment =
        launch(build, {}, compile, {"MLGO_CC_POLICY=" + (traced / "nothing").string()});
    CHECK(fromEnvironment.exitCode == 3);
    CHECK_FALSE(fs::exists(build / "helpers.o"));
  }
  SECTION("a malformed best.json is exit code 3 naming it") {
    writeFileAtomically(build / "best.json", "{\"format\": \"mlgo-autotune\", \"modules\": [{\"name\": 4}]}");
    const test::CommandOutcome malformed = launch(build, {"--pass-lists", (build / "best.json").string()}, compile);
    CHECK(malformed.exitCode == 3);
    CHECK_THAT(malformed.err, Contains("best.json: modules[0]"));
    CHECK_FALSE(fs::exists(build / "helpers.o"));
  }
  SECTION("a unit with errors gets clang's own diagnostics, once, and clang's exit code") {
    writeFileAtomically(build / "broken.c", "int f(void) { return undeclared; }\n");
    const std::vector<std::string> broken{"clang-19", "-Oz", "-c", "broken.c", "-o", "broken.o"};
    const test::CommandOutcome byClang = test::runIn(build, broken);
    const test::CommandOutcome launched =
        launch(build, {"--policy", (traced / "policy").string(), "--log", (build / "log").string()}, broken);
    CHECK(launched.exitCode == byClang.exitCode);
    CHECK(launched.exitCode != 0);
    CHECK(launched.err == byClang.err);
    CHECK(logLines(build / "log").back()["fallback"] == "clang's frontend reported errors");
  }
  SECTION("a unit that times out, or records a flag mlgo cannot reproduce, is compiled plainly with one warning") {
    const std::vector<std::string> options{"--policy", (traced / "policy").string(), "--log",
                                           (build / "log").string()};
    std::vector<std::string> timedOut = options;
    timedOut.insert(timedOut.end(), {"--timeout", "0.000001"});
    const test::CommandOutcome slow = launch(build, timedOut, compile);
    CHECK(slow.exitCode == 0);
    CHECK_THAT(slow.err, Contains(helpers + ": timeout") && Contains("compiled plainly"));
    CHECK(readFile(build / "helpers.o") == plainObject);
    CHECK_THAT(logLines(build / "log").back()["fallback"].get<std::string>(), Contains("timeout"));

    std::vector<std::string> recording = compile;
    recording.insert(recording.begin() + 1, "-fsave-optimization-record");
    REQUIRE(test::runIn(build, recording).exitCode == 0);
    const std::string recordingObject = readFile(build / "helpers.o");
    fs::remove(build / "helpers.o");
    const test::CommandOutcome refused = launch(build, options, recording);
    CHECK(refused.exitCode == 0);
    CHECK_THAT(refused.err, Contains("compiled plainly"));
    CHECK(readFile(build / "helpers.o") == recordingObject);
    CHECK(fs::exists(build / "helpers.opt.yaml"));
  }
}

TEST_CASE("mlgo cc: a CMake project builds through the launcher, unchanged without options, and passes its tests "
          "with a policy",
          "[cli][launcher][clang]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 9).save(traced / "policy");
  const fs::path project = test::testData() / "launcher" / "cmake";
  auto configureAndBuild = [&](const fs::path &build, bool launcher, const std::vector<std::string> &variables) {
    std::vector<std::string> configure{"cmake", "-S", project.string(), "-B", build.string(),
                                       "-DCMAKE_C_COMPILER=clang-19", "-DCMAKE_CXX_COMPILER=clang++-19",
                                       "-DCMAKE_BUILD_TYPE=MinSizeRel"};
    if (launcher)
      for (const char *language : {"C", "CXX"})
        configure.push_back(std::string("-DCMAKE_") + language + "_COMPILER_LAUNCHER=" + test::mlgoBinary() + ";cc");
    const test::CommandOutcome configured = test::runIn(traced.scratch.path(), configure, variables);
    INFO(configured.out << configured.err);
    REQUIRE(configured.exitCode == 0);
    const test::CommandOutcome built =
        test::runIn(traced.scratch.path(), {"cmake", "--build", build.string(), "-j", "2"}, variables);
    INFO(built.out << built.err);
    REQUIRE(built.exitCode == 0);
  };
  configureAndBuild(traced / "plain", false, {});
  configureAndBuild(traced / "launched", true, {});
  size_t objects = 0;
  for (const fs::directory_entry &entry : fs::recursive_directory_iterator(traced / "plain"))
    if (entry.path().extension() == ".o") {
      const fs::path twin = traced / "launched" / fs::relative(entry.path(), traced / "plain");
      CAPTURE(twin);
      CHECK(readFile(twin) == readFile(entry.path()));
      ++objects;
    }
  CHECK(objects == 3);

  const fs::path log = traced / "policy.log";
  configureAndBuild(traced / "policy-build", true,
                    {"MLGO_CC_POLICY=" + (traced / "policy").string(), "MLGO_CC_LOG=" + log.string()});
  const std::vector<json> lines = logLines(log);
  REQUIRE(lines.size() == 3);  // one per translation unit; CMake's own checks compile nothing in-process
  for (const json &line : lines) CHECK_FALSE(line.contains("fallback"));
  const test::CommandOutcome tested = test::runIn(traced / "policy-build", {"ctest", "--output-on-failure"});
  INFO(tested.out);
  CHECK(tested.exitCode == 0);
}

TEST_CASE("mlgo cc: a make project builds with CC=\"mlgo cc clang-19\" under -j, one whole log line per unit",
          "[cli][launcher][clang]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 13).save(traced / "policy");
  const fs::path build = traced / "make";
  fs::copy(test::testData() / "launcher" / "make", build);
  const fs::path log = traced / "make.log";
  const test::CommandOutcome made =
      test::runIn(build, {"make", "-j2", "CC=" + test::mlgoBinary() + " cc clang-19", "check"},
                  {"MLGO_CC_POLICY=" + (traced / "policy").string(), "MLGO_CC_LOG=" + log.string()});
  INFO(made.out << made.err);
  REQUIRE(made.exitCode == 0);
  CHECK_THAT(made.out, Contains("0 failures"));
  std::vector<json> lines = logLines(log);
  REQUIRE(lines.size() == 4);
  // The link, last, is compared with the link of clang's own objects.
  CHECK(lines.back()["link"] == "program");
  CHECK_THAT(lines.back()["store_link"].get<std::string>(), Catch::Matchers::Matches("plain-inputs|kept|plain"));
  lines.pop_back();
  std::set<std::string> modules;
  for (const json &line : lines) modules.insert(line["module"].get<std::string>());
  CHECK(modules == std::set<std::string>{"main.o", "stats.o", "table.o"});
}

TEST_CASE("mlgo cc: with nothing to apply, the compiler runs without mlgo's libraries loaded", "[cli][launcher]") {
  test::ScratchDirectory scratch;
  const test::CommandOutcome plain = test::runMlgoWithEnvironment(
      {"LD_DEBUG=files", "LD_DEBUG_OUTPUT=" + (scratch / "loader").string()}, {"cc", "clang-19", "--version"});
  REQUIRE(plain.exitCode == 0);
  CHECK_THAT(plain.out, Contains("clang version 19"));
  std::string log;
  for (const fs::directory_entry &entry : fs::directory_iterator(scratch.path())) log += readFile(entry.path());
  CHECK_THAT(log, Contains("libLLVM"));  // clang's own
  CHECK_THAT(log, !Contains("libmlgo_cli.so"));
  // With something to apply, the library does the work.
  const test::CommandOutcome withPolicy = test::runMlgoWithEnvironment(
      {"MLGO_CC_POLICY=" + (scratch / "none").string()}, {"cc", "clang-19", "--version"});
  CHECK(withPolicy.exitCode == 3);
}

TEST_CASE("mlgo cc --never-larger: a unit the policy grows keeps clang's plain object, and the log says so",
          "[cli][launcher][clang]") {
  test::TracedTestCorpus traced;
  test::fixedAnswerInliningPolicy(traced, true).save(traced / "inline-all");
  const fs::path build = traced / "build";
  fs::create_directories(build);
  const std::vector<std::string> compile{"clang-19", "-Oz", "-c", (test::testData() / "big_callee.c").string(),
                                         "-o", "big_callee.o"};
  REQUIRE(test::runIn(build, compile).exitCode == 0);
  const std::string plainObject = readFile(build / "big_callee.o");
  const std::vector<std::string> policy{"--policy", (traced / "inline-all").string(), "--log",
                                        (build / "log").string()};
  REQUIRE(launch(build, policy, compile).exitCode == 0);
  const json grown = logLines(build / "log").back();
  REQUIRE(grown["text_data"].get<uint64_t>() > 0);
  std::vector<std::string> backedUp = policy;
  backedUp.push_back("--never-larger");
  const test::CommandOutcome launched = launch(build, backedUp, compile);
  INFO(launched.err);
  REQUIRE(launched.exitCode == 0);
  const json kept = logLines(build / "log").back();
  CHECK(kept["backup"] == true);
  CHECK(kept["applied"]["never_larger"] == true);
  CHECK(kept["text_data"].get<uint64_t>() < grown["text_data"].get<uint64_t>());
  CHECK(readFile(build / "big_callee.o") == plainObject);

  // eval counts the same unit as its plain compile.
  const test::CommandOutcome evaluated =
      test::runMlgo({"eval", "--corpus", (traced / "corpus").string(), "--policy", (traced / "inline-all").string(),
                     "--never-larger", "--json", (traced / "eval.json").string()});
  INFO(evaluated.err);
  REQUIRE(evaluated.exitCode == 0);
  const json report = readJsonFile(traced / "eval.json");
  CHECK(report["totals"]["backups"].get<size_t>() > 0);
  for (const json &module : report["modules"]) {
    CAPTURE(module["name"]);
    CHECK(module["candidate"]["text+data"].get<uint64_t>() <= module["baseline"]["text+data"].get<uint64_t>());
    if (module["name"] == "big_callee.o") CHECK(module["backup"] == true);
  }
}

TEST_CASE("mlgo cc: an -O0 unit is compiled as clang compiles it, whatever was given, and counted in the log",
          "[cli][launcher][clang]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 7).save(traced / "policy");
  const fs::path build = traced / "build";
  fs::create_directories(build);
  const std::string helpers = (test::testData() / "helpers.c").string();
  for (const std::vector<std::string> &level : {std::vector<std::string>{"-O0"}, std::vector<std::string>{}}) {
    std::vector<std::string> compile{"clang-19"};
    compile.insert(compile.end(), level.begin(), level.end());
    compile.insert(compile.end(), {"-c", helpers, "-o", "helpers.o"});
    REQUIRE(test::runIn(build, compile).exitCode == 0);
    const std::string clangObject = readFile(build / "helpers.o");
    for (const std::vector<std::string> &given :
         {std::vector<std::string>{"--policy", (traced / "policy").string()}, std::vector<std::string>{"--predict"}}) {
      CAPTURE(level, given);
      fs::remove(build / "helpers.o");
      std::vector<std::string> options = given;
      options.insert(options.end(), {"--log", (build / "log").string()});
      const test::CommandOutcome launched = launch(build, options, compile);
      REQUIRE(launched.exitCode == 0);
      CHECK(launched.err.empty());  // left plain on purpose: no warning
      CHECK(readFile(build / "helpers.o") == clangObject);
      const json line = logLines(build / "log").back();
      CHECK(line["unoptimized"] == true);
      CHECK_THAT(line["fallback"].get<std::string>(), Contains("-O0"));
    }
  }
}

TEST_CASE("mlgo cc: a response file is read as clang reads it, and what was given is applied", "[cli][launcher][clang]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 7).save(traced / "policy");
  const fs::path build = traced / "build";
  fs::create_directories(build);
  const std::string helpers = (test::testData() / "helpers.c").string();
  writeFileAtomically(build / "args.rsp", "-Oz -c '" + helpers + "'\n-o helpers.o\n");
  const std::vector<std::string> options{"--policy", (traced / "policy").string(), "--log", (build / "log").string()};
  REQUIRE(launch(build, options, {"clang-19", "-Oz", "-c", helpers, "-o", "direct.o"}).exitCode == 0);
  const test::CommandOutcome launched = launch(build, options, {"clang-19", "@args.rsp"});
  INFO(launched.err);
  REQUIRE(launched.exitCode == 0);
  const json line = logLines(build / "log").back();
  CHECK(line["applied"]["policy"] == (traced / "policy").string());
  CHECK_FALSE(line.contains("fallback"));
  CHECK(line["decisions"].get<uint64_t>() > 0);
  CHECK(readFile(build / "helpers.o") == readFile(build / "direct.o"));
}

TEST_CASE("mlgo cc --log: a log that cannot take lines is a bad flag before anything is compiled",
          "[cli][launcher][errors]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 7).save(traced / "policy");
  const fs::path build = traced / "build";
  fs::create_directories(build / "a-directory");
  fs::create_symlink(build / "elsewhere.log", build / "a-link");
  const std::string helpers = (test::testData() / "helpers.c").string();
  for (const std::string log : {"a-directory", "a-link"}) {
    CAPTURE(log);
    const test::CommandOutcome launched =
        launch(build, {"--policy", (traced / "policy").string(), "--log", log},
               {"clang-19", "-Oz", "-c", helpers, "-o", "helpers.o"});
    CHECK(launched.exitCode == 2);
    CHECK_THAT(launched.err, Contains(log));
    CHECK_FALSE(fs::exists(build / "helpers.o"));
    CHECK_FALSE(fs::exists(build / "elsewhere.log"));
  }
}

TEST_CASE("mlgo cc: an LTO build gets the policy at link time through mlgo's plugin, as lld loading it by hand, and "
          "ships the link without it where that is smaller",
          "[cli][launcher][clang][lto]") {
  test::TracedTestCorpus traced;
  test::fixedAnswerInliningPolicy(traced, true).save(traced / "inline-all");
  const std::string policyDirectory = (traced / "inline-all").string();
  const test::CommandOutcome printed = test::runMlgo({"cc", "--print-plugin-path"});
  REQUIRE(printed.exitCode == 0);
  const std::string plugin = printed.out.substr(0, printed.out.find('\n'));
  const fs::path build = traced / "build";
  fs::create_directories(build);
  writeFileAtomically(build / "main.c",
                      "int use1(int *, int); int use2(int *, int); int use3(int *, int);\n"
                      "__attribute__((noinline)) int a(int *b) { return use1(b, 1) + use2(b, 2) + use3(b, 3); }\n"
                      "__attribute__((noinline)) int c(int *b) { return use1(b, 4) + use2(b, 5) + use3(b, 6); }\n"
                      "__attribute__((noinline)) int d(int *b) { return use1(b, 7) + use2(b, 8) + use3(b, 9); }\n"
                      "int main(void) { int b[64] = {1}; return (a(b) + c(b) + d(b)) & 1; }\n");
  const std::string bigCallee = (test::testData() / "big_callee.c").string();

  for (const std::string lto : {"-flto=thin", "-flto"}) {
    CAPTURE(lto);
    // Compiles and a link as a build runs them; `wrap` puts mlgo cc in front.
    auto buildProgram = [&](const std::string &name, const std::vector<std::string> &wrap,
                            const std::vector<std::string> &compileExtra, const std::vector<std::string> &linkExtra,
                            const std::vector<std::string> &variables) {
      for (const auto &[source, object] : {std::pair<std::string, std::string>{"main.c", name + "-main.o"},
                                           std::pair<std::string, std::string>{bigCallee, name + "-big.o"}}) {
        std::vector<std::string> command = wrap;
        command.insert(command.end(), {"clang-19", "-Oz", lto, "-c", source, "-o", object});
        command.insert(command.end(), compileExtra.begin(), compileExtra.end());
        const test::CommandOutcome compiled = test::runIn(build, command, variables);
        INFO(compiled.err);
        REQUIRE(compiled.exitCode == 0);
      }
      std::vector<std::string> command = wrap;
      command.insert(command.end(), {"clang-19", lto, "-fuse-ld=lld", name + "-main.o", name + "-big.o", "-o", name});
      command.insert(command.end(), linkExtra.begin(), linkExtra.end());
      const test::CommandOutcome linked = test::runIn(build, command, variables);
      INFO(linked.err);
      REQUIRE(linked.exitCode == 0);
      return readFile(build / name);
    };
    const std::vector<std::string> launcher{test::mlgoBinary(), "cc", "--policy", policyDirectory, "--log",
                                            (build / "log").string()};
    const std::string plain = buildProgram("plain", {}, {}, {}, {});
    const std::string launched = buildProgram("launched", launcher, {}, {}, {});
    const std::string byHand = buildProgram("by-hand", {}, {"-fpass-plugin=" + plugin},
                                            {"-Wl,--load-pass-plugin=" + plugin}, {"MLGO_CC_POLICY=" + policyDirectory});
    // The same compiles, linked without the plugin: what mlgo cc compares the policy's link with.
    const std::string withoutPlugin = buildProgram("without-plugin", {}, {"-fpass-plugin=" + plugin}, {},
                                                   {"MLGO_CC_POLICY=" + policyDirectory});
    CHECK(byHand != plain);
    const std::vector<json> lines = logLines(build / "log");
    const json &unit = lines.at(lines.size() - 2), &link = lines.back();
    CHECK(unit["lto"] == true);
    CHECK(unit["applied"]["policy"] == policyDirectory);
    CHECK(link["lto"] == true);
    CHECK(link["link"] == "launched");
    SectionSizes policySizes, plainSizes;
    std::string error;
    REQUIRE(measureObjectSizes(byHand, policySizes, error));
    REQUIRE(measureObjectSizes(withoutPlugin, plainSizes, error));
    CHECK(link["linked_text+data"] == policySizes.textPlusData());
    CHECK(link["plain_text+data"] == plainSizes.textPlusData());
    // The smaller ships: inlining the large callees at each of their three call sites grows this program.
    CHECK(plainSizes.textPlusData() < policySizes.textPlusData());
    CHECK(link["store_link"] == "plain");
    CHECK(launched == (link["store_link"] == "kept" ? byHand : withoutPlugin));

    // Pass lists cannot reach an LTO build's optimization: said, and built plainly.
    const test::CommandOutcome lists =
        launch(build, {"--predict", "--log", (build / "log").string()},
               {"clang-19", "-Oz", lto, "-c", bigCallee, "-o", "listed.o"});
    CHECK(lists.exitCode == 0);
    CHECK_THAT(lists.err, Contains("pass lists are not applied in an LTO build"));
    REQUIRE(test::runIn(build, {"clang-19", "-Oz", lto, "-c", bigCallee, "-o", "clang.o"}).exitCode == 0);
    CHECK(readFile(build / "listed.o") == readFile(build / "clang.o"));
    CHECK_THAT(logLines(build / "log").back()["fallback"].get<std::string>(), Contains("LTO"));
  }
}

TEST_CASE("mlgo cc --choices: each unit compiled the way the file names, plain ones as clang compiles them",
          "[cli][launcher][clang]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 7).save(traced / "policy");
  const fs::path build = traced / "build";
  fs::create_directories(build);
  const std::string policy = (traced / "policy").string();
  writeFileAtomically(build / "choices.json",
                      json{{"format", "mlgo-unit-choices"},
                           {"version", 1},
                           {"policy", policy},
                           {"units",
                            {{"helpers.o", {{"way", "policy"}}},
                             {"big_callee.o", {{"way", "pass-list"}, {"pipeline", "default<Oz>,mergefunc"}}},
                             {"strings.o", {{"way", "plain"}}}}}}
                          .dump());
  auto compile = [&](const std::vector<std::string> &options, const std::string &source, const std::string &object) {
    const test::CommandOutcome built =
        launch(build, options, {"clang-19", "-Oz", "-c", (test::testData() / source).string(), "-o", object});
    INFO(built.err);
    REQUIRE(built.exitCode == 0);
    return readFile(build / object);
  };
  const std::vector<std::string> chosen{"--choices", (build / "choices.json").string(), "--log",
                                        (build / "log").string()};
  CHECK(compile(chosen, "helpers.c", "helpers.o") == compile({"--policy", policy}, "helpers.c", "policy.o"));
  writeFileAtomically(build / "best.json", json{{"format", "mlgo-autotune"},
                                                {"modules",
                                                 {{{"name", "listed.o"},
                                                   {"passes", {"default<Oz>", "mergefunc"}},
                                                   {"pipeline", "default<Oz>,mergefunc"}}}}}
                                               .dump());
  CHECK(compile(chosen, "big_callee.c", "big_callee.o") ==
        compile({"--pass-lists", (build / "best.json").string()}, "big_callee.c", "listed.o"));
  // Plain, and a unit the file does not name: clang's own objects.
  CHECK(compile(chosen, "strings.c", "strings.o") == compile({}, "strings.c", "clang-strings.o"));
  CHECK(compile(chosen, "tables.c", "tables.o") == compile({}, "tables.c", "clang-tables.o"));
  const std::vector<json> lines = logLines(build / "log");
  REQUIRE(lines.size() == 4);
  CHECK(lines[0]["applied"]["policy"] == policy);
  CHECK(lines[1]["applied"]["pass_list"] == "default<Oz>,mergefunc");
  CHECK_FALSE(lines[1]["applied"].contains("policy"));
  CHECK(lines[2]["applied"].empty());

  SECTION("a pipeline that is not the search space's, or a choice file with other options, is refused") {
    writeFileAtomically(build / "bad.json", json{{"format", "mlgo-unit-choices"},
                                                 {"version", 1},
                                                 {"units", {{"x.o", {{"way", "pass-list"}, {"pipeline", "print"}}}}}}
                                                .dump());
    const test::CommandOutcome bad =
        launch(build, {"--choices", (build / "bad.json").string()},
               {"clang-19", "-Oz", "-c", (test::testData() / "tables.c").string(), "-o", "bad.o"});
    CHECK(bad.exitCode == 3);
    CHECK_THAT(bad.err, Contains("bad.json: units.x.o") && Contains("not a pass of the search space"));
    const test::CommandOutcome both =
        launch(build, {"--choices", (build / "choices.json").string(), "--policy", policy},
               {"clang-19", "-Oz", "-c", (test::testData() / "tables.c").string(), "-o", "bad.o"});
    CHECK(both.exitCode == 2);
    CHECK_FALSE(fs::exists(build / "bad.o"));
  }
}

TEST_CASE("mlgo cc --link-maps: each link writes its map beside its directory and output", "[cli][launcher][clang]") {
  test::ScratchDirectory scratch;
  const std::string helpers = (test::testData() / "helpers.c").string();
  writeFileAtomically(scratch / "main.c", "int main(void) { return 0; }\n");
  const fs::path maps = scratch / "maps";
  REQUIRE(launch(scratch.path(), {"--link-maps", maps.string()}, {"clang-19", "-Oz", "-c", "main.c", "-o", "main.o"})
              .exitCode == 0);
  CHECK_FALSE(fs::exists(maps));  // a compile links nothing
  const test::CommandOutcome linked =
      launch(scratch.path(), {"--link-maps", maps.string()}, {"clang-19", "main.o", "-o", "program"});
  INFO(linked.err);
  REQUIRE(linked.exitCode == 0);
  std::vector<fs::path> files;
  for (const auto &entry : fs::directory_iterator(maps)) files.push_back(entry.path());
  REQUIRE(files.size() == 2);
  const fs::path description = files[0].extension() == ".json" ? files[0] : files[1];
  const json link = readJsonFile(description);
  CHECK(link["directory"] == scratch.path().string());
  CHECK(link["output"] == "program");
  CHECK_THAT(readFile(fs::path(description).replace_extension(".map")), Contains("main.o"));
}

TEST_CASE("mlgo cc writes outputs as clang does: no missing directory made, bitcode markers, coloured diagnostics",
          "[cli][launcher][clang]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 7).save(traced / "policy");
  const fs::path build = traced / "build";
  fs::create_directories(build);
  const std::vector<std::string> policy{"--policy", (traced / "policy").string()};
  const std::string helpers = (test::testData() / "helpers.c").string();

  const std::vector<std::string> missing{"clang-19", "-Oz", "-c", helpers, "-o", "no/such/dir/helpers.o"};
  const test::CommandOutcome byClang = test::runIn(build, missing);
  const test::CommandOutcome launched = launch(build, policy, missing);
  CHECK(launched.exitCode == byClang.exitCode);
  CHECK(launched.exitCode != 0);
  CHECK_FALSE(fs::exists(build / "no"));

  const std::vector<std::string> marker{"clang-19", "-Oz", "-fembed-bitcode-marker", "-c", helpers, "-o", "marked.o"};
  REQUIRE(test::runIn(build, marker).exitCode == 0);
  const std::string clangMarked = readFile(build / "marked.o");
  REQUIRE(launch(build, policy, marker).exitCode == 0);
  CHECK(readFile(build / "marked.o") == clangMarked);

  writeFileAtomically(build / "warns.c", "int f(int x) { int unused; return x; }\n");
  const std::vector<std::string> coloured{"clang-19", "-Oz", "-Wall", "-fdiagnostics-color=always", "-c", "warns.c",
                                          "-o", "warns.o"};
  const test::CommandOutcome colouredByClang = test::runIn(build, coloured);
  REQUIRE(colouredByClang.exitCode == 0);
  REQUIRE_THAT(colouredByClang.err, Contains("\x1b["));
  const test::CommandOutcome colouredLaunched = launch(build, policy, coloured);
  CHECK(colouredLaunched.exitCode == 0);
  CHECK(colouredLaunched.err == colouredByClang.err);

  // The module's bitcode waits beside the object, not in $TMPDIR: what a killed compile leaves there, the unit's
  // next compile replaces and removes.
  writeFileAtomically(build / "helpers.o.mlgo-cc.bc", "left by a killed compile");
  const test::CommandOutcome again = launch(build, policy, {"clang-19", "-Oz", "-c", helpers, "-o", "helpers.o"},
                                            {"TMPDIR=" + (build / "no-such-tmp").string()});
  INFO(again.err);
  CHECK(again.exitCode == 0);
  CHECK(again.err.empty());  // compiled in-process, no fallback
  CHECK_FALSE(fs::exists(build / "helpers.o.mlgo-cc.bc"));
  CHECK(fs::exists(build / "helpers.o"));
}

TEST_CASE("mlgo cc: without a store, links of units compiled another way ship no file larger than the plain link",
          "[cli][launcher][clang]") {
  test::TracedTestCorpus traced;
  test::fixedAnswerInliningPolicy(traced, true).save(traced / "inline-all");
  const std::string policy = (traced / "inline-all").string();
  const fs::path dedup = test::testData() / "builds" / "dedup";
  fs::copy(dedup, traced / "plain");
  REQUIRE(test::runIn(traced / "plain", {"make", "-s", "CXX=clang++-19", "program"}).exitCode == 0);
  SectionSizes plain;
  std::string error;
  REQUIRE(measureObjectSizes(readFile(traced / "plain" / "program"), plain, error));
  writeFileAtomically(traced / "choices.json",
                      json{{"format", "mlgo-unit-choices"},
                           {"version", 1},
                           {"policy", policy},
                           {"units", {{"a.o", {{"way", "policy"}}}, {"c.o", {{"way", "policy"}}}}}}
                          .dump());
  const std::vector<std::vector<std::string>> ways{{"--policy", policy},
                                                    {"--choices", (traced / "choices.json").string()}};
  std::set<std::string> verdicts;
  for (const std::vector<std::string> &way : ways) {
    CAPTURE(way);
    const fs::path project = traced / ("way-" + std::to_string(verdicts.size()) + way.front());
    fs::copy(dedup, project);
    std::string cxx = test::mlgoBinary() + " cc --log " + (project / "log").string();
    for (const std::string &option : way) cxx += " " + option;
    cxx += " clang++-19";
    // The program runs: its tests pass.
    const test::CommandOutcome built = test::runIn(project, {"make", "-s", "CXX=" + cxx, "check"},
                                                   {"MLGO_PLAIN_OBJECTS=" + (traced / "plain-objects").string()});
    INFO(built.out << built.err);
    REQUIRE(built.exitCode == 0);
    SectionSizes shipped;
    REQUIRE(measureObjectSizes(readFile(project / "program"), shipped, error));
    CHECK(shipped.textPlusData() <= plain.textPlusData());
    const json link = logLines(project / "log").back();
    CHECK(link["link"] == "program");
    CHECK(link["listed_inputs"].get<size_t>() > 0);
    verdicts.insert(link["store_link"].get<std::string>());
    if (link["store_link"] == "plain") CHECK(readFile(project / "program") == readFile(traced / "plain" / "program"));
  }
  CHECK(verdicts.count("plain"));  // inlining big() everywhere grows the program: the check acted
}
