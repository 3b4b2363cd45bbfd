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
#include "function_segments.h"
#include "score_measure.h"

namespace mlgo::regalloc {

namespace {

constexpr const char *kName = "regalloc-priority";

/// A decision's features as the decision spec lays them out in words
/// (li_size, stage, then weight's 4 bytes in the third word).
void toWords(const PriorityObservation &observation, std::vector<int64_t> &words) {
  std::fill(words.begin(), words.end(), 0);
  words[0] = observation.size;
  words[1] = observation.stage;
  std::memcpy(&words[2], &observation.weight, sizeof observation.weight);
}

/// Takes the default's priority at every decision and records it.
class PriorityTraceRecorder final : public PrioritySteer {
 public:
  explicit PriorityTraceRecorder(trace::ModuleTrace &trace)
      : trace_(trace), words_(priorityDecisionSpec().decisionWords()) {
    trace_.featureCount = words_.size();
    trace_.spec = &priorityDecisionSpec();
  }
  double decide(const PriorityObservation &observation) override {
    toWords(observation, words_);
    // Recorded as LLVM's ML advisor reads its model's answer: a float.
    const auto priority = static_cast<float>(observation.defaultPriority);
    trace_.addContinuousDecision(words_.data(), priority, priority);
    return observation.defaultPriority;
  }

 private:
  trace::ModuleTrace &trace_;
  std::vector<int64_t> words_;
};

/// A trained policy giving every priority.
class PolicySteer final : public PrioritySteer {
 public:
  explicit PolicySteer(std::shared_ptr<const ContinuousPolicy> policy)
      : policy_(std::move(policy)), words_(priorityDecisionSpec().decisionWords()) {}
  double decide(const PriorityObservation &observation) override {
    toWords(observation, words_);
    // As LLVM's release-mode advisor reads an exported model's answer.
    return policy_->floatAnswer(words_.data(), kLargestPriority);
  }

 private:
  std::shared_ptr<const ContinuousPolicy> policy_;
  std::vector<int64_t> words_;
};

/// Lets a DecisionSteer give every priority (it records them itself). Each
/// function's decisions are one reward segment, as for eviction; the answer
/// is clamped to what LLVM's ML advisor can take.
class SteerAdapter final : public PrioritySteer {
 public:
  explicit SteerAdapter(DecisionSteer &steer)
      : steer_(steer), words_(priorityDecisionSpec().decisionWords()), segments_(steer) {}
  double decide(const PriorityObservation &observation) override {
    segments_.enter(observation.function);
    toWords(observation, words_);
    const double value = steer_.decideValue(words_.data(), observation.defaultPriority);
    return std::clamp(value, 0.0, kLargestPriority);
  }

 private:
  DecisionSteer &steer_;
  std::vector<int64_t> words_;
  FunctionSegments segments_;
};

class PriorityProblem final : public Problem {
 public:
  std::string name() const override { return kName; }
  void installProcessWide() const override { installPrioritySeam(); }
  const trace::DecisionSpec &decisionSpec() const override { return priorityDecisionSpec(); }
  std::shared_ptr<PipelineHook> defaultTracingHook(trace::ModuleTrace &trace) const override {
    return std::make_shared<PriorityHook>(std::make_shared<PriorityTraceRecorder>(trace));
  }
  std::shared_ptr<PipelineHook> steeringHook(DecisionSteer &steer) const override {
    return std::make_shared<PriorityHook>(std::make_shared<SteerAdapter>(steer));
  }
  std::map<std::string, double> measures(const PipelineHook &hook) const override {
    return scoreMeasures<PriorityHook>(hook);
  }
  std::vector<std::string> measureNames() const override { return {kScoreMeasure}; }
  std::string configFile(const std::string &learner) const override {
    return learner == "ppo" ? "regalloc/priority-ppo.json" : "";
  }
  std::string segmentName() const override { return "function"; }
  SegmentMeasures segmentMeasures(const PipelineHook &hook) const override {
    return functionScoreMeasures<PriorityHook>(hook);
  }
  std::shared_ptr<PipelineHook> measuringHook() const override { return std::make_shared<PriorityHook>(); }
  HookMaker policyHooks(const std::filesystem::path &directory) const override {
    return continuousPolicyHooks(
        std::make_shared<const ContinuousPolicy>(ContinuousPolicy::load(directory, name(), decisionSpec())));
  }
  HookMaker continuousPolicyHooks(std::shared_ptr<const ContinuousPolicy> policy) const override {
    return [policy] { return std::make_shared<PriorityHook>(std::make_shared<PolicySteer>(policy)); };
  }
  std::unique_ptr<serve::ChannelPolicy> channelPolicy(const std::filesystem::path &directory) const override {
    return makePriorityChannelPolicy(
        std::make_shared<const ContinuousPolicy>(ContinuousPolicy::load(directory, name(), decisionSpec())));
  }
  /// MLRegAllocPriorityAdvisor.cpp's CompiledModelType under
  /// LLVM_HAVE_TF_AOT_REGALLOCPRIORITYMODEL.
  std::optional<ReleaseModeModel> releaseModeModel() const override {
    return ReleaseModeModel{"RegAllocPriorityModel", kPriorityDecisionName, kLargestPriority};
  }
};

}  // namespace

const Problem &priorityProblem() {
  static const PriorityProblem problem;
  return problem;
}

}  // namespace mlgo::regalloc
