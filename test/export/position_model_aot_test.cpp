// The llvm-aot export of a regalloc policy, compiled with clang-19 and run
// by LLVM 19's own ReleaseModeModelRunner on every decision of a real
// regalloc trace: it must evict what the policy evicts.
#include "mlgo/export/position_model_aot.h"

#include <dlfcn.h>
#include <llvm/Analysis/MLModelRunner.h>
#include <llvm/Analysis/TensorSpec.h>
#include <llvm/IR/LLVMContext.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <set>

#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/trace/trace_reader.h"
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
  std::normal_distribution<float> normal(0.0f, 0.5f);
  std::vector<DenseLayer> layers;
  size_t inputs = width;
  for (size_t outputs : {16, 8, 1}) {
    DenseLayer layer{inputs, outputs, std::vector<float>(inputs * outputs), std::vector<float>(outputs)};
    for (float &w : layer.weights) w = normal(random);
    for (float &b : layer.bias) b = normal(random);
    layers.push_back(std::move(layer));
    inputs = outputs;
  }
  std::vector<float> means(width), stddevs(width);
  for (size_t i = 0; i < width; ++i) {
    means[i] = normal(random);
    stddevs[i] = 0.5f + std::abs(normal(random));
  }
  return PositionPolicy("regalloc", spec, means, stddevs, DenseNetwork(std::move(layers), activation));
}

std::vector<llvm::TensorSpec> tensorSpecs(const trace::DecisionSpec &spec) {
  std::vector<llvm::TensorSpec> specs;
  for (const trace::FeatureTensor &tensor : spec.features)
    specs.push_back(tensor.type == trace::FeatureTensor::Type::Int64
                        ? llvm::TensorSpec::createSpec<int64_t>(tensor.name, tensor.shape)
                        : llvm::TensorSpec::createSpec<float>(tensor.name, tensor.shape));
  return specs;
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
  const fs::path exported = scratch / "RegAllocEvictModel";
  writeGeneratedSources(sources, exported, false);

  // Standard C++ only, warning-free, also pedantic.
  test::compileCxx(
      {"-pedantic", "-c", (exported / sources.sourceName()).string(), "-o", (scratch / "model.o").string()});
  const fs::path library = scratch / "release_mode_evict_runner.so";
  test::compileCxx({"-fPIC", "-shared", "-I", exported.string(), "-isystem", MLGO_LLVM_INCLUDE_DIR,
              std::string(MLGO_TEST_SOURCES) + "/export/release_mode_evict_runner.cpp",
              (exported / sources.sourceName()).string(), "-o", library.string(), "-L", MLGO_LLVM_LIBRARY_DIR,
              "-lLLVM"});
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  INFO(dlerror());
  REQUIRE(handle);
  using MakeRunner = llvm::MLModelRunner *(*)(llvm::LLVMContext *, const std::vector<llvm::TensorSpec> *);
  auto makeRunner = reinterpret_cast<MakeRunner>(dlsym(handle, "mlgoMakeEvictRunner"));
  REQUIRE(makeRunner);

  const trace::DecisionSpec &spec = regalloc().decisionSpec();
  const std::vector<llvm::TensorSpec> inputs = tensorSpecs(spec);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::MLModelRunner> runner(makeRunner(&context, &inputs));
  size_t decisions = 0, mismatches = 0;
  std::set<int64_t> chosen;
  trace::TraceReader(scratch / "trace").forEachModule([&](const trace::ModuleTrace &module) {
    for (size_t d = 0; d < module.decisions(); ++d, ++decisions) {
      const auto *bytes = reinterpret_cast<const char *>(module.featuresOf(d));
      for (size_t f = 0; f < spec.features.size(); ++f)
        std::memcpy(runner->getTensorUntyped(f), bytes + spec.offsetOf(f),
                    spec.features[f].elements() * spec.features[f].elementBytes());
      const int64_t expected = policy.decide(module.featuresOf(d));
      chosen.insert(expected);
      if (runner->evaluate<int64_t>() != expected) ++mismatches;
    }
  });
  CHECK(decisions > 20);
  CHECK(mismatches == 0);
  CHECK(chosen.size() > 2);  // the policy's choices vary, or agreement would prove little
  runner.reset();  // its code lives in the library
  dlclose(handle);
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
  CHECK_THAT(aot.out, Contains("RegAllocEvictModel.h") && Contains("21 feature tensors, 33 positions"));
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
