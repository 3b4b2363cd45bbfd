// How an EvictionHook reaches LLVM's register allocator without a pass
// manager of its own (pass_constructor.h): installEvictionSeam() replaces the
// registry constructors of the eviction advisor analysis and of the
// virtual-register rewriter, once per process: on a thread where an
// EvictionHook is active they build mlgo's passes, elsewhere LLVM's own.
//
// The score: LLVM's RegAllocScoring pass, which would hand the score to the
// advisor analysis, does nothing outside LLVM's TFLite builds, so the
// rewriter's stand-in computes the same score at the same place in the
// pipeline (right after rewriting).
#include <mutex>

#include <llvm/CodeGen/Passes.h>
#include <llvm/InitializePasses.h>

// Private to LLVM's lib/CodeGen; fetched by cmake/LLVMCodeGenHeaders.cmake.
#include "RegAllocEvictionAdvisor.h"

#include "eviction_seam.h"
#include "pass_constructor.h"

namespace mlgo::regalloc {

namespace {

llvm::PassInfo::NormalCtor_t stockEvictionAnalysis = nullptr;
llvm::PassInfo::NormalCtor_t stockRewriter = nullptr;

llvm::Pass *createEvictionAnalysis() {
  if (EvictionHook::State *state = activeEvictionState()) return createSteeredEvictionAnalysis(*state);
  return stockEvictionAnalysis();
}

llvm::Pass *createRewriter() {
  if (EvictionHook::State *state = activeEvictionState()) return createScoringRewriter(*state, stockRewriter());
  return stockRewriter();
}

}  // namespace

void installEvictionSeam() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::PassRegistry &registry = *llvm::PassRegistry::getPassRegistry();
    llvm::initializeRegAllocEvictionAdvisorAnalysisPass(registry);
    llvm::initializeVirtRegRewriterPass(registry);
    stockEvictionAnalysis = replacePassConstructor(&llvm::RegAllocEvictionAdvisorAnalysis::ID, &createEvictionAnalysis);
    stockRewriter = replacePassConstructor(&llvm::VirtRegRewriterID, &createRewriter);
  });
}

}  // namespace mlgo::regalloc
