// Benchmark: compilations per second of the autotuner's candidates, in-process
// (the shared driver: the pass list, then the recorded code generation) against
// the same pass lists through subprocesses (`opt-19 -passes=LIST m.bc` then
// `clang-19 -cc1 <recorded args> -disable-llvm-passes -x ir`), at the same
// parallelism. Not a test: run it by hand,
//   build/mlgo_bench_autotune CORPUS_DIR BEST_JSON [THREADS]
// Each module is compiled with its list from BEST_JSON (default<Oz> where
// best.json keeps -Oz). Prints one line per way and their ratio.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "mlgo/autotune/autotuner.h"
#include "mlgo/autotune/correctness_gate.h"
#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/problems/inlining/inlining_hook.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/subprocess.h"

#include <unistd.h>

namespace fs = std::filesystem;

namespace {

/// opt-19, which the subprocess side of the comparison runs.
std::string optOnThisMachine() {
  for (const char *candidate : {"/usr/lib/llvm-19/bin/opt", "/usr/bin/opt-19"})
    if (fs::exists(candidate)) return candidate;
  return "";
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR BEST_JSON [THREADS]\n", argv[0]);
    return 2;
  }
  mlgo::inlining::installInliningAdvisor();
  const unsigned threads = mlgo::resolveThreadCount(argc > 3 ? unsigned(std::atoi(argv[3])) : 0);
  mlgo::DriverOptions options;
  options.threads = threads;
  const mlgo::CompileSession session(argv[1], options);
  const mlgo::Corpus &corpus = session.corpus();
  const mlgo::CompilerDriver &driver = session.driver();
  const std::map<std::string, std::string> lists = mlgo::autotune::readPassLists(
      argv[2], mlgo::autotune::SearchSpace::load(mlgo::autotune::defaultSearchSpaceFile()));
  std::vector<std::string> pipelines;
  for (const mlgo::CorpusModule &module : corpus.modules) {
    auto found = lists.find(module.name);
    pipelines.push_back(found != lists.end() ? found->second : "default<Oz>");
  }

  std::vector<mlgo::CompileRequest> requests;
  for (size_t i = 0; i < corpus.modules.size(); ++i) requests.push_back({&corpus.modules[i], pipelines[i], {}});
  auto start = std::chrono::steady_clock::now();
  const std::vector<mlgo::CompileResult> inProcess = driver.compileAll(requests);
  const double inProcessSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::string opt = optOnThisMachine(), clang = mlgo::findClang("");
  const fs::path scratch = fs::temp_directory_path() / ("mlgo-bench-autotune-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  std::vector<mlgo::CompileResult> subprocess(corpus.modules.size());
  start = std::chrono::steady_clock::now();
  mlgo::parallelFor(corpus.modules.size(), threads, [&](size_t i) {
    mlgo::CorpusModule optimized = corpus.modules[i];
    optimized.bitcodePath = scratch / ("m" + std::to_string(i) + ".bc");
    const mlgo::ProcessOutcome outcome =
        mlgo::runProcess({opt, "-passes=" + pipelines[i], corpus.modules[i].bitcodePath.string(), "-o",
                          optimized.bitcodePath.string()},
                         std::chrono::minutes(5));
    if (!outcome.succeeded()) {
      subprocess[i].failure = mlgo::FailureKind::CompileError;
      return;
    }
    subprocess[i] =
        mlgo::compileWithClangSubprocess(clang, optimized, scratch, std::chrono::minutes(5), {"-disable-llvm-passes"});
    fs::remove(optimized.bitcodePath);
  });
  const double subprocessSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fs::remove_all(scratch);

  size_t equal = 0, compared = 0;
  for (size_t i = 0; i < corpus.modules.size(); ++i)
    if (inProcess[i].ok() && subprocess[i].ok()) {
      ++compared;
      equal += inProcess[i].sizes.text == subprocess[i].sizes.text;
    }
  const double n = double(corpus.modules.size());
  std::printf("in-process driver: %zu compilations in %.1f s on %u threads: %.2f per second per core\n",
              corpus.modules.size(), inProcessSeconds, threads, n / inProcessSeconds / threads);
  std::printf("opt-19 + clang-19 -cc1 subprocesses: %.1f s: %.2f per second per core\n", subprocessSeconds,
              n / subprocessSeconds / threads);
  std::printf("ratio %.2fx; .text equal for %zu of %zu modules compiled both ways\n",
              subprocessSeconds / inProcessSeconds, equal, compared);
  return 0;
}
