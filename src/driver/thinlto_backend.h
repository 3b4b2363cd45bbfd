#pragma once
// Compiling a module of a ThinLTO corpus as the ThinLTO backend does. The
// module is the post-import one (what lld's backend saves as .3.import.bc, or
// what -lto-embed-bitcode=post-merge-pre-opt embeds): renaming,
// internalization and importing are done, so what remains is the backend's
// optimization pipeline, buildThinLTODefaultPipeline with the module's index
// as import summary, and code generation. That is what clang does with
// -fthinlto-index= -mllvm -thinlto-assume-merged, except that clang's ThinLTO
// path ignores PassBuilder callbacks: mlgo runs the pipeline itself, so the
// problems' hooks (the inlining policy) act on it. Private to the driver.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <clang/Basic/CodeGenOptions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ModuleSummaryIndex.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>

namespace mlgo {

/// Loads the index at `path` and checks that it is this module's: every
/// function the module defines for other modules to see has a summary there,
/// all in one module of the index. Returns null and sets `error` naming the
/// file otherwise (missing, unreadable, empty, or another module's index).
std::unique_ptr<llvm::ModuleSummaryIndex> loadThinLTOIndex(const std::filesystem::path &path,
                                                           const llvm::Module &module, std::string &error);

/// Runs the ThinLTO backend's optimization pipeline on `module` as LLVM's
/// lto::opt does for clang's -fthinlto-index= compile: the recorded
/// optimization level (-Os and -Oz are level 2 there; size comes from the
/// functions' attributes), clang's tuning options, the index as import
/// summary. `registerHooks` adds the compile's hooks to the PassBuilder.
void runThinLTOBackendPipeline(llvm::Module &module, const llvm::ModuleSummaryIndex &index,
                               llvm::TargetMachine &machine, const clang::CodeGenOptions &codegen,
                               const std::function<void(llvm::PassBuilder &)> &registerHooks);

}  // namespace mlgo
