#include "mlgo/launcher/compile_plan.h"

#include <algorithm>
#include <cctype>
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
#include <clang/Frontend/CompilerInvocation.h>
#include <llvm/Support/Allocator.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Error.h>
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

/// Options that make the command print or list instead of compiling: the
/// real compiler answers them, and nothing of mlgo's applies.
bool asksTheDriverItself(const std::string &arg) {
  static const char *const kOptions[] = {"-###", "-v", "--version", "-help", "--help", "-print-", "--print-",
                                         "-dumpversion", "-dumpmachine"};
  for (const char *option : kOptions) {
    const size_t length = std::strlen(option);
    const bool prefix = option[length - 1] == '-';
    if (prefix ? arg.rfind(option, 0) == 0 : arg == option) return true;
  }
  return false;
}

/// Options whose side outputs or output kinds mlgo's in-process compile does
/// not reproduce: such a compile is the real compiler's.
std::string unreproducedOption(const std::vector<std::string> &args) {
  static const char *const kOptions[] = {"-save-temps", "-ftime-trace", "-fembed-bitcode", "-fembed-bitcode-marker",
                                         "-emit-llvm"};
  for (const std::string &arg : args)
    for (const char *option : kOptions)
      if (arg == option || arg.rfind(std::string(option) + "=", 0) == 0) return arg;
  return "";
}

bool isCompilableSource(clang::driver::types::ID type) {
  using namespace clang::driver::types;
  return type == TY_C || type == TY_CXX || type == TY_PP_C || type == TY_PP_CXX;
}

bool hasArgument(const llvm::opt::ArgStringList &args, const char *wanted) {
  return std::any_of(args.begin(), args.end(), [&](const char *arg) { return std::strcmp(arg, wanted) == 0; });
}

/// A frontend job that turns source into code (an object, bitcode or
/// assembly), not one that preprocesses or only checks it.
bool compilesSource(const clang::driver::Command &job) {
  const llvm::opt::ArgStringList &args = job.getArguments();
  if (std::strcmp(job.getCreator().getName(), "clang") != 0 || args.empty() || std::strcmp(args[0], "-cc1") != 0)
    return false;
  return hasArgument(args, "-emit-obj") || hasArgument(args, "-emit-llvm-bc") || hasArgument(args, "-emit-llvm") ||
         hasArgument(args, "-S");
}

/// The level of the last -O flag of a frontend job (cc1 spells -Os and -Oz
/// as such): 0 for -O0 or none, clang's default.
unsigned optimizationLevelOf(const std::vector<std::string> &cc1) {
  for (auto arg = cc1.rbegin(); arg != cc1.rend(); ++arg) {
    if (arg->rfind("-O", 0) != 0) continue;
    const std::string level = arg->substr(2);
    if (level == "0") return 0;
    if (level == "fast") return 3;
    if (level.empty() || level == "g") return 1;
    if (level == "s" || level == "z") return 2;
    return std::isdigit(static_cast<unsigned char>(level[0])) ? unsigned(level[0] - '0') : 2;
  }
  return 0;
}

CompilePlan plain(CompilePlan plan, CommandKind kind, std::string reason) {
  plan.kind = kind;
  plan.plainReason = std::move(reason);
  return plan;
}

/// The plan of a command that compiles one or more sources, given the
/// frontend jobs among `jobs`.
CompilePlan planSourceCompile(CompilePlan plan, const clang::driver::Driver &driver,
                              const clang::driver::JobList &jobs,
                              const std::vector<const clang::driver::Command *> &frontends,
                              const std::vector<std::string> &args) {
  const clang::driver::Command &first = *frontends.front();
  plan.cc1.assign(first.getArguments().begin(), first.getArguments().end());
  plan.optimizationLevel = optimizationLevelOf(plan.cc1);
  if (!first.getInputInfos().empty() && first.getInputInfos()[0].isFilename())
    plan.source = first.getInputInfos()[0].getFilename();
  if (first.getOutputFilenames().size() == 1) plan.object = first.getOutputFilenames()[0];
  if (driver.isUsingLTO()) return plain(plan, CommandKind::LtoCompile, "an LTO compile (optimized at link time)");
  // Before counting jobs: -save-temps splits one compile into several.
  if (const std::string option = unreproducedOption(args); !option.empty())
    return plain(plan, CommandKind::Unapplied, "asks for " + option);
  if (frontends.size() > 1) return plain(plan, CommandKind::Unapplied, "compiles several sources in one command");
  if (plan.links) return plain(plan, CommandKind::Unapplied, "compiles and links in one command");
  if (jobs.size() != 1) return plain(plan, CommandKind::Unapplied, "runs several jobs");
  if (!hasArgument(first.getArguments(), "-emit-obj"))
    return plain(plan, CommandKind::Unapplied, "does not write an object");
  if (first.getInputInfos().size() != 1 || !first.getInputInfos()[0].isFilename() ||
      !isCompilableSource(first.getInputInfos()[0].getType()))
    return plain(plan, CommandKind::Unapplied, "not one C or C++ source");
  if (first.getOutputFilenames().size() != 1) return plain(plan, CommandKind::Unapplied, "not one object");
  if (plan.source == "-" || plan.object == "-")
    return plain(plan, CommandKind::Unapplied, "reads or writes a standard stream");
  plan.kind = CommandKind::Compile;
  return plan;
}

}  // namespace

