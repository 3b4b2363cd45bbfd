#pragma once
// An inlining Policy answered by an llvm::MLModelRunner whose inputs are
// LLVM's FeatureMap in order, such as LLVM's own
// ReleaseModeModelRunner<llvm::InlinerSizeModel> around a model exported with
// `mlgo export --format llvm-aot`. This is how mlgo checks an exported model
// inside its driver exactly as a release-mode LLVM would run it.
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "mlgo/problems/inlining/inlining_policy.h"

namespace llvm {
class LLVMContext;
class MLModelRunner;
}  // namespace llvm

namespace mlgo::inlining {

class ModelRunnerPolicy final : public Policy {
 public:
  /// Makes one runner; called again whenever all runners made so far are busy.
  using RunnerFactory = std::function<std::unique_ptr<llvm::MLModelRunner>(llvm::LLVMContext &)>;

  explicit ModelRunnerPolicy(RunnerFactory factory);
  ~ModelRunnerPolicy() override;

  bool decide(const DecisionInput &input) const override;

 private:
  std::unique_ptr<llvm::MLModelRunner> takeRunner() const;

  RunnerFactory factory_;
  /// Runners only use their context to report errors.
  std::unique_ptr<llvm::LLVMContext> context_;
  /// A runner holds its input buffers, so it serves one decision at a time:
  /// compile threads take one from here and put it back.
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<llvm::MLModelRunner>> idle_;
};

}  // namespace mlgo::inlining
