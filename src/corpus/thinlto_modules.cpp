#include "mlgo/corpus/thinlto_modules.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <llvm/ADT/StringRef.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ModuleSummaryIndex.h>
#include <llvm/Support/MemoryBuffer.h>

#include "mlgo/corpus/corpus.h"
#include "mlgo/corpus/embedded_sections.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace fs = std::filesystem;

namespace {

/// The contents of the llvm.cmdline global clang leaves in a module compiled
/// with -fembed-bitcode=all, or nullopt.
std::optional<std::string> embeddedCommandLine(const std::string &bitcode, std::string &error) {
  llvm::LLVMContext context;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(bitcode, "module", /*RequiresNullTerminator=*/false);
  auto module = llvm::parseBitcodeFile(buffer->getMemBufferRef(), context);
  if (!module) {
    error = "invalid bitcode: " + llvm::toString(module.takeError());
    return std::nullopt;
  }
  const llvm::GlobalVariable *global = (*module)->getNamedGlobal("llvm.cmdline");
  if (!global || !global->hasInitializer()) return std::nullopt;
  const auto *data = llvm::dyn_cast<llvm::ConstantDataSequential>(global->getInitializer());
  if (!data) return std::nullopt;
  return data->getRawDataValues().str();
}

bool isOptimizationLevel(const std::string &arg) {
  return arg.size() >= 2 && arg.compare(0, 2, "-O") == 0 && arg.size() <= 6;
}

std::string valueAfter(const std::vector<std::string> &args, const std::string &prefix) {
  for (const std::string &arg : args)
    if (arg.rfind(prefix, 0) == 0) return arg.substr(prefix.size());
  return {};
}

ExtractedModuleFiles unusable(std::string problem, std::string detail) {
  ExtractedModuleFiles files;
  files.problem = std::move(problem);
  files.detail = std::move(detail);
  return files;
}

/// The GUIDs a function of a post-import module may have in a summary: its
/// name as a global's, or, for a local the backend promoted or internalized
/// (renamed NAME.llvm.HASH, or made internal), the local's identifier.
std::vector<llvm::GlobalValue::GUID> summaryGUIDs(const llvm::Function &function, llvm::StringRef sourceFile) {
  const llvm::StringRef name = function.getName();
  const llvm::StringRef base = name.split(".llvm.").first;
  return {llvm::GlobalValue::getGUID(name),
          llvm::GlobalValue::getGUID(
              llvm::GlobalValue::getGlobalIdentifier(base, llvm::GlobalValue::InternalLinkage, sourceFile))};
}

/// Why the post-import module `bitcode` is not compiled with `index`:
/// {problem, detail}, both empty when it is. A backend's index holds every
/// function of its own module and, from each other module, exactly the
/// functions the backend imported (available_externally in the post-import
/// module). A module whose functions the link all dropped (none was used)
/// defines none: it has nothing to compile.
std::pair<std::string, std::string> indexMismatch(const std::string &bitcode, const llvm::ModuleSummaryIndex &index) {
  const std::string unusable = "ThinLTO index unusable";
  llvm::LLVMContext context;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(bitcode, "module", /*RequiresNullTerminator=*/false);
  auto module = llvm::getLazyBitcodeModule(buffer->getMemBufferRef(), context);
  if (!module) return {unusable, "the module's bitcode is invalid: " + llvm::toString(module.takeError())};
  const llvm::StringRef sourceFile = (*module)->getSourceFileName();
  std::vector<const llvm::Function *> own;
  std::set<llvm::GlobalValue::GUID> imported;
  for (const llvm::Function &function : **module) {
    if (function.isDeclaration() || function.isIntrinsic() || function.getName().starts_with("llvm.")) continue;
    if (function.hasAvailableExternallyLinkage())
      for (llvm::GlobalValue::GUID guid : summaryGUIDs(function, sourceFile)) imported.insert(guid);
    else
      own.push_back(&function);
  }
  std::map<std::string, std::set<llvm::GlobalValue::GUID>> functionsByModule;
  for (const auto &[guid, info] : index)
    for (const auto &summary : info.SummaryList)
      if (llvm::isa<llvm::FunctionSummary>(summary.get())) functionsByModule[summary->modulePath().str()].insert(guid);
  if (own.empty() && !functionsByModule.empty())
    return {"nothing to compile (the link dropped every function of the module)",
            "the post-import module defines none of the functions its index summarizes: the program never uses them"};
  auto summarized = [](const std::set<llvm::GlobalValue::GUID> &guids, const llvm::Function &function,
                       llvm::StringRef sourceFile) {
    for (llvm::GlobalValue::GUID guid : summaryGUIDs(function, sourceFile))
      if (guids.count(guid)) return true;
    return false;
  };
  // The module's own entry: the one that summarizes most of its functions.
  std::string self;
  size_t best = 0;
  for (const auto &[path, guids] : functionsByModule) {
    const size_t covered = std::count_if(own.begin(), own.end(), [&](const llvm::Function *function) {
      return summarized(guids, *function, sourceFile);
    });
    if (covered > best) best = covered, self = path;
  }
  if (!own.empty() && best == 0)
    return {unusable, "another module's index: it summarizes none of the module's functions (e.g. " +
                          own.front()->getName().str() + ")"};
  for (const llvm::Function *function : own)
    if (!summarized(functionsByModule[self], *function, sourceFile))
      return {unusable, "another module's index: its module " + self + " has no summary of the module's function " +
                            function->getName().str()};
  for (const auto &[path, guids] : functionsByModule)
    if (path != self)
      for (llvm::GlobalValue::GUID guid : guids)
        if (!imported.count(guid))
          return {unusable, "another module's index: it imports a function of " + path + " (GUID " +
                                std::to_string(guid) + ") that the module does not hold"};
  return {};
}

/// Reads the index file; sets `files.problem` when it is missing or empty
/// (an empty index: the link did not need the module), not the index of
/// the module in `files.bitcode` (truncated, another file, another module's),
/// or when the module kept no function to compile.
void readIndex(const fs::path &index, ExtractedModuleFiles &files) {
  if (!regularFileProblem(index).empty()) {
    files.problem = "ThinLTO index missing";
    files.detail = index.string() + ": " + regularFileProblem(index);
    return;
  }
  files.index = readFile(index);
  if (files.index.empty()) {
    files.problem = "ThinLTO index empty (the link did not need the module)";
    files.detail = index.string();
    return;
  }
  auto buffer = llvm::MemoryBuffer::getMemBuffer(files.index, index.string(), /*RequiresNullTerminator=*/false);
  auto parsed = llvm::getModuleSummaryIndex(buffer->getMemBufferRef());
  if (!parsed) {
    files.problem = "ThinLTO index unusable";
    files.detail = index.string() + ": not a ThinLTO index: " + llvm::toString(parsed.takeError());
  } else if ((*parsed)->skipModuleByDistributedBackend()) {
    files.problem = "ThinLTO index empty (the link did not need the module)";
    files.detail = index.string();
  } else if (auto [problem, detail] = indexMismatch(files.bitcode, **parsed); !problem.empty()) {
    files.problem = std::move(problem);
    files.detail = index.string() + ": " + detail;
  }
  if (!files.problem.empty()) files.index.clear();
}

}  // namespace

