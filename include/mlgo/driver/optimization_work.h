#pragma once
// A hook that estimates the CPU time a compile's optimization pipeline
// takes, from what each pass ran on: every pass invocation costs
// c + a * n + q * n^2 nanoseconds, n the IR instructions of its unit (a
// function pass's function, a loop pass's loop; a CGSCC or module pass pays
// for each of its functions alone), with (c, a, q) per pass class in
// src/driver/pass_costs.inc, in the format `mlgo calibrate-costs`
// (mlgo/autotune/cost_calibration.h) writes from the times of the passes
// mlgo's own compiles run (the shipped model 4 came from opt-19 timings and
// has no c: the fitted ones made hit rebuilds slower). c is what a pass
// costs on any function, however small (most of an -Oz pipeline's time on
// small functions); the quadratic term counts passes whose time grows faster
// than the code, such as GVN hoisting on one huge function.
// Unlike seconds, the estimate is the same on every run and machine, so a
// choice that weighs it stays deterministic.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "mlgo/driver/pipeline_hook.h"

namespace mlgo {

/// Names the cost model: stores that weighed work with another one are not
/// this mlgo's (their work figures mean something else).
inline constexpr const char *kCostModelVersion = "4";

class OptimizationWork final : public PipelineHook {
 public:
  void registerCallbacks(llvm::PassBuilder &builder) override;
  /// Its compiles always run (the memo would skip the passes it counts).
  bool affectsOptimization() const override { return true; }
  /// Estimated nanoseconds of optimization.
  uint64_t estimatedNanoseconds() const { return nanoseconds_; }
  /// A bound on the estimate: a pass that would take it past `nanoseconds`
  /// does not run, nor does any optional pass after it (the compile is then
  /// over its bound and its object is not to be used; it ends quickly
  /// instead of, say, spending 37 s in the IR outliner). 0: no bound.
  void stopAbove(uint64_t nanoseconds) { limit_ = nanoseconds; }
  /// Whether a pass was skipped for the bound.
  bool stopped() const { return stopped_; }

 private:
  uint64_t nanoseconds_ = 0;
  uint64_t limit_ = 0;
  bool stopped_ = false;
};

/// The IR instructions of each function defined in a bitcode file, in the
/// module's order: the n each pass invocation is charged by (mlgo ir-counts). InputError naming
/// the file when it is not bitcode.
std::vector<uint64_t> functionInstructionCounts(const std::filesystem::path &bitcode);

/// Estimated nanoseconds of code generation for a module of
/// `instructions` optimized IR instructions.
uint64_t estimatedCodeGenerationNanoseconds(uint64_t instructions);

/// Estimated nanoseconds of clang's frontend for a unit whose source files
/// (the main file and its headers) hold `sourceBytes`: the part of a compile
/// no pass list changes, which C++ units spend most of their time in.
uint64_t estimatedFrontendNanoseconds(uint64_t sourceBytes);

}  // namespace mlgo
