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
#include <functional>
#include <memory>
#include <string>

#include "mlgo/driver/pipeline_hook.h"
#include "mlgo/problems/inlining/inlining_policy.h"

namespace mlgo::inlining {

/// Per-compile hooks whose every inlining decision `policy` takes (the
/// advisor installed).
std::function<std::shared_ptr<PipelineHook>()> hooksFor(std::shared_ptr<const Policy> policy);

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
  uint64_t decisionsTaken() const override { return decisions(); }
  /// The policy's key; none while an observer must see each decision.
  std::string memoKey() const override;

 private:
  std::shared_ptr<const Policy> policy_;
  DecisionObserver *observer_;
  bool needsDefault_;
  mutable std::atomic<uint64_t> decisions_{0};
};

/// LLVM's ML inline advisor stops all further inlining of a module once its
/// size estimate passes `-ml-advisor-size-increase-threshold` (default 2.0)
/// times the start; the default heuristic has no such stop, so a hook that
/// answers exactly as the heuristic would still inline less on code with many
/// small helpers. mlgo sets this value in every process that runs the hook
/// (training, evaluation, tracing), and a stock clang served a policy, or an
/// LLVM built with an exported one, must be given the same option to match.
constexpr const char *kAdvisorSizeOptionName = "ml-advisor-size-increase-threshold";
constexpr const char *kAdvisorSizeOptionValue = "1000";
/// The -mllvm flag a stock clang needs: "-ml-advisor-size-increase-threshold=1000".
std::string advisorSizeFlag();

/// Registers the process-wide part and sets the advisor's size threshold.
/// Call once at start-up, before the first compile (idempotent).
void installInliningAdvisor();

}  // namespace mlgo::inlining
