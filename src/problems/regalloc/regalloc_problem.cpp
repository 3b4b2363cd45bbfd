// Register allocation (eviction) as an mlgo problem: LLVM's default advisor's
// decisions traced with LLVM's own features, and LLVM's regalloc score as
// the module's measure.
#include <algorithm>
#include <cstring>

#include "mlgo/policy/decision_steer.h"
#include "mlgo/policy/position_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/problems/regalloc/eviction_channel_policy.h"
#include "mlgo/problems/regalloc/eviction_hook.h"
#include "mlgo/support/errors.h"
#include "eviction_seam.h"
#include "score_problem.h"

namespace mlgo::regalloc {

namespace {

/// Eviction's decisions: positions, answered greedily by a PositionPolicy.
struct EvictionTraits : ScoreDecisionTypes<EvictionHook, EvictionSteer, EvictionObservation, int64_t, PositionPolicy> {
  static const trace::DecisionSpec &spec() { return regalloc::decisionSpec(); }
  /// The features as int64 words, the layout traces and policies read (mlgo/trace/decision_spec.h).
  static void toWords(const EvictionObservation &observation, std::vector<int64_t> &words) {
    std::fill(words.begin(), words.end(), 0);
    std::memcpy(words.data(), observation.featureBytes.data(),
                std::min(observation.featureBytes.size(), words.size() * sizeof(int64_t)));
  }
  static int64_t record(trace::ModuleTrace &trace, const int64_t *words, const EvictionObservation &observation) {
    trace.addDecision(words, observation.defaultPosition, observation.defaultPosition);
    return observation.defaultPosition;
  }
  static int64_t policyAnswer(const PositionPolicy &policy, const int64_t *words) { return policy.decide(words); }
  static int64_t steerAnswer(DecisionSteer &steer, const int64_t *words, const EvictionObservation &observation) {
    return steer.decide(words, observation.defaultPosition);
  }
};

}  // namespace

const Problem &regallocProblem() {
  // The release-mode model: MLRegAllocEvictAdvisor.cpp's CompiledModelType
  // under LLVM_HAVE_TF_AOT_REGALLOCEVICTMODEL.
  static const ScoreProblem<EvictionTraits> problem(
      {"regalloc", "regalloc/ppo.json", installEvictionSeam, makeChannelPolicy, {"RegAllocEvictModel", kDecisionName}});
  return problem;
}

}  // namespace mlgo::regalloc
