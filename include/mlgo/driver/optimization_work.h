#pragma once
// A hook that measures how much work a compile's optimization pipeline did:
// the IR instructions of every unit each pass ran on (a function pass on a
// function counts that function's instructions; a module pass the module's;
// a CGSCC pass its functions'; a loop pass its loop's; the IR outliner, whose
// time grows much faster than the module, 100 times its module's). Unlike seconds, the
// count is the same on every run and machine, so a choice that weighs it
// stays deterministic; it grows with the pipeline's length and the code it
// works on, as optimization time does.
#include <cstdint>

#include "mlgo/driver/pipeline_hook.h"

namespace mlgo {

class OptimizationWork final : public PipelineHook {
 public:
  void registerCallbacks(llvm::PassBuilder &builder) override;
  /// Its compiles always run (the memo would skip the passes it counts).
  bool affectsOptimization() const override { return true; }
  uint64_t instructionsVisited() const { return visited_; }

 private:
  uint64_t visited_ = 0;
};

}  // namespace mlgo
