#pragma once
// The passes eviction_seam.cpp substitutes for LLVM's own while an
// EvictionHook is active on the compiling thread.
#include "eviction_state.h"

namespace llvm {
class Pass;
}

namespace mlgo::regalloc {

/// The eviction advisor analysis (eviction_advisor.cpp).
llvm::Pass *createSteeredEvictionAnalysis(EvictionHook::State &state);
/// LLVM's virtual-register rewriter followed by LLVM's regalloc score of the
/// rewritten function, added to `state` (score_pass.cpp).
llvm::Pass *createScoringRewriter(EvictionHook::State &state, llvm::Pass *rewriter);

}  // namespace mlgo::regalloc
