#pragma once
// Routes the inliner's decisions of one compile to a Policy.
//
// LLVM 19's ModuleInlinerWrapperPass asks a PluginInlineAdvisorAnalysis for
// its advisor when one is registered. mlgo registers one in every module
// analysis manager of the process (LLVM's flag for it is process-global, see
// installInliningAdvisor). Its factory returns:
//   - with an InliningHook active on the compiling thread: an MLInlineAdvisor
//     whose model runner asks the hook's policy, after filling in the default
//     heuristic's decision when the policy wants it;
//   - otherwise: LLVM's plain DefaultInlineAdvisor, i.e. exactly -Oz.
#include <atomic>
#include <memory>

#include "mlgo/driver/pipeline_hook.h"
#include "mlgo/problems/inlining/inlining_policy.h"

namespace mlgo::inlining {

class InliningHook final : public PipelineHook {
 public:
  /// `observer` may be null; it must outlive the compile.
  explicit InliningHook(std::shared_ptr<const Policy> policy, DecisionObserver *observer = nullptr);

  void beginCompile() override;
  void endCompile() override;

  /// Asks the policy and tells the observer. Called by the model runner.
  bool decide(const DecisionInput &input) const;
  bool needsDefaultDecision() const { return needsDefault_; }
  /// Decisions taken so far by this hook.
  uint64_t decisions() const { return decisions_.load(std::memory_order_relaxed); }

 private:
  std::shared_ptr<const Policy> policy_;
  DecisionObserver *observer_;
  bool needsDefault_;
  mutable std::atomic<uint64_t> decisions_{0};
};

/// Registers the process-wide part. Call once at start-up, before the first
/// compile (idempotent).
void installInliningAdvisor();

}  // namespace mlgo::inlining
