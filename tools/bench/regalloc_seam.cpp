// Measurement (not a test): do the register-allocation seams leave LLVM's
// code alone, and what do they cost? For each module of a corpus: compile it
// with LLVM's own advisors, then with a hook whose steer answers the default
// advisor's choice at every decision (an EvictionHook's position, or a
// PriorityHook's priority), and compare the two objects byte for byte. Then the hooked compiles again through a driver
// with a compile memo, twice: the second time every module's optimized IR
// comes from the memo and only code generation runs; those objects are
// compared with LLVM's too. Reports the decisions, LLVM's regalloc score
// (summed over functions) and the compile times.
//   build/mlgo_bench_regalloc_seam CORPUS_DIR [THREADS] [eviction|priority]
// Exit status 1 when any module's objects differ.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/problems/regalloc/eviction_hook.h"
#include "mlgo/problems/regalloc/priority_hook.h"

namespace {

using namespace mlgo;

class ObjectCapture final : public PipelineHook {
 public:
  void objectEmitted(std::string_view object) override { bytes.assign(object); }
  bool affectsOptimization() const override { return false; }
  std::string bytes;
};

class FollowDefaultPosition final : public regalloc::EvictionSteer {
 public:
  int64_t decide(const regalloc::EvictionObservation &observation) override { return observation.defaultPosition; }
};

class FollowDefaultPriority final : public regalloc::PrioritySteer {
 public:
  double decide(const regalloc::PriorityObservation &observation) override { return observation.defaultPriority; }
};

/// A seam's hook answering the default, and what it measured.
struct Seam {
  std::function<std::shared_ptr<PipelineHook>()> followingDefault;
  std::function<double(const PipelineHook &)> score;
  std::function<std::vector<std::string>(const PipelineHook &)> problems;
};

template <class Hook, class Steer>
Seam seamOf() {
  return {[] { return std::make_shared<Hook>(std::make_shared<Steer>()); },
          [](const PipelineHook &hook) { return static_cast<const Hook &>(hook).score(); },
          [](const PipelineHook &hook) { return static_cast<const Hook &>(hook).problems(); }};
}

struct Run {
  std::vector<CompileResult> results;
  std::vector<std::shared_ptr<ObjectCapture>> objects;
  std::vector<std::shared_ptr<PipelineHook>> hooks;
  double seconds = 0;
};

Run compileCorpus(const Corpus &corpus, const CompilerDriver &driver, const Seam *seam) {
  Run run;
  std::vector<CompileRequest> requests;
  for (const CorpusModule &module : corpus.modules) {
    run.objects.push_back(std::make_shared<ObjectCapture>());
    CompileRequest request{&module, "", {run.objects.back()}};
    if (seam) {
      run.hooks.push_back(seam->followingDefault());
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
  const std::string seamName = argc > 3 ? argv[3] : "eviction";
  if (argc < 2 || (seamName != "eviction" && seamName != "priority")) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR [THREADS] [eviction|priority]\n", argv[0]);
    return 2;
  }
  const Seam seam = seamName == "priority" ? seamOf<regalloc::PriorityHook, FollowDefaultPriority>()
                                           : seamOf<regalloc::EvictionHook, FollowDefaultPosition>();
  DriverOptions options;
  options.threads = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 0;
  const CompileSession session(argv[1], options);
  const Corpus &corpus = session.corpus();
  const CompilerDriver &driver = session.driver();
  const Run stock = compileCorpus(corpus, driver, nullptr);
  const Run steered = compileCorpus(corpus, driver, &seam);
  DriverOptions withMemo = options;
  withMemo.memo = std::make_shared<CompileMemo>(MemoOptions{size_t(4) << 30, std::nullopt, 0});
  const CompilerDriver memoDriver(withMemo);
  compileCorpus(corpus, memoDriver, &seam);  // fills the memo with every module's optimized IR
  const Run fromMemo = compileCorpus(corpus, memoDriver, &seam);

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
    const PipelineHook &hook = *steered.hooks[i];
    decisions += hook.decisionsTaken();
    withDecisions += hook.decisionsTaken() > 0;
    score += seam.score(hook);
    for (const std::string &problem : seam.problems(hook)) {
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
