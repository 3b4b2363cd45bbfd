// How an EvictionHook reaches LLVM's register allocator without a pass
// manager of its own: clang's code generation builds its legacy pass manager
// inside EmitBackendOutput, which takes no callbacks, and the pass manager
// creates the eviction advisor analysis and the virtual-register rewriter
// through LLVM's pass registry. installEvictionSeam() replaces those two
// registry constructors, once per process: on a thread where an EvictionHook
// is active they build mlgo's passes, elsewhere LLVM's own, as before.
//
// The score: LLVM's RegAllocScoring pass, which would hand the score to the
// advisor analysis, does nothing outside LLVM's TFLite builds, so the
// rewriter's stand-in computes the same score at the same place in the
// pipeline (right after rewriting).
#include <mutex>

#include <llvm/CodeGen/Passes.h>
#include <llvm/InitializePasses.h>
#include <llvm/PassInfo.h>
#include <llvm/PassRegistry.h>

// Private to LLVM's lib/CodeGen; fetched by cmake/LLVMCodeGenHeaders.cmake.
#include "RegAllocEvictionAdvisor.h"

#include "eviction_seam.h"

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

/// Swaps the registry's constructor of `id` for `replacement`; the stock one.
llvm::PassInfo::NormalCtor_t replaceConstructor(llvm::PassRegistry &registry, const void *id,
                                                llvm::PassInfo::NormalCtor_t replacement) {
  auto *info = const_cast<llvm::PassInfo *>(registry.getPassInfo(id));
  const llvm::PassInfo::NormalCtor_t stock = info->getNormalCtor();
  info->setNormalCtor(replacement);
  return stock;
}

}  // namespace

void installEvictionSeam() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::PassRegistry &registry = *llvm::PassRegistry::getPassRegistry();
    llvm::initializeRegAllocEvictionAdvisorAnalysisPass(registry);
    llvm::initializeVirtRegRewriterPass(registry);
    stockEvictionAnalysis =
        replaceConstructor(registry, &llvm::RegAllocEvictionAdvisorAnalysis::ID, &createEvictionAnalysis);
    stockRewriter = replaceConstructor(registry, &llvm::VirtRegRewriterID, &createRewriter);
  });
}

}  // namespace mlgo::regalloc
