#include "mlgo/problems/regalloc/priority_hook.h"

namespace mlgo::regalloc {

const trace::DecisionSpec &priorityDecisionSpec() {
  // RA_PRIORITY_FEATURES_LIST of LLVM 19's MLRegAllocPriorityAdvisor.cpp:
  // type, name and shape, in its order; its decision is one float.
  using Type = trace::FeatureTensor::Type;
  static const trace::DecisionSpec spec = trace::DecisionSpec::continuousOf({
      {"li_size", Type::Int64, {1}},
      {"stage", Type::Int64, {1}},
      {"weight", Type::Float, {1}},
  });
  return spec;
}

}  // namespace mlgo::regalloc
