#pragma once
// The seam between the compiler driver and an optimization problem: a hook
// sees every PassBuilder the driver creates for a compile and can register
// analyses and callbacks (the inlining problem installs its advisor here).
#include <memory>
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
};

using PipelineHooks = std::vector<std::shared_ptr<PipelineHook>>;

/// Hooks every compile of the process runs with, whatever the request says.
/// Needed where LLVM keeps process-global state: once one module analysis
/// manager has the plugin inline advisor, all of them must.
void registerProcessWideHook(std::shared_ptr<PipelineHook> hook);
const PipelineHooks &processWideHooks();

}  // namespace mlgo
