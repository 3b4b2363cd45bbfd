// Experiment (not a test): how much smaller per-module search over inlining
// decisions makes modules, as a yardstick for what a learned policy can reach.
// For each module: compile with the default heuristic (N decisions), then once
// per decision k < CAP with only decision k flipped, then greedily add the
// improving flips, best first, keeping each one that still shrinks the module.
// Decisions are numbered in the order the inliner asks; after a flip the call
// sites that follow may differ, so "decision k" is positional, as in a replay.
//   build/mlgo_bench_flip_search CORPUS_DIR CAP THREADS (--sample N SEED | --modules FILE)
// Prints one line per module and the totals (.text).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/problems/inlining/inlining_hook.h"
#include "mlgo/training/shared/collector.h"

namespace {

using namespace mlgo;

/// The default heuristic's decisions, with the decisions numbered in `flips`
/// reversed. One instance per compile (it counts the decisions).
class FlipPolicy final : public inlining::Policy {
 public:
  explicit FlipPolicy(std::set<size_t> flips) : flips_(std::move(flips)) {}
  bool needsDefaultDecision() const override { return true; }
  bool decide(const inlining::DecisionInput &input) const override {
    return (input.defaultDecision == 1) != (flips_.count(decisions_++) != 0);
  }
  size_t decisions() const { return decisions_; }

 private:
  std::set<size_t> flips_;
  mutable std::atomic<size_t> decisions_{0};
};

struct Compiled {
  uint64_t text = UINT64_MAX;  ///< UINT64_MAX: the compile failed
  size_t decisions = 0;
};

std::vector<Compiled> compileWithFlips(const CompilerDriver &driver, const CorpusModule &module,
                                       const std::vector<std::set<size_t>> &flipSets) {
  std::vector<std::shared_ptr<FlipPolicy>> policies;
  std::vector<CompileRequest> requests;
  for (const auto &flips : flipSets) {
    policies.push_back(std::make_shared<FlipPolicy>(flips));
    requests.push_back({&module, "", {std::make_shared<inlining::InliningHook>(policies.back())}});
  }
  const std::vector<CompileResult> results = driver.compileAll(requests);
  std::vector<Compiled> compiled(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].ok()) compiled[i].text = results[i].sizes.text;
    compiled[i].decisions = policies[i]->decisions();
  }
  return compiled;
}

double change(uint64_t size, uint64_t base) { return base == 0 ? 0.0 : 100.0 * (double(size) / double(base) - 1); }

}  // namespace

int main(int argc, char **argv) {
  if (argc < 6 || (std::strcmp(argv[4], "--sample") == 0 && argc < 7)) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR CAP THREADS (--sample N SEED | --modules FILE)\n", argv[0]);
    return 2;
  }
  inlining::installInliningAdvisor();
  const size_t cap = std::strtoull(argv[2], nullptr, 10);
  DriverOptions options;
  options.threads = unsigned(std::atoi(argv[3]));
  const CompileSession session(argv[1], options);
  const Corpus &corpus = session.corpus();
  const CompilerDriver &driver = session.driver();
  std::vector<size_t> picks;
  if (std::strcmp(argv[4], "--sample") == 0) {
    picks = sampleModules(corpus.modules.size(), std::strtoull(argv[5], nullptr, 10),
                          std::strtoull(argv[6], nullptr, 10), 0);
  } else {
    std::ifstream list(argv[5]);
    for (std::string name; std::getline(list, name);)
      for (size_t i = 0; i < corpus.modules.size(); ++i)
        if (corpus.modules[i].name == name) picks.push_back(i);
  }

  uint64_t totalDefault = 0, totalBestSingle = 0, totalGreedy = 0;
  size_t totalDecisions = 0, explored = 0;
  for (size_t pick : picks) {
    const CorpusModule &module = corpus.modules[pick];
    const Compiled base = compileWithFlips(driver, module, {{}})[0];
    if (base.text == UINT64_MAX) {
      std::printf("%s: the default compile failed, skipped\n", module.name.c_str());
      continue;
    }
    std::vector<std::set<size_t>> singles;
    for (size_t k = 0; k < std::min(base.decisions, cap); ++k) singles.push_back({k});
    const std::vector<Compiled> flipped = compileWithFlips(driver, module, singles);
    std::vector<size_t> improving;
    uint64_t bestSingle = base.text;
    for (size_t k = 0; k < flipped.size(); ++k) {
      if (flipped[k].text < base.text) improving.push_back(k);
      bestSingle = std::min(bestSingle, flipped[k].text);
    }
    std::stable_sort(improving.begin(), improving.end(),
                     [&](size_t a, size_t b) { return flipped[a].text < flipped[b].text; });
    // Flips interact (applying every improving flip at once often grows the
    // module), so they are added one at a time and kept only while they help.
    std::set<size_t> kept;
    uint64_t greedy = base.text;
    for (size_t k : improving) {
      std::set<size_t> trial = kept;
      trial.insert(k);
      const uint64_t size = compileWithFlips(driver, module, {trial})[0].text;
      if (size < greedy) greedy = size, kept = std::move(trial);
    }
    totalDefault += base.text, totalBestSingle += bestSingle, totalGreedy += greedy;
    totalDecisions += base.decisions, explored += flipped.size();
    std::printf("%s: %zu decisions, %zu flipped, %zu improving; .text %llu, best single flip %+.2f%%, greedy %+.2f%% "
                "(%zu flips)\n",
                module.name.c_str(), base.decisions, flipped.size(), improving.size(),
                (unsigned long long)base.text, change(bestSingle, base.text), change(greedy, base.text), kept.size());
    std::fflush(stdout);
  }
  std::printf("total: %zu modules, %zu decisions, %zu flipped; .text %llu, best single flip %+.2f%%, greedy %+.2f%%\n",
              picks.size(), totalDecisions, explored, (unsigned long long)totalDefault,
              change(totalBestSingle, totalDefault), change(totalGreedy, totalDefault));
}
