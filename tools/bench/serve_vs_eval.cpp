// Check at corpus scale: a stock clang-19 served by `mlgo serve` produces
// the same .text per module as `mlgo eval --policy`. Not a test (it takes
// minutes on a real corpus): run it by hand,
//   build/mlgo_bench_serve CORPUS_DIR POLICY_DIR [THREADS]
// Prints the modules that differ and one summary line.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <thread>

#include <unistd.h>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/eval/evaluation.h"
#include "mlgo/problems/inlining/neural_policy.h"
#include "mlgo/problems/inlining/inlining_hook.h"
#include "mlgo/problems/problem.h"
#include "mlgo/problems/inlining/inlining_channel_policy.h"
#include "mlgo/serve/interactive_server.h"

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR POLICY_DIR [THREADS]\n", argv[0]);
    return 2;
  }
  mlgo::inlining::installInliningAdvisor();
  const mlgo::Problem &problem = mlgo::findProblem("inlining");
  auto model = std::make_shared<const mlgo::YesNoPolicy>(
      mlgo::YesNoPolicy::load(argv[2], problem.name(), problem.featureNames()));
  auto policy = std::make_shared<mlgo::NeuralInliningPolicy>(model);
  mlgo::DriverOptions driverOptions;
  driverOptions.threads = argc > 3 ? unsigned(std::atoi(argv[3])) : 0;
  const mlgo::CompileSession session(argv[1], driverOptions);
  const mlgo::Corpus &corpus = session.corpus();

  const fs::path scratch = fs::temp_directory_path() / ("mlgo-serve-check-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  mlgo::serve::ServeOptions options;
  options.channelBase = scratch / "channel";
  options.maxSessions = corpus.modules.size();
  auto server = std::async(std::launch::async, [&] { return mlgo::inlining::serveInlining(*policy, options); });
  while (!fs::exists(scratch / "channel.out")) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::vector<std::string> interactive{"-mllvm", "-enable-ml-inliner=release", "-mllvm",
                                             "-inliner-interactive-channel-base=" + options.channelBase.string(),
                                             "-mllvm", mlgo::inlining::advisorSizeFlag()};
  const std::string clang = mlgo::findClang("");
  std::vector<mlgo::CompileResult> served;
  const auto start = std::chrono::steady_clock::now();
  for (const mlgo::CorpusModule &module : corpus.modules)
    served.push_back(mlgo::compileWithClangSubprocess(clang, module, scratch, std::chrono::minutes(5), interactive));
  const double servedSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const mlgo::serve::ServeSummary summary = server.get();
  fs::remove_all(scratch);

  mlgo::EvalOptions evalOptions;
  evalOptions.candidateHooks = mlgo::inlining::hooksFor(policy);
  const mlgo::EvalReport report = mlgo::evaluateCorpus(corpus, session.driver(), evalOptions);
  size_t equal = 0;
  for (size_t i = 0; i < corpus.modules.size(); ++i) {
    const mlgo::CompileResult &candidate = report.modules[i].candidate;
    if (served[i].ok() && candidate.ok() && served[i].sizes.text == candidate.sizes.text) {
      ++equal;
      continue;
    }
    std::printf("%s: served clang %s, mlgo eval %s\n", corpus.modules[i].name.c_str(),
                served[i].ok() ? std::to_string(served[i].sizes.text).c_str() : served[i].message.c_str(),
                candidate.ok() ? std::to_string(candidate.sizes.text).c_str() : candidate.message.c_str());
  }
  std::printf("%zu of %zu modules: same .text with the served clang-19 as with mlgo eval --policy "
              "(%llu decisions served, %.1f s for the served clang loop)\n",
              equal, corpus.modules.size(), (unsigned long long)summary.decisions, servedSeconds);
  return equal == corpus.modules.size() ? 0 : 1;
}
