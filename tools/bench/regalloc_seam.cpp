// Measurement (not a test): does the register-allocation seam leave LLVM's
// code alone, and what does it cost? For each module of a corpus: compile it
// with LLVM's own eviction advisor, then with an EvictionHook whose steer
// answers the default advisor's position at every decision, and compare the
// two objects byte for byte. Then the hooked compiles again through a driver
// with a compile memo, twice: the second time every module's optimized IR
// comes from the memo and only code generation runs; those objects are
// compared with LLVM's too. Reports the decisions, LLVM's regalloc score
// (summed over functions) and the compile times.
//   build/mlgo_bench_regalloc_seam CORPUS_DIR [THREADS]
// Exit status 1 when any module's objects differ.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/problems/regalloc/eviction_hook.h"

namespace {

using namespace mlgo;

class ObjectCapture final : public PipelineHook {
 public:
  void objectEmitted(std::string_view object) override { bytes.assign(object); }
  bool affectsOptimization() const override { return false; }
  std::string bytes;
};

class FollowDefault final : public regalloc::EvictionSteer {
 public:
  int64_t decide(const regalloc::EvictionObservation &observation) override { return observation.defaultPosition; }
};

struct Run {
  std::vector<CompileResult> results;
  std::vector<std::shared_ptr<ObjectCapture>> objects;
  std::vector<std::shared_ptr<regalloc::EvictionHook>> hooks;
  double seconds = 0;
};

Run compileCorpus(const Corpus &corpus, const CompilerDriver &driver, bool steered) {
  Run run;
  std::vector<CompileRequest> requests;
  for (const CorpusModule &module : corpus.modules) {
    run.objects.push_back(std::make_shared<ObjectCapture>());
    CompileRequest request{&module, "", {run.objects.back()}};
    if (steered) {
      run.hooks.push_back(std::make_shared<regalloc::EvictionHook>(std::make_shared<FollowDefault>()));
      request.hooks.push_back(run.hooks.back());
    }
    requests.push_back(std::move(request));
  }
  const auto start = std::chrono::steady_clock::now();
  run.results = driver.compileAll(requests);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR [THREADS]\n", argv[0]);
    return 2;
  }
  DriverOptions options;
  options.threads = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 0;
  const CompileSession session(argv[1], options);
  const Corpus &corpus = session.corpus();
  const CompilerDriver &driver = session.driver();
  const Run stock = compileCorpus(corpus, driver, false);
  const Run steered = compileCorpus(corpus, driver, true);
  DriverOptions withMemo = options;
  withMemo.memo = std::make_shared<CompileMemo>(MemoOptions{size_t(4) << 30, std::nullopt, 0});
  const CompilerDriver memoDriver(withMemo);
  compileCorpus(corpus, memoDriver, true);  // fills the memo with every module's optimized IR
  const Run fromMemo = compileCorpus(corpus, memoDriver, true);

  size_t compiled = 0, identical = 0, identicalFromMemo = 0, failed = 0, withDecisions = 0, problems = 0;
  uint64_t decisions = 0;
  double score = 0;
  for (size_t i = 0; i < corpus.modules.size(); ++i) {
    const std::string &name = corpus.modules[i].name;
    if (!stock.results[i].ok() || !steered.results[i].ok()) {
      ++failed;
      std::printf("failed %s: %s\n", name.c_str(),
                  (stock.results[i].ok() ? steered.results[i] : stock.results[i]).message.c_str());
      continue;
    }
    ++compiled;
    const regalloc::EvictionHook &hook = *steered.hooks[i];
    decisions += hook.decisionsTaken();
    withDecisions += hook.decisionsTaken() > 0;
    score += hook.score();
    for (const std::string &problem : hook.problems()) {
      ++problems;
      std::printf("problem %s: %s\n", name.c_str(), problem.c_str());
    }
    if (stock.objects[i]->bytes == steered.objects[i]->bytes)
      ++identical;
    else
      std::printf("differs %s (%llu decisions)\n", name.c_str(),
                  static_cast<unsigned long long>(hook.decisionsTaken()));
    if (fromMemo.results[i].ok() && stock.objects[i]->bytes == fromMemo.objects[i]->bytes)
      ++identicalFromMemo;
    else
      std::printf("differs-from-memo %s\n", name.c_str());
  }
  std::printf("modules %zu compiled %zu failed %zu identical %zu with-decisions %zu decisions %llu problems %zu\n",
              corpus.modules.size(), compiled, failed, identical, withDecisions,
              static_cast<unsigned long long>(decisions), problems);
  std::printf("regalloc score (sum over functions) %.1f\n", score);
  std::printf("seconds stock %.2f seam %.2f (x%.2f)\n", stock.seconds, steered.seconds,
              stock.seconds > 0 ? steered.seconds / stock.seconds : 0.0);
  const MemoStats memo = withMemo.memo->stats();
  std::printf("from the memo's optimized IR: identical %zu seconds %.2f (x%.2f of the seam's), optimization skipped "
              "%llu of %llu\n",
              identicalFromMemo, fromMemo.seconds, steered.seconds > 0 ? fromMemo.seconds / steered.seconds : 0.0,
              static_cast<unsigned long long>(memo.optimizedHits),
              static_cast<unsigned long long>(memo.optimizedLookups));
  return identical == compiled && identicalFromMemo == compiled ? 0 : 1;
}