std::vector<ObjectEntry> findLocalThinLTOModules(const fs::path &scanRoot) {
  // Absolute, so the paths found are too, and module names are relative to
  // the root whatever the current directory.
  const fs::path root = fs::absolute(scanRoot);
  std::vector<ObjectEntry> entries;
  std::error_code error;
  for (fs::recursive_directory_iterator it(root, error), end; !error && it != end; it.increment(error)) {
    if (!it->is_regular_file()) continue;
    const std::string path = it->path().string();
    if (!llvm::StringRef(path).ends_with(kLocalImportSuffix)) continue;
    ObjectEntry entry;
    entry.origin = path;
    entry.objectPath = path.substr(0, path.size() - std::string(kLocalImportSuffix).size());
    entry.directory = root;
    entry.moduleName = moduleNameForObject(entry.objectPath, root);
    entries.push_back(std::move(entry));
  }
  if (error) throw InputError(describeInputProblem(root.string(), "", "cannot be listed: " + error.message()));
  std::sort(entries.begin(), entries.end(),
            [](const ObjectEntry &a, const ObjectEntry &b) { return a.moduleName < b.moduleName; });
  return entries;
}

std::vector<std::string> localBackendCommandLine(const std::vector<std::string> &compile, unsigned ltoLevel,
                                                 const std::string &indexName) {
  // What made the compile a pre-link one, and what lld's backend sets anew.
  const std::vector<std::string> dropped{"-emit-llvm-bc", "-emit-llvm", "-emit-obj",      "-flto",
                                         "-flto=thin",    "-flto=full", "-flto-unit",     "-vectorize-loops",
                                         "-vectorize-slp", "-ffunction-sections", "-fdata-sections"};
  std::vector<std::string> backend;
  for (const std::string &arg : compile) {
    if (std::find(dropped.begin(), dropped.end(), arg) != dropped.end() || isOptimizationLevel(arg) ||
        arg.rfind("-fembed-bitcode", 0) == 0 || arg.rfind("-fthinlto-index=", 0) == 0)
      continue;
    backend.push_back(arg);
  }
  backend.insert(backend.end(), {"-emit-obj", "-O" + std::to_string(ltoLevel)});
  // lld: PTO.LoopVectorization = PTO.SLPVectorization = OptLevel > 1, and
  // every function and object in its own section.
  if (ltoLevel > 1) backend.insert(backend.end(), {"-vectorize-loops", "-vectorize-slp"});
  backend.insert(backend.end(), {"-ffunction-sections", "-fdata-sections", "-fthinlto-index=" + indexName});
  return backend;
}

