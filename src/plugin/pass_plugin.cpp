// mlgo's pass plugin for a stock clang-19, loaded by its loader
// (plugin_loader.cpp) where that is safe:
//   <--policy's variable>=DIR clang-19 -fpass-plugin=$(mlgo cc --print-plugin-path) ...
// compiles with the trained policy in DIR, as `mlgo cc --policy DIR` does: no
// server, no rebuilt LLVM. Debian's clang-19 links libLLVM.so dynamically, so
// this library (linked against the same one) shares LLVM's globals with it.
// The policy comes from the environment because clang-19 loads
// -fpass-plugin libraries after it parsed -mllvm options (a plugin's own
// option would be unknown there).
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>

#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Support/Signals.h>
#include <llvm/Support/raw_ostream.h>

#include "mlgo/driver/pipeline_hook.h"
#include "mlgo/launcher/cc_options.h"
#include "mlgo/policy/policy_directory.h"
#include "mlgo/problems/problem.h"

namespace {

constexpr const char *kPolicyVariable = mlgo::launcher::ccVariable(&mlgo::launcher::CcSettings::policy);

/// Ends the compile with the reason, as clang reports an error (exit code
/// 1), not as a crash: nothing is wrong with clang.
[[noreturn]] void stopCompile(const std::string &reason) {
  llvm::errs() << "error: mlgo pass plugin: " << reason << "\n";
  llvm::errs().flush();
  // Removes the object clang has begun to write, as its own error exits do.
  llvm::sys::RunInterruptHandlers();
  std::_Exit(1);
}

/// A new hook of the policy for each compile, the policy loaded once per
/// process. A compile asked to use a policy never goes on without one.
std::shared_ptr<mlgo::PipelineHook> newPolicyHook() {
  static const std::function<std::shared_ptr<mlgo::PipelineHook>()> hooks = [] {
    const char *directory = std::getenv(kPolicyVariable);
    if (!directory || !*directory)
      stopCompile(std::string("set ") + kPolicyVariable + " to the policy directory to compile with");
    try {
      const mlgo::Problem &problem = mlgo::findProblem(mlgo::policy_directory::problemOf(directory));
      return problem.policyHooks(directory);
    } catch (const std::exception &e) {
      stopCompile(e.what());
    }
  }();
  return hooks();
}

/// clang compiles one module per process; lld's LTO backends compile one
/// module after another on each of their threads, building a pipeline (and
/// so calling this) for each. The hook of the module a thread is compiling
/// lives until that thread's next module.
void registerPolicy(llvm::PassBuilder &builder) {
  thread_local std::shared_ptr<mlgo::PipelineHook> current;
  current = newPolicyHook();
  for (const std::shared_ptr<mlgo::PipelineHook> &processWide : mlgo::processWideHooks())
    processWide->registerCallbacks(builder);
  current->registerCallbacks(builder);
  current->beginCompile();
}

}  // namespace

/// What the loader (plugin_loader.cpp, the library -fpass-plugin names)
/// returns once it knows loading this library cannot abort the process.
extern "C" __attribute__((visibility("default"))) ::llvm::PassPluginLibraryInfo mlgoPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "mlgo", MLGO_VERSION, registerPolicy};
}