fs::path findCompiler(const std::string &compiler) {
  if (compiler.find('/') != std::string::npos) return fs::exists(compiler) ? fs::path(compiler) : fs::path();
  llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(compiler);
  return found ? fs::path(*found) : fs::path();
}

std::vector<std::string> expandResponseFiles(const std::vector<std::string> &args, std::string &error) {
  llvm::BumpPtrAllocator allocator;
  llvm::SmallVector<const char *, 64> argv;
  for (const std::string &arg : args) argv.push_back(arg.c_str());
  llvm::cl::ExpansionContext expansion(allocator, llvm::cl::TokenizeGNUCommandLine);
  if (llvm::Error failed = expansion.expandResponseFiles(argv)) {
    error = llvm::toString(std::move(failed));
    return {};
  }
  return std::vector<std::string>(argv.begin(), argv.end());
}

CompilePlan planCompile(const std::string &compiler, const std::vector<std::string> &givenArgs) {
  CompilePlan plan;
  plan.compiler = findCompiler(compiler);
  if (plan.compiler.empty()) return plain(plan, CommandKind::Other, "no compiler " + compiler);
  if (!isOwnClang(plan.compiler)) return plain(plan, CommandKind::Other, "not clang-19");
  std::string unreadable;
  const std::vector<std::string> args = expandResponseFiles(givenArgs, unreadable);
  if (!unreadable.empty()) return plain(plan, CommandKind::Other, "a response file: " + unreadable);
  for (const std::string &arg : args)
    if (asksTheDriverItself(arg)) return plain(plan, CommandKind::Other, "asks for " + arg);

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
  // As clang's main() does: the diagnostic options of the command itself, so
  // that the job gets what they imply (-fdiagnostics-color=always becomes
  // the frontend's -fcolor-diagnostics).
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> options(clang::CreateAndPopulateDiagOpts(argv).release());
  clang::DiagnosticsEngine diagnostics(new clang::DiagnosticIDs(), options.get(),
                                       new clang::IgnoringDiagConsumer(), /*ShouldOwnClient=*/true);
  clang::driver::Driver driver(executable, llvm::sys::getDefaultTargetTriple(), diagnostics);
  driver.setTargetAndMode(named);
  driver.setCheckInputsExist(false);
  std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
  if (!compilation || compilation->containsError() || diagnostics.hasErrorOccurred())
    return plain(plan, CommandKind::Other, "the driver reports an error");
  const clang::driver::JobList &jobs = compilation->getJobs();
  std::vector<const clang::driver::Command *> frontends;
  for (const clang::driver::Command &job : jobs) {
    if (compilesSource(job)) frontends.push_back(&job);
    if (job.getCreator().isLinkJob()) {
      plan.links = true;
      plan.linksWithLld = fs::path(job.getExecutable()).filename().string().find("lld") != std::string::npos;
      if (!job.getOutputFilenames().empty()) plan.linkOutput = job.getOutputFilenames().front();
    }
  }
  if (!frontends.empty()) return planSourceCompile(plan, driver, jobs, frontends, args);
  if (plan.links && driver.isUsingLTO()) return plain(plan, CommandKind::LtoLink, "an LTO link");
  return plain(plan, CommandKind::Other, jobs.empty() ? "runs nothing" : "compiles no C or C++ source");
}

}  // namespace mlgo::launcher
