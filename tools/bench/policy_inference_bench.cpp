// Benchmark: time per decision of a trained policy (preprocessing + MLP), on
// the decisions recorded in a trace. Not a test: run it by hand,
//   build/mlgo_bench_policy POLICY_DIR TRACE_DIR [REPEAT] [--dump-features FILE]
// --dump-features also writes the trace's features and the policy's decisions
// on them for aot_model_bench (the exported model's benchmark and check).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/trace/trace_reader.h"

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4 && argc != 6) {
    std::fprintf(stderr, "usage: %s POLICY_DIR TRACE_DIR [REPEAT] [--dump-features FILE]\n", argv[0]);
    return 2;
  }
  const int repeat = argc > 3 ? std::atoi(argv[3]) : 20;
  const mlgo::Problem &problem = mlgo::findProblem("inlining");
  const mlgo::YesNoPolicy model = mlgo::YesNoPolicy::load(argv[1], problem.name(), problem.featureNames());
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
  if (argc == 6 && std::strcmp(argv[4], "--dump-features") == 0) {
    std::ofstream out(argv[5], std::ios::binary);
    auto put = [&](uint64_t value) { out.write(reinterpret_cast<const char *>(&value), sizeof value); };
    out.write("MLGOFEAT", 8);
    put(decisions);
    put(width);
    for (const std::string &name : problem.featureNames()) {
      put(name.size());
      out.write(name.data(), static_cast<std::streamsize>(name.size()));
    }
    out.write(reinterpret_cast<const char *>(features.data()), static_cast<std::streamsize>(features.size() * 8));
    for (size_t d = 0; d < decisions; ++d) out.put(model.decide(features.data() + d * width) ? 1 : 0);
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", argv[5]);
      return 1;
    }
  }
  return 0;
}
