// Benchmark: time per decision of a trained policy (preprocessing + MLP), on
// the decisions recorded in a trace. Not a test: run it by hand,
//   build/mlgo_bench_policy POLICY_DIR TRACE_DIR [REPEAT]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "mlgo/policy/policy_model.h"
#include "mlgo/problems/problem.h"
#include "mlgo/trace/trace_reader.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s POLICY_DIR TRACE_DIR [REPEAT]\n", argv[0]);
    return 2;
  }
  const int repeat = argc > 3 ? std::atoi(argv[3]) : 20;
  const mlgo::Problem &problem = mlgo::findProblem("inlining");
  const mlgo::PolicyModel model = mlgo::PolicyModel::load(argv[1], problem.name(), problem.featureNames());
  std::vector<int64_t> features;
  size_t decisions = 0;
  mlgo::trace::TraceReader(argv[2]).forEachModule([&](const mlgo::trace::ModuleTrace &module) {
    features.insert(features.end(), module.features.begin(), module.features.end());
    decisions += module.decisions();
  });
  const size_t width = problem.featureNames().size();
  size_t inlined = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeat; ++r)
    for (size_t d = 0; d < decisions; ++d) inlined += model.decide(features.data() + d * width);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu decisions x %d: %.3f us per decision (%zu inlined)\n", decisions, repeat,
              1e6 * seconds / (double(decisions) * repeat), inlined / repeat);
  return 0;
}
