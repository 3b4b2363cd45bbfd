#include "mlgo/problems/inlining/inlining_hook.h"

#include <mutex>
#include <stdexcept>

#include <llvm/Analysis/InlineAdvisor.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>

#include "inlining_advisor.h"

namespace mlgo::inlining {

InliningHook::InliningHook(std::shared_ptr<const Policy> policy, DecisionObserver *observer)
    : policy_(std::move(policy)), observer_(observer), needsDefault_(policy_->needsDefaultDecision()) {
  // A hook without the process-wide registration would silently leave the
  // default heuristic in charge.
  installInliningAdvisor();
}

std::string InliningHook::memoKey() const {
  if (observer_) return {};
  const std::string policyKey = policy_->memoKey();
  return policyKey.empty() ? std::string() : "inlining/" + policyKey;
}

void InliningHook::beginCompile() { activeCompile().hook = this; }
void InliningHook::endCompile() { activeCompile().hook = nullptr; }

bool InliningHook::decide(const DecisionInput &input) const {
  const bool inlined = policy_->decide(input);
  decisions_.fetch_add(1, std::memory_order_relaxed);
  if (observer_) observer_->onDecision(input, inlined);
  return inlined;
}

namespace {

/// Registers the plugin advisor in every module analysis manager, and tells
/// the factory which manager belongs to the compile on this thread.
class AdvisorRegistration final : public PipelineHook {
 public:
  void endCompile() override { activeCompile().moduleAnalyses = nullptr; }
  void registerCallbacks(llvm::PassBuilder &builder) override {
    builder.registerAnalysisRegistrationCallback([](llvm::ModuleAnalysisManager &analyses) {
      activeCompile().moduleAnalyses = &analyses;
      analyses.registerPass([] { return llvm::PluginInlineAdvisorAnalysis(createInlineAdvisor); });
    });
  }
};

}  // namespace

std::string advisorSizeFlag() { return std::string("-") + kAdvisorSizeOptionName + "=" + kAdvisorSizeOptionValue; }

void installInliningAdvisor() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerProcessWideHook(std::make_shared<AdvisorRegistration>());
    // Set as an occurrence of the option, as the command line would, so it
    // holds for every compile of the process.
    auto &options = llvm::cl::getRegisteredOptions();
    auto found = options.find(kAdvisorSizeOptionName);
    if (found == options.end())
      throw std::logic_error(std::string("LLVM has no -") + kAdvisorSizeOptionName + " option");
    if (found->second->addOccurrence(0, kAdvisorSizeOptionName, kAdvisorSizeOptionValue))
      throw std::logic_error(std::string("LLVM refused -") + kAdvisorSizeOptionName + "=" + kAdvisorSizeOptionValue);
  });
}

std::function<std::shared_ptr<PipelineHook>()> hooksFor(std::shared_ptr<const Policy> policy) {
  installInliningAdvisor();
  return [policy] { return std::make_shared<InliningHook>(policy); };
}

}  // namespace mlgo::inlining
