#pragma once
// What both register-allocation problems' steering hooks tell their
// DecisionSteer: each function's decisions are one reward segment (LLVM
// allocates a function's registers before the next function's).
#include <string>
#include <string_view>

#include "mlgo/policy/decision_steer.h"

namespace mlgo::regalloc {

class FunctionSegments {
 public:
  explicit FunctionSegments(DecisionSteer &steer) : steer_(steer) {}
  /// Called before each decision: begins a segment where the function changes.
  void enter(std::string_view function) {
    if (inFunction_ && function == function_) return;
    function_.assign(function);
    inFunction_ = true;
    steer_.beginSegment(function_);
  }

 private:
  DecisionSteer &steer_;
  std::string function_;
  bool inFunction_ = false;
};

}  // namespace mlgo::regalloc
