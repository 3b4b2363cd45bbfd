#pragma once
// Private to the inlining problem: the advisor factory and the thread-local
// state that connects it to the current compile.
#include <llvm/Analysis/InlineAdvisor.h>

namespace mlgo::inlining {

class InliningHook;

/// The compile running on this thread: its hook (null: default heuristic) and
/// the module analysis manager the advisor needs (MLInlineAdvisor takes one,
/// the plugin factory does not receive it).
struct ActiveCompile {
  const InliningHook *hook = nullptr;
  llvm::ModuleAnalysisManager *moduleAnalyses = nullptr;
};
ActiveCompile &activeCompile();

/// PluginInlineAdvisorAnalysis::AdvisorFactory.
llvm::InlineAdvisor *createInlineAdvisor(llvm::Module &module, llvm::FunctionAnalysisManager &functionAnalyses,
                                         llvm::InlineParams params, llvm::InlineContext context);

}  // namespace mlgo::inlining
