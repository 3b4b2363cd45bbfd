#include "mlgo/driver/optimization_work.h"

#include <llvm/Analysis/LazyCallGraph.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/ADT/Any.h>

namespace mlgo {

namespace {

/// The IR outliner's time grows much faster than the IR it runs on (it
/// looks for similar instruction sequences across the whole module): on
/// pcre2_match.c a list running it twice took 46 s of CPU, the same list
/// without it 4.7 s, -Oz 3.75 s. Its instructions count this many times, so
/// that its work says what it costs.
constexpr uint64_t kOutlinerWeight = 100;

uint64_t instructionsOf(const llvm::Function &function) { return function.getInstructionCount(); }

/// The instructions of the IR unit a pass runs on (the kinds the new pass
/// manager hands its instrumentation).
uint64_t instructionsOf(const llvm::Any &unit) {
  if (const auto *function = llvm::any_cast<const llvm::Function *>(&unit)) return instructionsOf(**function);
  if (const auto *module = llvm::any_cast<const llvm::Module *>(&unit)) return (*module)->getInstructionCount();
  if (const auto *scc = llvm::any_cast<const llvm::LazyCallGraph::SCC *>(&unit)) {
    uint64_t count = 0;
    for (const llvm::LazyCallGraph::Node &node : **scc) count += instructionsOf(node.getFunction());
    return count;
  }
  if (const auto *loop = llvm::any_cast<const llvm::Loop *>(&unit)) {
    uint64_t count = 0;
    for (const llvm::BasicBlock *block : (*loop)->blocks()) count += block->size();
    return count;
  }
  return 0;
}

}  // namespace

void OptimizationWork::registerCallbacks(llvm::PassBuilder &builder) {
  llvm::PassInstrumentationCallbacks *instrumentation = builder.getPassInstrumentationCallbacks();
  if (!instrumentation) return;
  instrumentation->registerBeforeNonSkippedPassCallback([this](llvm::StringRef pass, llvm::Any unit) {
    // Pass managers and adaptors hand each pass its unit in turn: count the
    // passes that do work, not the wrappers around them.
    if (pass.contains("PassManager") || pass.contains("PassAdaptor")) return;
    visited_ += instructionsOf(unit) * (pass == "IROutlinerPass" ? kOutlinerWeight : 1);
  });
}

}  // namespace mlgo
