#pragma once
// The four new-pass-manager analysis managers a pipeline runs with, wired to
// a PassBuilder as opt and LLVM's LTO backend wire them. Private to the driver.
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Passes/PassBuilder.h>

namespace mlgo {

struct AnalysisManagers {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgsccs;
  llvm::ModuleAnalysisManager modules;

  /// Registers the builder's analyses, with `libraryInfo` as the target's
  /// library (it must outlive the managers).
  void registerWith(llvm::PassBuilder &builder, llvm::TargetLibraryInfoImpl &libraryInfo) {
    functions.registerPass([&libraryInfo] { return llvm::TargetLibraryAnalysis(libraryInfo); });
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(cgsccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, cgsccs, modules);
  }
};

}  // namespace mlgo
