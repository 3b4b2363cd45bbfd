#pragma once
// What the llvm-aot export tests of the regalloc problems share: the
// exported class compiled warning-free and pedantic, then built with a
// runner source (release_mode_*_runner.cpp: LLVM 19's own
// ReleaseModeModelRunner around the class) into a shared library, loaded,
// and a runner over the decision spec's tensors made from it.
#include <dlfcn.h>
#include <llvm/Analysis/MLModelRunner.h>
#include <llvm/Analysis/TensorSpec.h>
#include <llvm/IR/LLVMContext.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "mlgo/export/generated_cpp.h"
#include "mlgo/trace/decision_spec.h"
#include "support/test_environment.h"

namespace mlgo::test {

class ReleaseModeRunnerLibrary {
 public:
  /// Writes `sources` into scratch/CLASS, compiles them with
  /// test/export/RUNNER_SOURCE and loads the library; `factory` is the
  /// runner source's extern "C" function.
  ReleaseModeRunnerLibrary(const GeneratedSources &sources, const std::filesystem::path &scratch,
                           const std::string &runnerSource, const std::string &factory, const trace::DecisionSpec &spec)
      : inputs_(tensorSpecs(spec)) {
    const std::filesystem::path exported = scratch / sources.className;
    writeGeneratedSources(sources, exported, false);
    const std::string source = (exported / sources.sourceName()).string();
    // Standard C++ only, warning-free, also pedantic.
    compileCxx({"-pedantic", "-c", source, "-o", (scratch / "model.o").string()});
    const std::filesystem::path library = scratch / (sources.className + "_runner.so");
    compileCxx({"-fPIC", "-shared", "-I", exported.string(), "-isystem", MLGO_LLVM_INCLUDE_DIR,
                std::string(MLGO_TEST_SOURCES) + "/export/" + runnerSource, source, "-o", library.string(), "-L",
                MLGO_LLVM_LIBRARY_DIR, "-lLLVM"});
    handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    INFO(dlerror());
    REQUIRE(handle_);
    using MakeRunner = llvm::MLModelRunner *(*)(llvm::LLVMContext *, const std::vector<llvm::TensorSpec> *);
    auto makeRunner = reinterpret_cast<MakeRunner>(dlsym(handle_, factory.c_str()));
    REQUIRE(makeRunner);
    runner_.reset(makeRunner(&context_, &inputs_));
  }
  ~ReleaseModeRunnerLibrary() {
    runner_.reset();  // its code lives in the library
    if (handle_) dlclose(handle_);
  }
  ReleaseModeRunnerLibrary(const ReleaseModeRunnerLibrary &) = delete;
  ReleaseModeRunnerLibrary &operator=(const ReleaseModeRunnerLibrary &) = delete;

  llvm::MLModelRunner &runner() { return *runner_; }

  /// Copies one traced decision's tensors into the runner's inputs.
  void setInputs(const trace::DecisionSpec &spec, const int64_t *words) {
    const auto *bytes = reinterpret_cast<const char *>(words);
    for (size_t f = 0; f < spec.features.size(); ++f)
      std::memcpy(runner_->getTensorUntyped(f), bytes + spec.offsetOf(f),
                  spec.features[f].elements() * spec.features[f].elementBytes());
  }

 private:
  static std::vector<llvm::TensorSpec> tensorSpecs(const trace::DecisionSpec &spec) {
    std::vector<llvm::TensorSpec> specs;
    for (const trace::FeatureTensor &tensor : spec.features)
      specs.push_back(tensor.type == trace::FeatureTensor::Type::Int64
                          ? llvm::TensorSpec::createSpec<int64_t>(tensor.name, tensor.shape)
                          : llvm::TensorSpec::createSpec<float>(tensor.name, tensor.shape));
    return specs;
  }

  std::vector<llvm::TensorSpec> inputs_;
  llvm::LLVMContext context_;
  void *handle_ = nullptr;
  std::unique_ptr<llvm::MLModelRunner> runner_;
};

}  // namespace mlgo::test
