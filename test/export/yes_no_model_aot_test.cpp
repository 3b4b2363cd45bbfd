#include "mlgo/export/yes_no_model_aot.h"
#include "mlgo/problems/inlining/inlining_hook.h"

#include <dlfcn.h>
#include <llvm/Analysis/MLModelRunner.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "mlgo/eval/evaluation.h"
#include "mlgo/problems/inlining/neural_policy.h"
#include "mlgo/problems/inlining/model_runner_policy.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

// The class the inlining problem names for LLVM's release-mode inliner.
const std::string kInlinerHeader = "InlinerSizeModel.h", kInlinerSource = "InlinerSizeModel.cpp";

namespace {

/// What `mlgo export --format llvm-aot` writes for an inlining policy.
void exportInliningModel(const YesNoPolicy &policy, const std::string &origin, const fs::path &directory,
                         bool replace) {
  writeGeneratedSources(generateYesNoModel(policy, *findProblem("inlining").releaseModeModel(), origin), directory,
                        replace);
}

std::vector<std::string> candidateSizes(const EvalReport &report) {
  std::vector<std::string> sizes;
  for (const ModuleEvaluation &module : report.modules)
    sizes.push_back(module.name + ":" +
                    (module.candidate.ok() ? std::to_string(module.candidate.sizes.text) : "failed"));
  return sizes;
}

}  // namespace

TEST_CASE("llvm-aot export: LLVM's ReleaseModeModelRunner runs the generated model like mlgo runs the policy",
          "[export][aot]") {
  test::TracedTestCorpus traced;
  const bool everyPreprocessing = GENERATE(false, true);
  const YesNoPolicy policy = test::randomInliningPolicy(traced, 7, everyPreprocessing);
  const fs::path exported = traced / "InlinerSizeModel";
  exportInliningModel(policy, "a test policy", exported, false);
  REQUIRE(fs::exists(exported / kInlinerHeader));
  REQUIRE(fs::exists(exported / kInlinerSource));

  // Standard C++ only, warning-free, also pedantic.
  test::compileCxx({"-pedantic", "-c", (exported / kInlinerSource).string(), "-o", (traced / "model.o").string()});
  // LLVM's runner around it, in a library sharing this process's libLLVM.
  const fs::path library = traced / "release_mode_runner.so";
  test::compileCxx({"-fPIC", "-shared", "-I", exported.string(), "-isystem", MLGO_LLVM_INCLUDE_DIR,
                    std::string(MLGO_TEST_SOURCES) + "/export/release_mode_runner.cpp",
                    (exported / kInlinerSource).string(), "-o", library.string(), "-L", MLGO_LLVM_LIBRARY_DIR,
                    "-lLLVM"});
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  INFO(dlerror());
  REQUIRE(handle);
  using MakeRunner = llvm::MLModelRunner *(*)(llvm::LLVMContext *);
  auto makeRunner = reinterpret_cast<MakeRunner>(dlsym(handle, "mlgoMakeReleaseModeRunner"));
  REQUIRE(makeRunner);

  CompilerDriver driver(test::driverThreads(1));
  EvalOptions viaPolicy, viaRunner;
  auto ownDecisions = std::make_shared<test::RecordingPolicy>(
      std::make_shared<NeuralInliningPolicy>(std::make_shared<const YesNoPolicy>(policy)));
  auto runnerDecisions = std::make_shared<test::RecordingPolicy>(std::make_shared<inlining::ModelRunnerPolicy>(
      [makeRunner](llvm::LLVMContext &context) { return std::unique_ptr<llvm::MLModelRunner>(makeRunner(&context)); }));
  viaPolicy.candidateHooks = inlining::hooksFor(ownDecisions);
  viaRunner.candidateHooks = inlining::hooksFor(runnerDecisions);
  const EvalReport expected = evaluateCorpus(traced.corpus, driver, viaPolicy);
  const EvalReport actual = evaluateCorpus(traced.corpus, driver, viaRunner);

  // The random policy must both inline and refuse, or the check proves little.
  const size_t inlined = std::count(ownDecisions->decisions.begin(), ownDecisions->decisions.end(), true);
  CHECK(inlined > 0);
  CHECK(inlined < ownDecisions->decisions.size());
  CHECK(runnerDecisions->decisions == ownDecisions->decisions);
  CHECK(candidateSizes(actual) == candidateSizes(expected));
  CHECK(actual.compared == traced.corpus.modules.size());
  // The runners' code lives in the library: destroy them before unloading it.
  viaRunner.candidateHooks = nullptr;
  runnerDecisions.reset();
  dlclose(handle);
}

