// The compile memo against fresh compiles of real modules: reuse only what
// a compile would give again, miss on anything that changes the result, and
// survive damaged files, concurrent writers and wrong entries.
#include <catch2/catch.hpp>

#include <thread>

#include "mlgo/policy/sampling_policy.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/policy/position_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/training/shared/collector.h"
#include "mlgo/training/shared/trajectory_memo.h"
#include "mlgo/policy/vocab_files.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

std::vector<CompileRequest> plainRequests(const Corpus &corpus, const std::string &pipeline = "") {
  std::vector<CompileRequest> requests;
  for (const CorpusModule &module : corpus.modules) requests.push_back({&module, pipeline, {}});
  return requests;
}

DriverOptions withMemo(std::shared_ptr<CompileMemo> memo) {
  DriverOptions options;
  options.threads = 2;
  options.memo = std::move(memo);
  return options;
}

void requireSame(const CompileResult &a, const CompileResult &b) {
  REQUIRE(a.failure == b.failure);
  CHECK(a.sizes.text == b.sizes.text);
  CHECK(a.sizes.data == b.sizes.data);
  CHECK(a.sizes.rodata == b.sizes.rodata);
  CHECK(a.sizes.bss == b.sizes.bss);
  CHECK(a.irInstructions == b.irInstructions);
}

size_t cacheFiles(const fs::path &directory) {
  size_t files = 0;
  for (const auto &entry : fs::recursive_directory_iterator(directory)) {
    if (!entry.is_regular_file()) continue;
    CHECK(entry.path().extension() == ".json");  // no temporary left behind
    ++files;
  }
  return files;
}

}  // namespace

TEST_CASE("memo: reused results equal fresh compiles, for whole compiles and code generation", "[driver][memo]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const std::vector<CompileResult> fresh = CompilerDriver({}).compileAll(plainRequests(corpus));
  auto memo = std::make_shared<CompileMemo>(MemoOptions{});
  const CompilerDriver driver(withMemo(memo));
  const auto first = driver.compileAll(plainRequests(corpus));
  const auto second = driver.compileAll(plainRequests(corpus));
  for (size_t i = 0; i < fresh.size(); ++i) {
    INFO(corpus.modules[i].name);
    requireSame(first[i], fresh[i]);
    requireSame(second[i], fresh[i]);
  }
  MemoStats stats = memo->stats();
  CHECK(stats.requestLookups == 2 * fresh.size());
  CHECK(stats.requestHits == fresh.size());

  // Another pipeline that leaves the same optimized IR: code generation is
  // taken from the memo, and the object sizes are those a fresh compile gives.
  const auto padded = driver.compileAll(plainRequests(corpus, "default<Oz>,function(no-op-function)"));
  const auto plainOz = CompilerDriver({}).compileAll(plainRequests(corpus, "default<Oz>,function(no-op-function)"));
  for (size_t i = 0; i < fresh.size(); ++i) requireSame(padded[i], plainOz[i]);
  const auto again = driver.compileAll(plainRequests(corpus, "function(no-op-function),default<Oz>"));
  for (size_t i = 0; i < fresh.size(); ++i) requireSame(again[i], plainOz[i]);
  CHECK(memo->stats().codegenHits >= fresh.size());
}

namespace {

/// Keeps a compile's object code; takes no part in optimization unless told.
class ObjectCapture final : public PipelineHook {
 public:
  explicit ObjectCapture(bool touchesOptimization = false) : touchesOptimization_(touchesOptimization) {}
  void objectEmitted(std::string_view object) override { bytes.assign(object); }
  bool affectsOptimization() const override { return touchesOptimization_; }
  std::string bytes;

