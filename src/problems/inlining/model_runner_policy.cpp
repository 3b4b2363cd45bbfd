#include "mlgo/problems/inlining/model_runner_policy.h"

#include <llvm/Analysis/MLModelRunner.h>
#include <llvm/IR/LLVMContext.h>

namespace mlgo::inlining {

ModelRunnerPolicy::ModelRunnerPolicy(RunnerFactory factory)
    : factory_(std::move(factory)), context_(std::make_unique<llvm::LLVMContext>()) {}

ModelRunnerPolicy::~ModelRunnerPolicy() = default;

std::unique_ptr<llvm::MLModelRunner> ModelRunnerPolicy::takeRunner() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (idle_.empty()) return factory_(*context_);
  std::unique_ptr<llvm::MLModelRunner> runner = std::move(idle_.back());
  idle_.pop_back();
  return runner;
}

bool ModelRunnerPolicy::decide(const DecisionInput &input) const {
  std::unique_ptr<llvm::MLModelRunner> runner = takeRunner();
  for (size_t i = 0; i < featureCount(); ++i) *runner->getTensor<int64_t>(i) = input.features[i];
  const bool inlined = runner->evaluate<int64_t>() != 0;
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(runner));
  return inlined;
}

}  // namespace mlgo::inlining
