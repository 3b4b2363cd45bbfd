// Register-allocation priority as an mlgo problem: LLVM's default priorities
// traced with LLVM's own three features, a continuous decision, and LLVM's
// regalloc score as the module's measure (ml-compiler-opt's
// compiler_opt/rl/regalloc_priority).
#include <algorithm>
#include <cstring>

#include "mlgo/policy/decision_steer.h"
#include "mlgo/policy/continuous_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/problems/regalloc/priority_hook.h"
#include "priority_channel_policy.h"
#include "score_problem.h"

namespace mlgo::regalloc {

namespace {

/// Priority's decisions: a real value, answered by a ContinuousPolicy.
struct PriorityTraits
    : ScoreDecisionTypes<PriorityHook, PrioritySteer, PriorityObservation, double, ContinuousPolicy> {
  static const trace::DecisionSpec &spec() { return priorityDecisionSpec(); }
  /// The features as the decision spec lays them out in words (li_size,
  /// stage, then weight's 4 bytes in the third word).
  static void toWords(const PriorityObservation &observation, std::vector<int64_t> &words) {
    std::fill(words.begin(), words.end(), 0);
    words[0] = observation.size;
    words[1] = observation.stage;
    std::memcpy(&words[2], &observation.weight, sizeof observation.weight);
  }
  static double record(trace::ModuleTrace &trace, const int64_t *words, const PriorityObservation &observation) {
    // Recorded as LLVM's ML advisor reads its model's answer: a float.
    const auto priority = static_cast<float>(observation.defaultPriority);
    trace.addContinuousDecision(words, priority, priority);
    return observation.defaultPriority;
  }
  /// As LLVM's release-mode advisor reads an exported model's answer.
  static double policyAnswer(const ContinuousPolicy &policy, const int64_t *words) {
    return policy.floatAnswer(words, kLargestPriority);
  }
  /// Clamped to what LLVM's ML advisor can take.
  static double steerAnswer(DecisionSteer &steer, const int64_t *words, const PriorityObservation &observation) {
    return std::clamp(steer.decideValue(words, observation.defaultPriority), 0.0, kLargestPriority);
  }
};

}  // namespace

const Problem &priorityProblem() {
  static const ScoreProblem<PriorityTraits> problem({"regalloc-priority", "regalloc/priority-ppo.json",
                                                     installPrioritySeam, makePriorityChannelPolicy,
                                                     // MLRegAllocPriorityAdvisor.cpp's CompiledModelType
                                                     // under LLVM_HAVE_TF_AOT_REGALLOCPRIORITYMODEL.
                                                     {"RegAllocPriorityModel", kPriorityDecisionName, kLargestPriority}});
  return problem;
}

}  // namespace mlgo::regalloc
