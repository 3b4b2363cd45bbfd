// The llvm-aot export of a regalloc policy, compiled with clang-19 and run
// by LLVM 19's own ReleaseModeModelRunner on every decision of a real
// regalloc trace: it must evict what the policy evicts.
#include "mlgo/export/position_model_aot.h"


#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <set>

#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/trace/trace_reader.h"
#include "release_mode_runner_library.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

const Problem &regalloc() { return findProblem("regalloc"); }

/// A position policy with hidden layers and input statistics drawn from `seed`.
PositionPolicy randomPositionPolicy(unsigned seed, Activation activation) {
  const trace::DecisionSpec &spec = regalloc().decisionSpec();
  const size_t width = PositionLayout(spec).width();
  std::mt19937 random(seed);
  DenseNetwork network = test::randomNetwork(width, random, activation);
  std::normal_distribution<float> normal(0.0f, 0.5f);
  std::vector<float> means(width), stddevs(width);
  for (size_t i = 0; i < width; ++i) {
    means[i] = normal(random);
    stddevs[i] = 0.5f + std::abs(normal(random));
  }
  return PositionPolicy("regalloc", spec, means, stddevs, std::move(network));
}

}  // namespace

TEST_CASE("llvm-aot export of a regalloc policy: LLVM's ReleaseModeModelRunner evicts what the policy evicts",
          "[export][aot][regalloc]") {
  test::ScratchDirectory scratch;
  test::regallocTracedCorpus(scratch / "corpus", scratch / "trace");
  const Activation activation = GENERATE(Activation::Relu, Activation::Tanh);
  const PositionPolicy policy = randomPositionPolicy(5, activation);
  const GeneratedSources sources = generatePositionModel(policy, *regalloc().releaseModeModel(), "a test policy");
  CHECK(sources.headerName() == "RegAllocEvictModel.h");
  const trace::DecisionSpec &spec = regalloc().decisionSpec();
  test::ReleaseModeRunnerLibrary library(sources, scratch.path(), "release_mode_evict_runner.cpp",
                                         "mlgoMakeEvictRunner", spec);
  size_t decisions = 0, mismatches = 0;
  std::set<int64_t> chosen;
  trace::TraceReader(scratch / "trace").forEachModule([&](const trace::ModuleTrace &module) {
    for (size_t d = 0; d < module.decisions(); ++d, ++decisions) {
      library.setInputs(spec, module.featuresOf(d));
      const int64_t expected = policy.decide(module.featuresOf(d));
      chosen.insert(expected);
      if (library.runner().evaluate<int64_t>() != expected) ++mismatches;
    }
  });
  CHECK(decisions > 20);
  CHECK(mismatches == 0);
  CHECK(chosen.size() > 2);  // the policy's choices vary, or agreement would prove little
}

TEST_CASE("cli export: a regalloc policy as llvm::RegAllocEvictModel, other formats and problems refused",
          "[cli][export][regalloc]") {
  test::ScratchDirectory scratch;
  randomPositionPolicy(3, Activation::Relu).save(scratch / "policy");
  const std::string policy = (scratch / "policy").string();
  const auto exportAs = [&](const std::string &problem, const std::string &format, const std::string &output) {
    return test::runProgram(test::mlgoBinary(), {"export", "--problem", problem, "--policy", policy, "--format",
                                                 format, "--output", (scratch / output).string()});
  };
  const test::CommandOutcome aot = exportAs("regalloc", "llvm-aot", "aot");
  INFO(aot.err);
  REQUIRE(aot.exitCode == exit_code::kSuccess);
  CHECK_THAT(aot.out, Contains("RegAllocEvictModel.h") &&
                          Contains("21 feature tensors; index_to_evict: a position among candidates"));
  CHECK_THAT(readFile(scratch / "aot/RegAllocEvictModel.cpp"), Contains("\"feed_liverange_size\""));
  CHECK_THAT(readFile(scratch / "aot/RegAllocEvictModel.h"), Contains("class RegAllocEvictModel final"));

  const test::CommandOutcome torchscript = exportAs("regalloc", "torchscript", "p.pt");
  CHECK(torchscript.exitCode == exit_code::kUsage);
  CHECK_THAT(torchscript.err, Contains("exports only as llvm-aot"));
  CHECK_FALSE(fs::exists(scratch / "p.pt"));
  // The default problem is inlining: the policy says it is not one.
  const test::CommandOutcome asInlining = exportAs("inlining", "llvm-aot", "inl");
  CHECK(asInlining.exitCode == exit_code::kBadInput);
  CHECK_THAT(asInlining.err, Contains("policy.json") && Contains("regalloc"));
  CHECK_FALSE(fs::exists(scratch / "inl"));
}
