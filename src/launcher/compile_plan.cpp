#include "mlgo/launcher/compile_plan.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Driver/Job.h>
#include <clang/Driver/Tool.h>
#include <clang/Driver/ToolChain.h>
#include <clang/Driver/Types.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>

namespace mlgo::launcher {

namespace fs = std::filesystem;

namespace {

/// The clang whose frontend and LLVM are linked into mlgo: only its
/// compiles can be reproduced in-process.
bool isOwnClang(const fs::path &executable) {
  std::error_code error;
  const fs::path resolved = fs::canonical(executable, error);
  if (error) return false;
  const fs::path own = fs::canonical(MLGO_LLVM_BINARY_DIR, error);
  if (error) return false;
  const std::string name = resolved.filename().string();
  return resolved.parent_path() == own && (name == "clang" || name == "clang++" || name.rfind("clang-", 0) == 0);
}

/// Options that make a compile print, list or trace instead of (only)
/// compiling: the real compiler answers them.
bool asksTheDriverItself(const std::string &arg) {
  static const char *const kOptions[] = {"-###", "-v", "--version", "-help", "--help", "-print-", "--print-",
                                         "-dumpversion", "-dumpmachine", "-save-temps", "-ftime-trace",
                                         "-fembed-bitcode", "-fsyntax-only", "-flto", "-emit-llvm"};
  for (const char *option : kOptions) {
    const size_t length = std::strlen(option);
    const bool prefix = option[length - 1] == '-';
    if (prefix ? arg.rfind(option, 0) == 0 : (arg == option || arg.rfind(std::string(option) + "=", 0) == 0))
      return true;
  }
  return false;
}

bool isCompilableSource(clang::driver::types::ID type) {
  using namespace clang::driver::types;
  return type == TY_C || type == TY_CXX || type == TY_PP_C || type == TY_PP_CXX;
}

CompilePlan plain(CompilePlan plan, std::string reason) {
  plan.plainReason = std::move(reason);
  return plan;
}

}  // namespace

fs::path findCompiler(const std::string &compiler) {
  if (compiler.find('/') != std::string::npos) return fs::exists(compiler) ? fs::path(compiler) : fs::path();
  llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(compiler);
  return found ? fs::path(*found) : fs::path();
}

CompilePlan planCompile(const std::string &compiler, const std::vector<std::string> &args) {
  CompilePlan plan;
  plan.compiler = findCompiler(compiler);
  if (plan.compiler.empty()) return plain(plan, "no compiler " + compiler);
  if (!isOwnClang(plan.compiler)) return plain(plan, "not clang-19");
  for (const std::string &arg : args)
    if (asksTheDriverItself(arg)) return plain(plan, "asks for " + arg);

  // As clang's main() does: the real executable's path, for its resource
  // directory and installation; the name as invoked, for C or C++ mode.
  std::error_code ignored;
  const std::string executable = fs::canonical(plan.compiler, ignored).string();
  // And as its main() does, the mode and target a name like clang++ or
  // x86_64-linux-gnu-clang implies, as arguments before the user's.
  const clang::driver::ParsedClangName named = clang::driver::ToolChain::getTargetAndModeFromProgramName(compiler);
  const std::string target = "--target=" + named.TargetPrefix;
  std::vector<const char *> argv{compiler.c_str()};
  if (named.TargetIsValid) argv.push_back(target.c_str());
  if (named.DriverMode) argv.push_back(named.DriverMode);
  for (const std::string &arg : args) argv.push_back(arg.c_str());
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> options(new clang::DiagnosticOptions());
  clang::DiagnosticsEngine diagnostics(new clang::DiagnosticIDs(), options.get(),
                                       new clang::IgnoringDiagConsumer(), /*ShouldOwnClient=*/true);
  clang::driver::Driver driver(executable, llvm::sys::getDefaultTargetTriple(), diagnostics);
  driver.setTargetAndMode(named);
  driver.setCheckInputsExist(false);
  std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
  if (!compilation || compilation->containsError() || diagnostics.hasErrorOccurred())
    return plain(plan, "the driver reports an error");
  const clang::driver::JobList &jobs = compilation->getJobs();
  if (jobs.size() != 1) return plain(plan, jobs.empty() ? "runs nothing" : "runs several jobs");
  const clang::driver::Command &job = *jobs.begin();
  if (std::strcmp(job.getCreator().getName(), "clang") != 0) return plain(plan, "runs " +
                                                                                std::string(job.getCreator().getName()));
  const llvm::opt::ArgStringList &jobArgs = job.getArguments();
  if (jobArgs.empty() || std::strcmp(jobArgs[0], "-cc1") != 0) return plain(plan, "not a frontend job");
  if (std::none_of(jobArgs.begin(), jobArgs.end(), [](const char *arg) { return std::strcmp(arg, "-emit-obj") == 0; }))
    return plain(plan, "does not write an object");
  if (job.getInputInfos().size() != 1 || !job.getInputInfos()[0].isFilename() ||
      !isCompilableSource(job.getInputInfos()[0].getType()))
    return plain(plan, "not one C or C++ source");
  if (job.getOutputFilenames().size() != 1) return plain(plan, "not one object");
  plan.cc1.assign(jobArgs.begin(), jobArgs.end());
  plan.source = job.getInputInfos()[0].getFilename();
  plan.object = job.getOutputFilenames()[0];
  if (plan.source == "-" || plan.object == "-") return plain(plan, "reads or writes a standard stream");
  return plan;
}

}  // namespace mlgo::launcher
