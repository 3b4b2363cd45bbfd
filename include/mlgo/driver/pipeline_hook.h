#pragma once
// The seam between the compiler driver and an optimization problem: a hook
// sees every PassBuilder the driver creates for a compile and can register
// analyses and callbacks (the inlining problem installs its advisor here).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class PassBuilder;
}

namespace mlgo {

class PipelineHook {
 public:
  virtual ~PipelineHook() = default;
  /// Called on the compiling thread before the module is optimized and after
  /// it was (also after a contained failure), so a hook can keep per-compile
  /// state in thread-local storage.
  virtual void beginCompile() {}
  virtual void endCompile() {}
  /// Called for each PassBuilder of the compile, before analyses are
  /// registered.
  virtual void registerCallbacks(llvm::PassBuilder &builder) {}
  /// What determines this hook's effect on the compile, for the compile memo
  /// (mlgo/driver/compile_memo.h): equal keys must mean equal decisions.
  /// Empty (the default) when the hook cannot be keyed (a sampling policy)
  /// or must see every compile (a trace): requests with it are always run.
  virtual std::string memoKey() const { return {}; }
  /// True for hooks that change code generation (not only the optimized
  /// IR): their compiles never take code generation from the memo.
  virtual bool affectsCodeGeneration() const { return false; }
  /// False for hooks that leave the optimization pipeline alone (register
  /// allocation's act in code generation only): compiles whose hooks all say
  /// so may take the optimized IR from the memo and only generate code.
  virtual bool affectsOptimization() const { return true; }
  /// Called with the object code of a compile that generated code (not for
  /// results from the memo): to compare or keep it.
  virtual void objectEmitted(std::string_view object) {}
  /// Decisions this hook has taken so far (the driver reports each compile's
  /// share in CompileResult::decisions, also for memoized results).
  virtual uint64_t decisionsTaken() const { return 0; }
};

using PipelineHooks = std::vector<std::shared_ptr<PipelineHook>>;

/// Hooks every compile of the process runs with, whatever the request says.
/// Needed where LLVM keeps process-global state: once one module analysis
/// manager has the plugin inline advisor, all of them must.
void registerProcessWideHook(std::shared_ptr<PipelineHook> hook);
const PipelineHooks &processWideHooks();

}  // namespace mlgo