TEST_CASE("llvm-aot export: Run() allocates nothing and decides like the policy on every traced decision",
          "[export][aot]") {
  test::TracedTestCorpus traced;
  const YesNoPolicy policy = test::randomInliningPolicy(traced, 11, true);
  policy.save(traced / "policy");
  exportInliningModel(policy, "a test policy", traced / "aot", false);
  const fs::path features = traced / "features.bin";
  test::CommandOutcome dump = test::runProgram(
      MLGO_BENCH_POLICY,
      {(traced / "policy").string(), (traced / "trace").string(), "1", "--dump-features", features.string()});
  INFO(dump.err);
  REQUIRE(dump.exitCode == 0);
  const fs::path bench = traced / "aot_model_bench";
  test::compileCxx({"-I", (traced / "aot").string(), std::string(MLGO_TOOLS_SOURCES) + "/bench/aot_model_bench.cpp",
                    (traced / "aot" / kInlinerSource).string(), "-o", bench.string()});
  test::CommandOutcome run = test::runProgram(bench.string(), {features.string(), "2"});
  INFO(run.out << run.err);
  REQUIRE(run.exitCode == 0);
  const nlohmann::json result = nlohmann::json::parse(run.out);
  CHECK(result["decisions"].get<int>() > 100);
  CHECK(result["mismatches"] == 0);
  CHECK(result["allocations"] == 0);
}

TEST_CASE("llvm-aot export: an existing output is refused unless replaced, no partial output", "[export][errors]") {
  test::ScratchDirectory scratch;
  test::TracedTestCorpus traced;
  const YesNoPolicy policy = test::randomInliningPolicy(traced, 3);
  fs::create_directories(scratch / "out");
  writeFileAtomically(scratch / "out" / "keep.txt", "mine");
  CHECK_THROWS_AS(exportInliningModel(policy, "p", scratch / "out", false), UsageError);
  CHECK(readFile(scratch / "out" / "keep.txt") == "mine");
  // Replacing is for an earlier export: a directory holding a user's file is named and kept.
  CHECK_THROWS_WITH(exportInliningModel(policy, "p", scratch / "out", true), Catch::Contains("keep.txt"));
  CHECK(readFile(scratch / "out" / "keep.txt") == "mine");
  fs::remove(scratch / "out" / "keep.txt");
  exportInliningModel(policy, "p", scratch / "out", true);
  CHECK(fs::exists(scratch / "out" / kInlinerSource));
  exportInliningModel(policy, "p", scratch / "out", true);  // an earlier export is replaced
  CHECK(fs::exists(scratch / "out" / kInlinerSource));
  CHECK_FALSE(fs::exists(scratch / "out.partial"));
}

TEST_CASE("llvm-aot export: a policy path with a newline stays inside the generated comment", "[export][errors]") {
  test::TracedTestCorpus traced;
  const YesNoPolicy policy = test::randomInliningPolicy(traced, 3);
  const std::string origin = (traced / "dir\n#error INJECTED\nint x = ").string() + "\\";
  const fs::path exported = traced / "model";
  exportInliningModel(policy, origin, exported, false);
  const std::string header = readFile(exported / kInlinerHeader), source = readFile(exported / kInlinerSource);
  CHECK(header.find("\n#error") == std::string::npos);
  CHECK(source.find("\n#error") == std::string::npos);
  CHECK_THAT(source, Catch::Contains("dir\\n#error INJECTED\\nint x = \\\\\"."));
  // It compiles: nothing of the path became code.
  test::compileCxx({"-c", (exported / kInlinerSource).string(), "-o", (traced / "model.o").string()});
}
