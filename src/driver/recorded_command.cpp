#include "recorded_command.h"

#include <algorithm>

#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Driver/Options.h>
#include <llvm/Option/ArgList.h>
#include <llvm/Option/OptTable.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>

#include "mlgo/driver/backend_options.h"
#include "mlgo/driver/llvm_runtime.h"

namespace mlgo {

std::vector<std::string> argumentsForBitcode(const std::vector<std::string> &recorded,
                                             const std::string &bitcodePath, bool thinltoModule) {
  std::vector<std::string> args;
  for (size_t i = 0; i < recorded.size(); ++i) {
    const std::string &arg = recorded[i];
    if (i == 0 && arg == "-cc1") continue;
    if (thinltoModule && arg.rfind("-fthinlto-index=", 0) == 0) continue;
    // clang strips these when it records the command; other tools may not.
    // The others are outputs of clang's frontend (dependency files and
    // diagnostics logs), meaningless for an IR input and never to be written
    // where a corpus says: `clang -cc1` would write them even for -x ir.
    if ((arg == "-o" || arg == "-x" || arg == "-dependency-file" || arg == "-MT" || arg == "-MQ" ||
         arg == "-header-include-file" || arg == "-serialize-diagnostic-file" || arg == "-diagnostic-log-file") &&
        i + 1 < recorded.size()) {
      ++i;
      continue;
    }
    args.push_back(arg);
  }
  args.insert(args.end(), {"-x", "ir", bitcodePath});
  return args;
}

std::vector<std::string> thinltoBackendArguments(const std::string &indexPath) {
  // Without -thinlto-assume-merged clang would import again, reading the
  // other modules the index names, and take a module without a summary (as
  // a post-import module is) for an empty one.
  return {"-fthinlto-index=" + indexPath, "-mllvm", "-thinlto-assume-merged"};
}

namespace {

/// cc1 options that make clang read or write a file other than the module
/// when it compiles IR, or load code. Checked on the raw arguments, before
/// clang parses them: parsing alone already opens some (clang reads the
/// profile of -fprofile-instrument-use-path to learn its kind), and what a
/// refusal says must not depend on whether the file exists.
constexpr const char *kFileOptions[] = {
    "-fprofile-instrument-use-path=", "-fprofile-sample-use=", "-fprofile-remapping-file=",
    "-fmemory-profile-use=", "-fthinlto-index=", "-split-dwarf-output", "-coverage-notes-file=",
    "-coverage-data-file=", "-stack-usage-file", "-fverify-debuginfo-preserve-export=", "-save-temps=",
    "-mlink-bitcode-file", "-mlink-builtin-bitcode", "-opt-record-file", "-stats-file=", "-ftime-trace=",
    "-fprofile-list=", "-ivfsoverlay", "-load", "-plugin", "-add-plugin", "-fpass-plugin=",
    // Read while compiling IR too (clang embeds or applies their contents);
    // eval --check-fidelity's clang-19 -cc1 would open them.
    "-fembed-offload-object=", "-fcuda-include-gpubinary", "-fsanitize-ignorelist=",
    "-fsanitize-system-ignorelist=", "-fsanitize-coverage-allowlist=", "-fsanitize-coverage-ignorelist=",
    "-fxray-always-instrument=", "-fxray-never-instrument=", "-fxray-attr-list=",
};

/// The first argument that names such an option (in any spelling clang
/// accepts: aliases resolve to the option they stand for), or empty.
std::string refusedArgument(const std::vector<std::string> &args) {
  std::vector<const char *> argv;
  for (const std::string &arg : args) argv.push_back(arg.c_str());
  unsigned missingIndex = 0, missingCount = 0;
  const llvm::opt::OptTable &table = clang::driver::getDriverOptTable();
  const llvm::opt::InputArgList parsed = table.ParseArgs(argv, missingIndex, missingCount,
                                                         llvm::opt::Visibility(clang::driver::options::CC1Option));
  for (const llvm::opt::Arg *arg : parsed) {
    const std::string name = arg->getOption().getUnaliasedOption().getPrefixedName().str();
    for (const char *refused : kFileOptions)
      if (name == refused)
        return arg->getAsString(parsed) + " would make the compile read or write a file outside the corpus, or "
                                          "load code";
  }
  return {};
}

/// Options that would make a recorded command line load code or touch files
/// other than the module: the corpus is untrusted data.
std::string refusedOption(const clang::CompilerInvocation &invocation) {
  const clang::FrontendOptions &frontend = invocation.getFrontendOpts();
  const clang::CodeGenOptions &codegen = invocation.getCodeGenOpts();
  if (!frontend.Plugins.empty()) return "-load " + frontend.Plugins.front() + " would load code";
  if (!frontend.AddPluginActions.empty() || !frontend.ActionName.empty() || !frontend.PluginArgs.empty())
    return "-plugin/-add-plugin would run a plugin";
  if (!codegen.PassPlugins.empty()) return "-fpass-plugin=" + codegen.PassPlugins.front() + " would load code";
  for (const std::string &option : frontend.LLVMArgs)
    if (std::string why = refusedBackendOption(option); !why.empty()) return why;
  struct PathOption {
    const std::string &value;
    const char *flag;
  };
  const PathOption paths[] = {
      {codegen.ProfileInstrumentUsePath, "-fprofile-instrument-use-path"},
      {codegen.SampleProfileFile, "-fprofile-sample-use"},
      {codegen.ProfileRemappingFile, "-fprofile-remapping-file"},
      {codegen.MemoryProfileUsePath, "-fmemory-profile-use"},
      {codegen.ThinLTOIndexFile, "-fthinlto-index"},
      {codegen.SplitDwarfOutput, "-split-dwarf-output"},
      {codegen.CoverageNotesFile, "-coverage-notes-file"},
      {codegen.StackUsageOutput, "-stack-usage-file"},
      {codegen.DIBugsReportFilePath, "-fverify-debuginfo-preserve-export"},
      {codegen.SaveTempsFilePrefix, "-save-temps"},
  };
  for (const PathOption &path : paths)
    if (!path.value.empty()) return std::string(path.flag) + " reads or writes a file outside the corpus";
  if (!codegen.LinkBitcodeFiles.empty()) return "-mlink-bitcode-file reads a file outside the corpus";
  // These two are applied through LLVM's process-global options by clang's
  // backend, which in-process compiles cannot give each module separately.
  if (!codegen.DebugPass.empty()) return "-debug-pass is not supported in-process";
  if (!codegen.LimitFloatPrecision.empty()) return "-mlimit-float-precision is not supported in-process";
  return {};
}

}  // namespace

const std::vector<std::string> &RecordedCommand::backendOptions() const {
  return instance_->getFrontendOpts().LLVMArgs;
}

std::unique_ptr<RecordedCommand> RecordedCommand::parse(const std::vector<std::string> &recorded,
                                                        const std::string &bitcodePath, bool thinltoModule,
                                                        std::string &error) {
  // An empty or made-up command line would compile with clang's defaults
  // (another optimization level, another target), which is not what the
  // module's build did: a module without its cc1 command is a failed module.
  if (recorded.empty() || recorded.front() != "-cc1" ||
      std::find(recorded.begin(), recorded.end(), "-triple") == recorded.end()) {
    error = "the recorded command line is not clang's cc1 command (it starts with -cc1 and names the -triple): "
            "the module cannot be compiled as its build did";
    return nullptr;
  }
  std::unique_ptr<RecordedCommand> command(new RecordedCommand());
  command->diagnosticStream_ = std::make_unique<llvm::raw_string_ostream>(command->diagnosticText_);

  std::vector<std::string> args = argumentsForBitcode(recorded, bitcodePath, thinltoModule);
  if (std::string why = refusedArgument(args); !why.empty()) {
    error = "refused recorded command line: " + why;
    return nullptr;
  }
  std::vector<const char *> argv;
  argv.reserve(args.size());
  for (const std::string &arg : args) argv.push_back(arg.c_str());

  auto diagnosticOptions = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  auto *printer = new clang::TextDiagnosticPrinter(*command->diagnosticStream_, diagnosticOptions.get());
  auto diagnostics = llvm::makeIntrusiveRefCnt<clang::DiagnosticsEngine>(
      llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), diagnosticOptions, printer, /*ShouldOwnClient=*/true);

  auto invocation = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, argv, *diagnostics, "clang") ||
      diagnostics->hasErrorOccurred()) {
    command->diagnosticStream_->flush();
    error = "clang rejected the recorded command line: " + command->diagnosticText_;
    return nullptr;
  }
  if (std::string why = refusedOption(*invocation); !why.empty()) {
    error = "refused recorded command line: " + why;
    return nullptr;
  }

  // clang's driver passes -disable-free to cc1, which then leaks its
  // TargetMachine and more on purpose to exit faster. A driver compiling
  // thousands of modules in one process must free them (about 1 MB a compile).
  invocation->getFrontendOpts().DisableFree = false;
  invocation->getCodeGenOpts().DisableFree = false;

  command->instance_ = std::make_unique<clang::CompilerInstance>();
  command->instance_->setInvocation(std::move(invocation));
  command->instance_->setDiagnostics(diagnostics.get());
  if (!command->instance_->createTarget()) {
    command->diagnosticStream_->flush();
    error = "cannot create the target of the recorded command line: " + command->diagnosticText_;
    return nullptr;
  }
  return command;
}

}  // namespace mlgo