 private:
  bool touchesOptimization_;
};

struct RegallocCompiles {
  std::vector<CompileResult> results;
  std::vector<std::string> objects;
  std::vector<double> scores;
};

/// The regalloc test programs compiled with a policy evicting by live-range size.
RegallocCompiles compileWithPolicy(const Corpus &corpus, const CompilerDriver &driver,
                                   bool captureTouchesOptimization = false) {
  const Problem &regalloc = findProblem("regalloc");
  const Problem::HookMaker hooksFor = regalloc.positionPolicyHooks(
      std::make_shared<const PositionPolicy>(test::regallocPolicyScoringBy("liverange_size")));
  std::vector<CompileRequest> requests;
  std::vector<std::shared_ptr<ObjectCapture>> captures;
  std::vector<std::shared_ptr<PipelineHook>> policies;
  for (const CorpusModule &module : corpus.modules) {
    captures.push_back(std::make_shared<ObjectCapture>(captureTouchesOptimization));
    policies.push_back(hooksFor());
    requests.push_back({&module, "", {policies.back(), captures.back()}});
  }
  RegallocCompiles compiles;
  compiles.results = driver.compileAll(requests);
  for (size_t i = 0; i < requests.size(); ++i) {
    compiles.objects.push_back(captures[i]->bytes);
    compiles.scores.push_back(regalloc.measures(*policies[i]).at("regalloc_score"));
  }
  return compiles;
}

}  // namespace

TEST_CASE("memo: regalloc compiles take the optimized IR from the memo and generate the same code",
          "[driver][memo][regalloc]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::sourcesCorpus(
      scratch / "corpus", {test::testData() / "regalloc/pressure.c", test::testData() / "regalloc/kernels.c"}, "-O2");
  const RegallocCompiles fresh = compileWithPolicy(corpus, CompilerDriver(test::driverThreads(2)));
  auto memo = std::make_shared<CompileMemo>(MemoOptions{});
  const CompilerDriver driver(withMemo(memo));
  compileWithPolicy(corpus, driver);
  CHECK(memo->stats().optimizedHits == 0);
  const RegallocCompiles fromMemo = compileWithPolicy(corpus, driver);
  CHECK(memo->stats().optimizedHits == corpus.modules.size());
  for (size_t i = 0; i < corpus.modules.size(); ++i) {
    INFO(corpus.modules[i].name);
    requireSame(fromMemo.results[i], fresh.results[i]);
    CHECK(fromMemo.results[i].decisions == fresh.results[i].decisions);
    CHECK(fromMemo.results[i].decisions > 0);  // the policy decided in code generation
    CHECK(fromMemo.scores[i] == fresh.scores[i]);
    CHECK_FALSE(fromMemo.objects[i].empty());
    CHECK(fromMemo.objects[i] == fresh.objects[i]);  // byte for byte
  }

  // A hook that takes part in optimization never gets the memo's IR.
  const uint64_t lookups = memo->stats().optimizedLookups;
  compileWithPolicy(corpus, driver, /*captureTouchesOptimization=*/true);
  CHECK(memo->stats().optimizedLookups == lookups);

  // --verify-cache optimizes the first hits again and compares the IR.
  auto verified = std::make_shared<CompileMemo>(MemoOptions{size_t(256) << 20, std::nullopt, 100});
  const CompilerDriver verifying(withMemo(verified));
  compileWithPolicy(corpus, verifying);
  const RegallocCompiles checked = compileWithPolicy(corpus, verifying);
  CHECK(verified->stats().optimizedHits == corpus.modules.size());
  CHECK(verified->stats().verified == corpus.modules.size());
  for (size_t i = 0; i < corpus.modules.size(); ++i) CHECK(checked.objects[i] == fresh.objects[i]);
}

TEST_CASE("memo: a changed command line, bitcode, pipeline or policy is another key", "[driver][memo]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const CorpusModule &helpers = test::moduleNamed(corpus, "helpers.o");
  const std::string key = CompilerDriver::requestMemoKey({&helpers, "", {}});
  REQUIRE_FALSE(key.empty());
  CHECK_THAT(key, Contains(CompileMemo::versionTag()));  // mlgo's and LLVM's versions
  CHECK_THAT(CompileMemo::versionTag(), Contains("mlgo ") && Contains("LLVM 19."));

  CorpusModule otherCommand = helpers;
  for (std::string &arg : otherCommand.commandLine)
    if (arg == "-Oz") arg = "-Os";
  CHECK(CompilerDriver::requestMemoKey({&otherCommand, "", {}}) != key);

  test::writeModule(scratch / "changed", "helpers.o", readFile(test::testProject() / "bad_asm.bc"),
                    helpers.commandLine);
  CorpusModule otherBitcode = helpers;
  otherBitcode.bitcodePath = scratch / "changed" / "helpers.o.bc";
  CHECK(CompilerDriver::requestMemoKey({&otherBitcode, "", {}}) != key);
  CHECK(CompilerDriver::requestMemoKey({&helpers, "default<Oz>", {}}) != key);

  auto memo = std::make_shared<CompileMemo>(MemoOptions{});
  const CompilerDriver driver(withMemo(memo));
  driver.compile({&helpers, "", {}});
  const CompileResult os = driver.compile({&otherCommand, "", {}});
  CHECK(memo->stats().requestHits == 0);
  requireSame(os, CompilerDriver({}).compile({&otherCommand, "", {}}));
}