ExtractedModuleFiles readLocalThinLTOModule(const fs::path &base, unsigned ltoLevel) {
  ExtractedModuleFiles files;
  files.bitcode = readFile(base.string() + kLocalImportSuffix);
  std::string error;
  std::optional<std::string> compile = embeddedCommandLine(files.bitcode, error);
  if (!error.empty()) return unusable("invalid bitcode", error);
  if (!compile)
    return unusable("no recorded command line",
                    "the module has no llvm.cmdline: compile with -Xclang -fembed-bitcode=all");
  const std::string indexName = base.filename().string() + kThinLTOIndexSuffix;
  files.commandLine =
      formatRecordedCommandLine(localBackendCommandLine(parseRecordedCommandLine(*compile), ltoLevel, indexName));
  readIndex(base.string() + kThinLTOIndexSuffix, files);
  return files;
}

ExtractedModuleFiles readDistributedThinLTOModule(const ObjectEntry &entry) {
  EmbeddedModule embedded = readEmbeddedModule(entry.objectPath);
  if (embedded.status != EmbeddedModule::Status::Ok)
    return unusable("not a ThinLTO backend compile", std::string(embeddedStatusName(embedded.status)) + ": " +
                                                         embedded.detail);
  std::vector<std::string> args = parseRecordedCommandLine(embedded.commandLine);
  const std::string index = valueAfter(args, "-fthinlto-index=");
  if (index.empty()) return unusable("not a ThinLTO backend compile", "its command line has no -fthinlto-index=");
  // The embedding option tells the build what to leave; kept, it would make
  // every compile of the corpus embed bitcode again (and it is not on the
  // allow-list of -mllvm options).
  std::vector<std::string> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-mllvm" && i + 1 < args.size() && args[i + 1].rfind("-lto-embed-bitcode", 0) == 0) {
      ++i;
      continue;
    }
    kept.push_back(args[i]);
  }
  ExtractedModuleFiles files;
  files.bitcode = std::move(embedded.bitcode);
  files.commandLine = formatRecordedCommandLine(kept);
  const fs::path indexPath = fs::path(index).is_absolute() ? fs::path(index) : entry.directory / index;
  readIndex(indexPath, files);
  return files;
}

}  // namespace mlgo
