#include "thinlto_backend.h"

#include <set>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/TargetParser/Triple.h>

#include "analysis_managers.h"

namespace mlgo {

namespace {

/// The index's module paths holding a summary of `function`.
std::set<std::string> summarizingModules(const llvm::ModuleSummaryIndex &index, const llvm::Function &function) {
  std::set<std::string> paths;
  if (llvm::ValueInfo info = index.getValueInfo(function.getGUID()))
    for (const auto &summary : info.getSummaryList()) paths.insert(summary->modulePath().str());
  return paths;
}

/// Why `index` is not the index of `module`, or empty when it is. Functions
/// promoted from local (".llvm.<hash>" names) are summarized under their
/// original name, and imported ones belong to other modules: neither is
/// checked.
std::string indexMismatch(const llvm::ModuleSummaryIndex &index, const llvm::Module &module) {
  std::set<std::string> candidates;
  bool first = true;
  for (const llvm::Function &function : module) {
    if (function.isDeclaration() || function.hasAvailableExternallyLinkage() || function.hasLocalLinkage() ||
        function.getName().contains(".llvm."))
      continue;
    std::set<std::string> paths = summarizingModules(index, function);
    if (paths.empty())
      return "function '" + function.getName().str() + "', which the module defines, has no summary in it";
    if (first) {
      candidates = std::move(paths);
      first = false;
      continue;
    }
    std::set<std::string> common;
    for (const std::string &path : paths)
      if (candidates.count(path)) common.insert(path);
    if (common.empty())
      return "it summarizes the module's functions as parts of different modules (function '" +
             function.getName().str() + "')";
    candidates = std::move(common);
  }
  return {};
}

llvm::OptimizationLevel optimizationLevel(unsigned level) {
  switch (level) {
    case 0: return llvm::OptimizationLevel::O0;
    case 1: return llvm::OptimizationLevel::O1;
    case 2: return llvm::OptimizationLevel::O2;
    default: return llvm::OptimizationLevel::O3;
  }
}

}  // namespace

std::unique_ptr<llvm::ModuleSummaryIndex> loadThinLTOIndex(const std::filesystem::path &path,
                                                           const llvm::Module &module, std::string &error) {
  const std::string where = "ThinLTO index " + path.string();
  auto loaded = llvm::getModuleSummaryIndexForFile(path.string(), /*IgnoreEmptyThinLTOIndexFile=*/true);
  if (!loaded) {
    error = where + ": cannot be read: " + llvm::toString(loaded.takeError());
    return nullptr;
  }
  if (!*loaded || (*loaded)->skipModuleByDistributedBackend()) {
    error = where + ": empty (the link did not need this module)";
    return nullptr;
  }
  if (std::string why = indexMismatch(**loaded, module); !why.empty()) {
    error = where + ": not this module's index: " + why;
    return nullptr;
  }
  return std::move(*loaded);
}

void runThinLTOBackendPipeline(llvm::Module &module, const llvm::ModuleSummaryIndex &index,
                               llvm::TargetMachine &machine, const clang::CodeGenOptions &codegen,
                               const std::function<void(llvm::PassBuilder &)> &registerHooks) {
  // clang's runThinLTOBackend sets exactly these tuning options.
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = codegen.UnrollLoops;
  tuning.LoopInterleaving = codegen.UnrollLoops;
  tuning.LoopVectorization = codegen.VectorizeLoop;
  tuning.SLPVectorization = codegen.VectorizeSLP;
  tuning.CallGraphProfile = !codegen.DisableIntegratedAS;

  AnalysisManagers analyses;
  llvm::PassInstrumentationCallbacks instrumentation;
  // As lto::opt: among others, it skips optnone functions.
  llvm::StandardInstrumentations standard(module.getContext(), /*DebugLogging=*/false);
  standard.registerCallbacks(instrumentation, &analyses.modules);
  llvm::PassBuilder builder(&machine, tuning, std::nullopt, &instrumentation);
  registerHooks(builder);
  llvm::TargetLibraryInfoImpl libraryInfo(llvm::Triple(machine.getTargetTriple()));
  analyses.registerWith(builder, libraryInfo);
  llvm::ModulePassManager passes =
      builder.buildThinLTODefaultPipeline(optimizationLevel(codegen.OptimizationLevel), &index);
  passes.run(module, analyses.modules);
}

}  // namespace mlgo