TEST_CASE("memo: a damaged cache file is ignored with a warning, and rewritten", "[driver][memo]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  MemoOptions options;
  options.directory = scratch / "cache";
  const auto fresh = CompilerDriver(withMemo(std::make_shared<CompileMemo>(options))).compileAll(plainRequests(corpus));
  std::vector<fs::path> files;
  for (const auto &entry : fs::recursive_directory_iterator(scratch / "cache"))
    if (entry.is_regular_file()) files.push_back(entry.path());
  REQUIRE(files.size() >= corpus.modules.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string text = readFile(files[i]);
    writeFileAtomically(files[i], i % 2 ? text.substr(0, text.size() / 2) : "{\"format\": 1}");
  }
  auto memo = std::make_shared<CompileMemo>(options);
  const auto second = CompilerDriver(withMemo(memo)).compileAll(plainRequests(corpus));
  for (size_t i = 0; i < fresh.size(); ++i) requireSame(second[i], fresh[i]);
  CHECK(memo->stats().requestHits == 0);
  CHECK(memo->stats().corruptFiles >= corpus.modules.size());
  // The entries were written anew: a third run reuses them all.
  auto third = std::make_shared<CompileMemo>(options);
  CompilerDriver(withMemo(third)).compileAll(plainRequests(corpus));
  CHECK(third->stats().requestHits == corpus.modules.size());
  CHECK(third->stats().diskHits == corpus.modules.size());
}

TEST_CASE("memo: concurrent writers of one cache directory leave whole entries", "[driver][memo]") {
  test::ScratchDirectory scratch;
  MemoOptions options;
  options.directory = scratch / "cache";
  options.maxBytes = 0;  // disk only
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&, w] {
      CompileMemo memo(options);  // as separate processes would: no shared memory
      for (int i = 0; i < 200; ++i) {
        CompileResult result;
        result.sizes.text = uint64_t(i) * 10;
        result.irInstructions = uint64_t(i);
        memo.store(CompileMemo::Kind::Request, "key " + std::to_string(i % 50), result);
        (void)memo.find(CompileMemo::Kind::Request, "key " + std::to_string((i + w) % 50));
      }
    });
  for (auto &writer : writers) writer.join();
  CHECK(cacheFiles(scratch / "cache") == 50);
  CompileMemo reader(options);
  for (int i = 0; i < 50; ++i) {
    const auto found = reader.find(CompileMemo::Kind::Request, "key " + std::to_string(i));
    REQUIRE(found);
    CHECK(found->sizes.text % 10 == 0);
    CHECK(found->irInstructions % 50 == uint64_t(i));
  }
  CHECK(reader.stats().corruptFiles == 0);
}

TEST_CASE("memo: --verify-cache catches a planted wrong entry", "[driver][memo]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const CorpusModule &helpers = test::moduleNamed(corpus, "helpers.o");
  MemoOptions options;
  options.directory = scratch / "cache";
  CompileResult wrong = CompilerDriver({}).compile({&helpers, "", {}});
  wrong.sizes.text += 16;
  CompileMemo(options).store(CompileMemo::Kind::Request, CompilerDriver::requestMemoKey({&helpers, "", {}}), wrong);
  // Without verification the planted entry is believed...
  CHECK(CompilerDriver(withMemo(std::make_shared<CompileMemo>(options))).compile({&helpers, "", {}}).sizes.text ==
        wrong.sizes.text);
  // ...with it, the run stops naming the module.
  options.verify = 3;
  const CompilerDriver verifying(withMemo(std::make_shared<CompileMemo>(options)));
  CHECK_THROWS_AS(verifying.compile({&helpers, "", {}}), MemoMismatch);
  CHECK_THROWS_WITH(verifying.compile({&helpers, "", {}}), Contains("helpers.o"));
}

