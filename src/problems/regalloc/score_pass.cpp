#include <llvm/CodeGen/MachineBlockFrequencyInfo.h>
#include <llvm/CodeGen/MachineFunction.h>
#include <llvm/CodeGen/MachineFunctionPass.h>
#include <llvm/CodeGen/Passes.h>
#include <llvm/IR/Function.h>

// Private to LLVM's lib/CodeGen; fetched by cmake/LLVMCodeGenHeaders.cmake.
#include "RegAllocScore.h"

#include "eviction_seam.h"

namespace mlgo::regalloc {

namespace {

/// Stands in for LLVM's virtual-register rewriter (its pass ID, so the pass
/// manager schedules it as the rewriter): runs the rewriter, then adds LLVM's
/// regalloc score of the rewritten function where RegAllocScoring would
/// compute it.
class ScoringRewriter final : public llvm::MachineFunctionPass {
 public:
  ScoringRewriter(EvictionHook::State &state, llvm::Pass *rewriter)
      : MachineFunctionPass(llvm::VirtRegRewriterID), state_(state), rewriter_(rewriter) {}

  ~ScoringRewriter() override {
    // The rewriter shares this pass's resolver, which Pass deletes.
    rewriter_->setResolver(nullptr);
  }

  llvm::StringRef getPassName() const override { return rewriter_->getPassName(); }

  void getAnalysisUsage(llvm::AnalysisUsage &usage) const override {
    rewriter_->getAnalysisUsage(usage);
    usage.addRequired<llvm::MachineBlockFrequencyInfoWrapperPass>();
  }

  bool doInitialization(llvm::Module &module) override { return rewriter_->doInitialization(module); }
  bool doFinalization(llvm::Module &module) override { return rewriter_->doFinalization(module); }

  bool runOnMachineFunction(llvm::MachineFunction &function) override {
    if (!rewriter_->getResolver()) rewriter_->setResolver(getResolver());
    // The rewriter's runOnFunction (as the pass manager would call it) applies
    // its machine-function properties too.
    const bool changed = static_cast<llvm::FunctionPass &>(*rewriter_).runOnFunction(function.getFunction());
    const auto &frequencies = getAnalysis<llvm::MachineBlockFrequencyInfoWrapperPass>().getMBFI();
    const double score = llvm::calculateRegAllocScore(function, frequencies).getScore();
    state_.score += score;
    state_.functionScores[function.getName().str()] += score;
    return changed;
  }

 private:
  EvictionHook::State &state_;
  std::unique_ptr<llvm::Pass> rewriter_;
};

}  // namespace

llvm::Pass *createScoringRewriter(EvictionHook::State &state, llvm::Pass *rewriter) {
  return new ScoringRewriter(state, rewriter);
}

}  // namespace mlgo::regalloc
