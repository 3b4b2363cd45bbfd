#include "inlining_advisor.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/BlockFrequencyInfo.h>
#include <llvm/Analysis/InlineCost.h>
#include <llvm/Analysis/InlineModelFeatureMaps.h>
#include <llvm/Analysis/MLInlineAdvisor.h>
#include <llvm/Analysis/MLModelRunner.h>
#include <llvm/Analysis/OptimizationRemarkEmitter.h>
#include <llvm/Analysis/ProfileSummaryInfo.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/CommandLine.h>

#include "mlgo/problems/inlining/inlining_hook.h"

namespace mlgo::inlining {

ActiveCompile &activeCompile() {
  thread_local ActiveCompile active;
  return active;
}

namespace {

/// Feeds the features MLInlineAdvisor computes to the hook's policy. One extra
/// input after LLVM's features holds the default decision, as LLVM's
/// interactive mode lays it out (DefaultDecisionSpec).
class PolicyModelRunner final : public llvm::MLModelRunner {
 public:
  PolicyModelRunner(llvm::LLVMContext &context, const InliningHook &hook)
      : MLModelRunner(context, Kind::Release, llvm::NumberOfFeatures + 1), hook_(hook) {
    for (size_t i = 0; i < llvm::NumberOfFeatures; ++i)
      setUpBufferForTensor(i, llvm::FeatureMap[i], &inputs_[i]);
    setUpBufferForTensor(llvm::NumberOfFeatures, llvm::DefaultDecisionSpec, &inputs_[llvm::NumberOfFeatures]);
  }

 private:
  void *evaluateUntyped() override {
    DecisionInput input;
    input.features = inputs_;
    input.defaultDecision = inputs_[llvm::NumberOfFeatures];
    decision_ = hook_.decide(input) ? 1 : 0;
    return &decision_;
  }

  const InliningHook &hook_;
  int64_t inputs_[llvm::NumberOfFeatures + 1] = {};
  int64_t decision_ = 0;
};

/// LLVM's inline-deferral default: the plugin factory does not get the value
/// InlineAdvisor.cpp reads, so read the registered option itself.
bool inlineDeferralEnabled() {
  static const bool enabled = [] {
    auto &options = llvm::cl::getRegisteredOptions();
    auto found = options.find("inline-deferral");
    if (found == options.end()) return false;
    auto *option = static_cast<llvm::cl::opt<bool> *>(found->second);
    return option->getValue();
  }();
  return enabled;
}

/// MLInlineAdvisor that fills in the default heuristic's decision before it
/// asks its runner. LLVM only does that in interactive mode.
class HookedInlineAdvisor final : public llvm::MLInlineAdvisor {
 public:
  HookedInlineAdvisor(llvm::Module &module, llvm::ModuleAnalysisManager &moduleAnalyses,
                      const InliningHook &hook, llvm::InlineParams params)
      : MLInlineAdvisor(module, moduleAnalyses, std::make_unique<PolicyModelRunner>(module.getContext(), hook),
                        // Called by LLVM only in its interactive mode; kept correct anyway.
                        [this](llvm::CallBase &call) { return defaultDecision(call); }),
        hook_(hook),
        params_(params) {}

 protected:
  std::unique_ptr<llvm::MLInlineAdvice> getAdviceFromModel(llvm::CallBase &call,
                                                           llvm::OptimizationRemarkEmitter &remarks) override {
    *ModelRunner->getTensor<int64_t>(llvm::NumberOfFeatures) =
        hook_.needsDefaultDecision() ? (defaultDecision(call) ? 1 : 0) : -1;
    return MLInlineAdvisor::getAdviceFromModel(call, remarks);
  }

 private:
  /// What DefaultInlineAdvisor would decide: InlineAdvisor.cpp's
  /// getDefaultInlineAdvice (getInlineCost + shouldInline).
  bool defaultDecision(llvm::CallBase &call) {
    llvm::Function &caller = *call.getCaller();
    llvm::Function &callee = *call.getCalledFunction();
    llvm::ProfileSummaryInfo *profile =
        FAM.getResult<llvm::ModuleAnalysisManagerFunctionProxy>(caller)
            .getCachedResult<llvm::ProfileSummaryAnalysis>(*caller.getParent());
    auto &remarks = FAM.getResult<llvm::OptimizationRemarkEmitterAnalysis>(caller);
    auto getAssumptionCache = [&](llvm::Function &f) -> llvm::AssumptionCache & {
      return FAM.getResult<llvm::AssumptionAnalysis>(f);
    };
    auto getBFI = [&](llvm::Function &f) -> llvm::BlockFrequencyInfo & {
      return FAM.getResult<llvm::BlockFrequencyAnalysis>(f);
    };
    auto getTLI = [&](llvm::Function &f) -> const llvm::TargetLibraryInfo & {
      return FAM.getResult<llvm::TargetLibraryAnalysis>(f);
    };
    auto &calleeTTI = FAM.getResult<llvm::TargetIRAnalysis>(callee);
    auto getInlineCost = [&](llvm::CallBase &site) {
      return llvm::getInlineCost(site, params_, calleeTTI, getAssumptionCache, getTLI, getBFI, profile, nullptr);
    };
    return llvm::shouldInline(call, getInlineCost, remarks,
                              params_.EnableDeferral.value_or(inlineDeferralEnabled()))
        .has_value();
  }

  const InliningHook &hook_;
  llvm::InlineParams params_;
};

}  // namespace

llvm::InlineAdvisor *createInlineAdvisor(llvm::Module &module, llvm::FunctionAnalysisManager &functionAnalyses,
                                         llvm::InlineParams params, llvm::InlineContext context) {
  ActiveCompile &active = activeCompile();
  if (!active.hook || !active.moduleAnalyses)
    return new llvm::DefaultInlineAdvisor(module, functionAnalyses, params, context);
  return new HookedInlineAdvisor(module, *active.moduleAnalyses, *active.hook, params);
}

}  // namespace mlgo::inlining
