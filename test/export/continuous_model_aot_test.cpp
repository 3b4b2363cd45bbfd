// The llvm-aot export of a regalloc-priority policy, compiled with clang-19
// and run by LLVM 19's own ReleaseModeModelRunner on every decision of a real
// priority trace: it must answer the float mlgo's own compile answers.
#include "mlgo/export/continuous_model_aot.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
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

const Problem &priority() { return findProblem("regalloc-priority"); }

}  // namespace

TEST_CASE("llvm-aot export of a priority policy: LLVM's ReleaseModeModelRunner answers what mlgo answers",
          "[export][aot][regalloc][priority]") {
  test::ScratchDirectory scratch;
  test::priorityTracedCorpus(scratch / "corpus", scratch / "trace");
  const Activation activation = GENERATE(Activation::Relu, Activation::Tanh);
  const ContinuousPolicy policy = test::randomPriorityPolicy(7, activation);
  const ReleaseModeModel model = *priority().releaseModeModel();
  const GeneratedSources sources = generateContinuousModel(policy, model, "a test policy");
  CHECK(sources.headerName() == "RegAllocPriorityModel.h");
  const trace::DecisionSpec &spec = priority().decisionSpec();
  test::ReleaseModeRunnerLibrary library(sources, scratch.path(), "release_mode_priority_runner.cpp",
                                         "mlgoMakePriorityRunner", spec);
  size_t decisions = 0, mismatches = 0, clamped = 0, aboveFloatPrecision = 0;
  std::set<float> answers;
  trace::TraceReader(scratch / "trace").forEachModule([&](const trace::ModuleTrace &module) {
    for (size_t d = 0; d < module.decisions(); ++d, ++decisions) {
      library.setInputs(spec, module.featuresOf(d));
      const float expected = policy.floatAnswer(module.featuresOf(d), model.largestValue);
      const float answered = library.runner().evaluate<float>();
      answers.insert(answered);
      clamped += expected == static_cast<float>(model.largestValue);
      aboveFloatPrecision += expected > 16777216.0f;
      if (std::memcmp(&answered, &expected, sizeof expected) != 0) ++mismatches;
    }
  });
  CHECK(decisions > 10);
  CHECK(mismatches == 0);
  CHECK(answers.size() > 5);       // the answers vary, or agreement would prove little
  CHECK(aboveFloatPrecision > 0);  // rounded to float, as LLVM reads the answer
  CHECK(clamped > 0);              // and clamped below 2^32
}

TEST_CASE("cli export: a priority policy as llvm::RegAllocPriorityModel, read from the policy, torchscript refused",
          "[cli][export][regalloc][priority]") {
  test::ScratchDirectory scratch;
  test::randomPriorityPolicy(3, Activation::Relu).save(scratch / "policy");
  const std::string policy = (scratch / "policy").string();
  const auto exportAs = [&](const std::string &format, const std::string &output) {
    return test::runProgram(test::mlgoBinary(), {"export", "--policy", policy, "--format", format, "--output",
                                                 (scratch / output).string()});
  };
  const test::CommandOutcome aot = exportAs("llvm-aot", "aot");
  INFO(aot.err);
  REQUIRE(aot.exitCode == exit_code::kSuccess);
  CHECK_THAT(aot.out,
             Contains("RegAllocPriorityModel.h") && Contains("3 feature tensors; priority: a continuous value"));
  CHECK_THAT(readFile(scratch / "aot/RegAllocPriorityModel.cpp"),
             Contains("\"feed_li_size\"") && Contains("\"fetch_priority\""));
  CHECK_THAT(readFile(scratch / "aot/RegAllocPriorityModel.h"), Contains("class RegAllocPriorityModel final"));

  const test::CommandOutcome torchscript = exportAs("torchscript", "p.pt");
  CHECK(torchscript.exitCode == exit_code::kUsage);
  CHECK_THAT(torchscript.err, Contains("exports only as llvm-aot"));
  CHECK_FALSE(fs::exists(scratch / "p.pt"));
}
