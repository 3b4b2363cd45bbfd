#pragma once
// A hook that times what a compile's passes cost, as the compile-cost model
// (mlgo/driver/optimization_work.h) charges them: each pass invocation's own
// CPU time (its thread's, less the passes nested in it) beside the sizes the
// model charges it by, and the code generation's CPU time beside the
// optimized module's instructions. What `mlgo calibrate-costs` fits the model
// to; measured times differ from run to run, so nothing that must be
// deterministic reads them.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mlgo/driver/pipeline_hook.h"

namespace mlgo {

/// The sums of least squares for t = c * k + a * x + q * y over
/// observations (k: functions charged, x: their instructions, y: the
/// instructions' squares, t: nanoseconds).
struct CostObservations {
  static constexpr int kTerms = 3;
  uint64_t count = 0;
  double nanoseconds = 0;
  /// The most instructions one function had in an observation: the fit
  /// holds up to it.
  uint64_t largestFunction = 0;
  double products[kTerms][kTerms] = {};  ///< sums of feature_i * feature_j
  double withTime[kTerms] = {};          ///< sums of feature_i * t
  void add(double functions, double instructions, double squares, double t, uint64_t largest = 0);
  void merge(const CostObservations &other);
  /// The least-squares (c, a, q), each at least 0: the best fit over the
  /// subsets of the terms whose own fit has no negative term.
  std::array<double, kTerms> fit() const;
};

struct PassTimes {
  std::map<std::string, CostObservations> passes;  ///< by pass class
  /// Code generation: k 1, x the optimized module's instructions, y 0.
  CostObservations codeGeneration;
  uint64_t largestFunction = 0;  ///< the most instructions one function had when a pass ran on it
  void merge(const PassTimes &other);
};

class PassTiming final : public PipelineHook {
 public:
  void beginCompile() override;
  void registerCallbacks(llvm::PassBuilder &builder) override;
  void objectEmitted(std::string_view object) override;
  /// The optimized module's instructions, for the code generation that
  /// followed (CompileResult::irInstructions): objectEmitted cannot see them.
  void recordCodeGeneration(uint64_t optimizedInstructions);
  const PassTimes &times() const { return times_; }

 private:
  struct Running {
    std::string pass;
    double functions = 0, charged = 0, squared = 0;
    uint64_t largest = 0;
    uint64_t startNanoseconds = 0, nestedNanoseconds = 0;
  };
  void finishPass();
  PassTimes times_;
  std::vector<Running> running_;
  uint64_t optimizationEnd_ = 0, codeGenerationNanoseconds_ = 0;
};

}  // namespace mlgo
