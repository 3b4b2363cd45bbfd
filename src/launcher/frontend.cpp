#include "mlgo/launcher/frontend.h"

#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "mlgo/driver/llvm_runtime.h"
#include "mlgo/driver/name_counter.h"

namespace mlgo::launcher {

namespace {

/// -fembed-bitcode=all makes clang record the command line as extract-ir
/// reads it (CodeGenOptions::CmdArgs: no input, output, -x or warning flags);
/// the flag mlgo added (the last) is then dropped from what was recorded. Each argument
/// ends in '\0', as in the object's .llvmcmd section.
constexpr const char *kEmbedAll = "-fembed-bitcode=all";

std::string embeddedCommandLine(const std::vector<uint8_t> &recorded) {
  // The frontend was given the arguments after "-cc1", clang's cc1_main all of them.
  std::string text = std::string("-cc1") + '\0' + std::string(recorded.begin(), recorded.end());
  const std::string flag = std::string(kEmbedAll) + '\0';
  if (const size_t at = text.rfind(flag); at != std::string::npos && (at == 0 || text[at - 1] == '\0'))
    text.erase(at, flag.size());
  return text;
}

}  // namespace

FrontendResult runFrontend(const std::vector<std::string> &cc1, bool recordCommandLine, const PathRoots *roots) {
  initializeLLVMTargets();
  FrontendResult result;
  llvm::raw_string_ostream diagnosticStream(result.diagnostics);
  std::vector<const char *> argv;
  for (size_t i = 1; i < cc1.size(); ++i) argv.push_back(cc1[i].c_str());
  if (recordCommandLine) argv.push_back(kEmbedAll);

  auto diagnosticOptions = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  auto *printer = new clang::TextDiagnosticPrinter(diagnosticStream, diagnosticOptions.get());
  auto diagnostics = llvm::makeIntrusiveRefCnt<clang::DiagnosticsEngine>(
      llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), diagnosticOptions, printer, /*ShouldOwnClient=*/true);
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, argv, *diagnostics, "clang") ||
      diagnostics->hasErrorOccurred()) {
    diagnosticStream.flush();
    return result;
  }
  if (recordCommandLine) {
    result.commandLine = embeddedCommandLine(invocation->getCodeGenOpts().CmdArgs);
    invocation->getCodeGenOpts().setEmbedBitcode(clang::CodeGenOptions::Embed_Off);
    invocation->getCodeGenOpts().CmdArgs.clear();
  }
  // The module before LLVM's pipeline: the optimization is mlgo's to run.
  invocation->getCodeGenOpts().DisableLLVMPasses = true;
  invocation->getFrontendOpts().DisableFree = false;
  invocation->getCodeGenOpts().DisableFree = false;

  clang::CompilerInstance instance;
  instance.setInvocation(std::move(invocation));
  // -fcolor-diagnostics: the colours clang prints, into the text (set before
  // the printer is made).
  diagnosticStream.enable_colors(instance.getDiagnosticOpts().ShowColors);
  // As cc1 does: diagnostics configured by the command's own options (-W,
  // -w, system headers' warnings suppressed, caret and column display).
  instance.createDiagnostics(new clang::TextDiagnosticPrinter(diagnosticStream, &instance.getDiagnosticOpts()),
                             /*ShouldOwnClient=*/true);
  // "N warnings generated." goes with the diagnostics, in clang's order.
  instance.setVerboseOutputStream(diagnosticStream);
  llvm::LLVMContext context;
  clang::EmitLLVMOnlyAction action(&context);
  const bool ran = instance.ExecuteAction(action);
  std::unique_ptr<llvm::Module> module = ran ? action.takeModule() : nullptr;
  diagnosticStream.flush();
  if (!module || instance.getDiagnostics().hasErrorOccurred()) return result;
  if (instance.hasSourceManager()) {
    const clang::SourceManager &sources = instance.getSourceManager();
    for (auto file = sources.fileinfo_begin(); file != sources.fileinfo_end(); ++file)
      result.sourceBytes += uint64_t(file->getFirst().getSize());
  }
  llvm::raw_string_ostream bitcode(result.bitcode);
  // As clang embeds it (llvm::embedBitcodeInModule), use-list order kept.
  llvm::WriteBitcodeToFile(*module, bitcode, /*ShouldPreserveUseListOrder=*/true);
  bitcode.flush();
  result.nameCounter = nameCounterOf(*module);  // after writing: probing moves it on
  if (roots) result.portableHash = portableModuleHash(*module, *roots);  // last: it changes the module
  result.ok = true;
  return result;
}

}  // namespace mlgo::launcher
