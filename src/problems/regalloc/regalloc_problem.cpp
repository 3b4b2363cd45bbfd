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
#include "function_segments.h"
#include "score_measure.h"

namespace mlgo::regalloc {

namespace {

/// The features of one decision as int64 words, the layout traces and
/// policies read (mlgo/trace/decision_spec.h).
void copyToWords(const EvictionObservation &observation, std::vector<int64_t> &words) {
  std::fill(words.begin(), words.end(), 0);
  std::memcpy(words.data(), observation.featureBytes.data(),
              std::min(observation.featureBytes.size(), words.size() * sizeof(int64_t)));
}

/// Takes the default's position at every decision and records it.
class TraceRecorder final : public EvictionSteer {
 public:
  explicit TraceRecorder(trace::ModuleTrace &trace) : trace_(trace), words_(decisionSpec().decisionWords()) {
    trace_.featureCount = words_.size();
    trace_.spec = &decisionSpec();
  }
  int64_t decide(const EvictionObservation &observation) override {
    copyToWords(observation, words_);
    trace_.addDecision(words_.data(), observation.defaultPosition, observation.defaultPosition);
    return observation.defaultPosition;
  }

 private:
  trace::ModuleTrace &trace_;
  std::vector<int64_t> words_;
};

/// A trained policy taking every decision, greedily.
class PolicySteer final : public EvictionSteer {
 public:
  explicit PolicySteer(std::shared_ptr<const PositionPolicy> policy)
      : policy_(std::move(policy)), words_(decisionSpec().decisionWords()) {}
  int64_t decide(const EvictionObservation &observation) override {
    copyToWords(observation, words_);
    return policy_->decide(words_.data());
  }

 private:
  std::shared_ptr<const PositionPolicy> policy_;
  std::vector<int64_t> words_;
};

/// Lets a DecisionSteer take every decision (it records them itself); the
/// default's position comes with every decision at no cost, and each
/// function's decisions are one reward segment (LLVM allocates a function's
/// registers before the next function's).
class SteerAdapter final : public EvictionSteer {
 public:
  explicit SteerAdapter(DecisionSteer &steer)
      : steer_(steer), words_(decisionSpec().decisionWords()), segments_(steer) {}
  int64_t decide(const EvictionObservation &observation) override {
    segments_.enter(observation.function);
    copyToWords(observation, words_);
    return steer_.decide(words_.data(), observation.defaultPosition);
  }

 private:
  DecisionSteer &steer_;
  std::vector<int64_t> words_;
  FunctionSegments segments_;
};

class RegallocProblem final : public Problem {
 public:
  std::string name() const override { return "regalloc"; }
  void installProcessWide() const override { installEvictionSeam(); }
  const trace::DecisionSpec &decisionSpec() const override { return regalloc::decisionSpec(); }
  std::shared_ptr<PipelineHook> defaultTracingHook(trace::ModuleTrace &trace) const override {
    return std::make_shared<EvictionHook>(std::make_shared<TraceRecorder>(trace));
  }
  std::shared_ptr<PipelineHook> steeringHook(DecisionSteer &steer) const override {
    return std::make_shared<EvictionHook>(std::make_shared<SteerAdapter>(steer));
  }
  std::map<std::string, double> measures(const PipelineHook &hook) const override {
    return scoreMeasures<EvictionHook>(hook);
  }
  std::vector<std::string> measureNames() const override { return {kScoreMeasure}; }
  std::string configFile(const std::string &learner) const override {
    return learner == "ppo" ? "regalloc/ppo.json" : "";
  }
  std::string segmentName() const override { return "function"; }
  SegmentMeasures segmentMeasures(const PipelineHook &hook) const override {
    return functionScoreMeasures<EvictionHook>(hook);
  }
  std::shared_ptr<PipelineHook> measuringHook() const override { return std::make_shared<EvictionHook>(); }
  HookMaker policyHooks(const std::filesystem::path &directory) const override {
    return positionPolicyHooks(
        std::make_shared<const PositionPolicy>(PositionPolicy::load(directory, name(), decisionSpec())));
  }
  HookMaker positionPolicyHooks(std::shared_ptr<const PositionPolicy> policy) const override {
    return [policy] { return std::make_shared<EvictionHook>(std::make_shared<PolicySteer>(policy)); };
  }
  std::unique_ptr<serve::ChannelPolicy> channelPolicy(const std::filesystem::path &directory) const override {
    return makeChannelPolicy(
        std::make_shared<const PositionPolicy>(PositionPolicy::load(directory, name(), decisionSpec())));
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