TEST_CASE("memo: the memory bound holds, least recently used entries go first", "[driver][memo]") {
  MemoOptions options;
  options.maxBytes = 4000;
  CompileMemo memo(options);
  for (int i = 0; i < 200; ++i) {
    memo.store(CompileMemo::Kind::Codegen, "key " + std::to_string(i), CompileResult{});
    if (i > 0) (void)memo.find(CompileMemo::Kind::Codegen, "key 0");  // kept in use
    CHECK(memo.stats().bytes <= options.maxBytes);
  }
  CHECK(memo.stats().evictions > 0);
  CHECK(memo.find(CompileMemo::Kind::Codegen, "key 0"));
  CHECK_FALSE(memo.find(CompileMemo::Kind::Codegen, "key 1"));
  CHECK(memo.find(CompileMemo::Kind::Codegen, "key 199"));
}

TEST_CASE("memo: sampled compiles that repeat known trajectories are replayed, with the same results",
          "[training][memo][rl]") {
  const test::TracedTestCorpus traced;
  const Corpus &corpus = traced.corpus;
  const Problem &problem = findProblem("inlining");
  FeaturePreprocessor pre(problem.featureNames(), readVocab(traced / "vocab", problem.featureNames()), {});
  // A sure policy (logits 4 and -4 whatever the features): almost every
  // sample repeats the last one, as in PPO once the policy is sharp.
  std::vector<DenseLayer> layers{{pre.outputCount(), 2, std::vector<float>(pre.outputCount() * 2, 0.0f), {4, -4}}};
  const YesNoPolicy model("inlining", pre, layers, Activation::Relu);
  const auto sampling = samplingPolicy(model);
  CollectionPlan plan;
  plan.modules = sampleModules(corpus.modules.size(), corpus.modules.size(), 3, 1);
  plan.needsDefault.assign(plan.modules.size(), true);
  plan.seed = 3;
  auto memo = std::make_shared<CompileMemo>(MemoOptions{});
  const CompilerDriver memoized(withMemo(memo));
  DriverOptions plainOptions;
  plainOptions.threads = 2;
  const CompilerDriver plain(plainOptions);
  TrajectoryMemo trajectories(size_t(64) << 20);
  size_t decisions = 0;
  for (uint64_t iteration = 1; iteration <= 3; ++iteration) {
    plan.iteration = iteration;
    CollectionPlan replaying = plan;
    replaying.trajectories = &trajectories;
    const auto withMemo = collectTrajectories(memoized, corpus, problem, *sampling, replaying);
    const auto without = collectTrajectories(plain, corpus, problem, *sampling, plan);
    for (size_t i = 0; i < without.size(); ++i) {
      INFO(corpus.modules[without[i].module].name << ", iteration " << iteration);
      requireSame(withMemo[i].result, without[i].result);
      CHECK(withMemo[i].result.decisions == without[i].result.decisions);
      requireSame(*withMemo[i].defaultResult, *without[i].defaultResult);
      CHECK(withMemo[i].trajectory.actions == without[i].trajectory.actions);
      CHECK(withMemo[i].trajectory.features == without[i].trajectory.features);
      CHECK(withMemo[i].trajectory.logits == without[i].trajectory.logits);
      decisions += without[i].trajectory.decisions();
    }
  }
  REQUIRE(decisions > 0);
  const MemoStats stats = memo->stats();
  CHECK(stats.sequenceCompiles == 3 * corpus.modules.size());
  // Iterations 2 and 3 sample the decisions of iteration 1 wherever the
  // policy is sure: those modules are not compiled at all.
  CHECK(stats.sequenceHits >= corpus.modules.size());
  CHECK(stats.requestHits >= 2 * corpus.modules.size());  // the default compiles
  CHECK(trajectories.bytes() > 0);
}

