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
struct EvictionTraits {
  using Hook = EvictionHook;
  using Steer = EvictionSteer;
  using Observation = EvictionObservation;
  using Answer = int64_t;
  using Policy = PositionPolicy;
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

class RegallocProblem final : public ScoreProblem<EvictionTraits> {
 public:
  std::string name() const override { return "regalloc"; }
  void installProcessWide() const override { installEvictionSeam(); }
  std::string configFile(const std::string &learner) const override {
    return learner == "ppo" ? "regalloc/ppo.json" : "";
  }
  HookMaker positionPolicyHooks(std::shared_ptr<const PositionPolicy> policy) const override {
    return hooksOf(std::move(policy));
  }
  std::unique_ptr<serve::ChannelPolicy> channelPolicy(const std::filesystem::path &directory) const override {
    return makeChannelPolicy(loadPolicy(directory));
  }
  /// MLRegAllocEvictAdvisor.cpp's CompiledModelType under
  /// LLVM_HAVE_TF_AOT_REGALLOCEVICTMODEL.
  std::optional<ReleaseModeModel> releaseModeModel() const override {
    return ReleaseModeModel{"RegAllocEvictModel", kDecisionName};
  }
};

}  // namespace

const Problem &regallocProblem() {
  static const RegallocProblem problem;
  return problem;
}

}  // namespace mlgo::regalloc
