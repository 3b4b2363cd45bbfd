#include "mlgo/problems/inlining/fixed_policies.h"
#include "mlgo/problems/inlining/inlining_channel_policy.h"
#include "mlgo/problems/inlining/inlining_hook.h"
#include "mlgo/policy/decision_steer.h"
#include "mlgo/problems/inlining/neural_policy.h"
#include "mlgo/problems/problem.h"

namespace mlgo::inlining {

namespace {

/// Appends every decision of one compile to a ModuleTrace.
class TraceRecorder final : public DecisionObserver {
 public:
  explicit TraceRecorder(trace::ModuleTrace &trace) : trace_(trace) { trace_.featureCount = featureCount(); }
  void onDecision(const DecisionInput &input, bool inlined) override {
    trace_.addDecision(input.features, input.defaultDecision, inlined);
  }

 private:
  trace::ModuleTrace &trace_;
};

/// An InliningHook that owns its recorder.
class RecordingHook final : public PipelineHook {
 public:
  RecordingHook(std::shared_ptr<const Policy> policy, trace::ModuleTrace &trace)
      : recorder_(trace), hook_(std::move(policy), &recorder_) {}
  void beginCompile() override { hook_.beginCompile(); }
  void endCompile() override { hook_.endCompile(); }
  void registerCallbacks(llvm::PassBuilder &builder) override { hook_.registerCallbacks(builder); }

 private:
  TraceRecorder recorder_;
  InliningHook hook_;
};

/// Lets a DecisionSteer take every decision (it records them itself). Its
/// state is per compile, so each compile gets its own instance.
class SteeredPolicy final : public Policy {
 public:
  explicit SteeredPolicy(DecisionSteer &steer) : steer_(steer) {}
  bool needsDefaultDecision() const override { return steer_.wantsDefaultAction(); }
  bool decide(const DecisionInput &input) const override {
    return steer_.decide(input.features, input.defaultDecision) == 1;
  }

 private:
  DecisionSteer &steer_;
};

class InliningProblem final : public Problem {
 public:
  std::string name() const override { return "inlining"; }
  std::string configFile(const std::string &learner) const override {
    if (learner == "bc" || learner == "ppo" || learner == "es") return "inlining/" + learner + ".json";
    return "";
  }
  void installProcessWide() const override { installInliningAdvisor(); }
  std::vector<std::string> processWideBackendFlags() const override { return {advisorSizeFlag()}; }
  const trace::DecisionSpec &decisionSpec() const override {
    static const trace::DecisionSpec spec = trace::DecisionSpec::int64Scalars(inlining::featureNames());
    return spec;
  }
  std::shared_ptr<PipelineHook> defaultTracingHook(trace::ModuleTrace &trace) const override {
    installInliningAdvisor();
    return std::make_shared<RecordingHook>(makeFixedPolicy(FixedChoice::Default), trace);
  }
  std::shared_ptr<PipelineHook> steeringHook(DecisionSteer &steer) const override {
    installInliningAdvisor();
    return std::make_shared<InliningHook>(std::make_shared<SteeredPolicy>(steer));
  }
  HookMaker policyHooks(const std::filesystem::path &directory) const override {
    auto model = std::make_shared<const YesNoPolicy>(YesNoPolicy::load(directory, name(), featureNames()));
    return hooksFor(std::make_shared<const NeuralInliningPolicy>(std::move(model)));
  }
  std::unique_ptr<serve::ChannelPolicy> channelPolicy(const std::filesystem::path &directory) const override {
    auto model = std::make_shared<const YesNoPolicy>(YesNoPolicy::load(directory, name(), featureNames()));
    return makeChannelPolicy(std::make_shared<const NeuralInliningPolicy>(std::move(model)));
  }
  std::optional<ReleaseModeModel> releaseModeModel() const override {
    return ReleaseModeModel{"InlinerSizeModel", inlining::decisionName()};
  }
  std::string defaultHeuristicDescription() const override { return "LLVM default inliner"; }
  /// "hook-default" is LLVM's heuristic answered through mlgo's hook: the
  /// same code as no hook, which eval's test of the hook relies on.
  std::vector<std::string> fixedChoices() const override { return {"hook-default", "never", "always"}; }
  HookMaker fixedChoiceHooks(const std::string &choice) const override {
    const std::optional<FixedChoice> fixed =
        choice == "hook-default" ? std::optional<FixedChoice>(FixedChoice::Default)
        : choice == "default"    ? std::nullopt
                                 : parseFixedChoice(choice);
    if (!fixed) return Problem::fixedChoiceHooks(choice);
    return hooksFor(makeFixedPolicy(*fixed));
  }
};

}  // namespace

const Problem &inliningProblem() {
  static const InliningProblem problem;
  return problem;
}

}  // namespace mlgo::inlining
