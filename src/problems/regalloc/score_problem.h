#pragma once
// What the two register-allocation problems (eviction, priority) share: a
// hook of their own driven by one of three steers (a recorder of the
// default's answers, a trained policy, or a DecisionSteer with each function
// one reward segment), LLVM's regalloc score as the measure, and how their
// policies are loaded. A problem gives its Traits (what differs: its hook,
// observations, answers, policy and spec) and its ScoreProblemIdentity
// (name, seam, config, channel, release-mode model).
//
// Traits: Hook, Steer (the hook's steer interface), Observation, Answer,
// Policy; static spec(), toWords(observation, words), record(trace, words,
// observation) -> the default's answer, recorded; policyAnswer(policy,
// words); steerAnswer(steer, words, observation).
#include <filesystem>
#include <memory>
#include <type_traits>
#include <vector>

#include "mlgo/policy/decision_steer.h"
#include "mlgo/problems/problem.h"
#include "function_segments.h"
#include "score_measure.h"

namespace mlgo::regalloc {

/// Takes the default's answer at every decision and records it.
/// The types a score problem's Traits name: its hook, the steer the hook
/// asks, what the steer observes and answers, and its kind of policy.
template <class HookType, class SteerType, class ObservationType, class AnswerType, class PolicyType>
struct ScoreDecisionTypes {
  using Hook = HookType;
  using Steer = SteerType;
  using Observation = ObservationType;
  using Answer = AnswerType;
  using Policy = PolicyType;
};

template <class Traits>
class TraceRecorderOf final : public Traits::Steer {
 public:
  explicit TraceRecorderOf(trace::ModuleTrace &trace) : trace_(trace), words_(Traits::spec().decisionWords()) {
    trace_.featureCount = words_.size();
    trace_.spec = &Traits::spec();
  }
  typename Traits::Answer decide(const typename Traits::Observation &observation) override {
    Traits::toWords(observation, words_);
    return Traits::record(trace_, words_.data(), observation);
  }

 private:
  trace::ModuleTrace &trace_;
  std::vector<int64_t> words_;
};

/// A trained policy answering every decision.
template <class Traits>
class PolicySteerOf final : public Traits::Steer {
 public:
  explicit PolicySteerOf(std::shared_ptr<const typename Traits::Policy> policy)
      : policy_(std::move(policy)), words_(Traits::spec().decisionWords()) {}
  typename Traits::Answer decide(const typename Traits::Observation &observation) override {
    Traits::toWords(observation, words_);
    return Traits::policyAnswer(*policy_, words_.data());
  }

 private:
  std::shared_ptr<const typename Traits::Policy> policy_;
  std::vector<int64_t> words_;
};

/// Lets a DecisionSteer answer every decision (it records them itself); the
/// default's answer comes with every decision at no cost, and each
/// function's decisions are one reward segment (LLVM allocates a function's
/// registers before the next function's).
template <class Traits>
class SteerAdapterOf final : public Traits::Steer {
 public:
  explicit SteerAdapterOf(DecisionSteer &steer)
      : steer_(steer), words_(Traits::spec().decisionWords()), segments_(steer) {}
  typename Traits::Answer decide(const typename Traits::Observation &observation) override {
    segments_.enter(observation.function);
    Traits::toWords(observation, words_);
    return Traits::steerAnswer(steer_, words_.data(), observation);
  }

 private:
  DecisionSteer &steer_;
  std::vector<int64_t> words_;
  FunctionSegments segments_;
};

/// What names a score problem apart from its decisions' Traits.
template <class Policy>
struct ScoreProblemIdentity {
  const char *name;
  const char *ppoConfig;  ///< the shipped PPO config, under configs/
  void (*installSeam)();
  std::unique_ptr<serve::ChannelPolicy> (*channelPolicy)(std::shared_ptr<const Policy>);
  ReleaseModeModel releaseModeModel;
};

template <class Traits>
class ScoreProblem final : public Problem {
 public:
  using Hook = typename Traits::Hook;
  explicit ScoreProblem(ScoreProblemIdentity<typename Traits::Policy> identity) : identity_(std::move(identity)) {}
  std::string name() const override { return identity_.name; }
  void installProcessWide() const override { identity_.installSeam(); }
  std::string configFile(const std::string &learner) const override {
    return learner == "ppo" ? identity_.ppoConfig : "";
  }
  const trace::DecisionSpec &decisionSpec() const override { return Traits::spec(); }
  std::shared_ptr<PipelineHook> defaultTracingHook(trace::ModuleTrace &trace) const override {
    return std::make_shared<Hook>(std::make_shared<TraceRecorderOf<Traits>>(trace));
  }
  std::shared_ptr<PipelineHook> steeringHook(DecisionSteer &steer) const override {
    return std::make_shared<Hook>(std::make_shared<SteerAdapterOf<Traits>>(steer));
  }
  HookMaker policyHooks(const std::filesystem::path &directory) const override {
    return hooksOf(loadPolicy(directory));
  }
  std::map<std::string, double> measures(const PipelineHook &hook) const override {
    return scoreMeasures<Hook>(hook);
  }
  std::vector<std::string> measureNames() const override { return {kScoreMeasure}; }
  std::string segmentName() const override { return "function"; }
  SegmentMeasures segmentMeasures(const PipelineHook &hook) const override {
    return functionScoreMeasures<Hook>(hook);
  }
  std::shared_ptr<PipelineHook> measuringHook() const override { return std::make_shared<Hook>(); }
  std::unique_ptr<serve::ChannelPolicy> channelPolicy(const std::filesystem::path &directory) const override {
    return identity_.channelPolicy(loadPolicy(directory));
  }
  std::optional<ReleaseModeModel> releaseModeModel() const override { return identity_.releaseModeModel; }
  /// Its decision kind's policies steer its compiles; the other kind's are
  /// refused as Problem refuses them.
  HookMaker positionPolicyHooks(std::shared_ptr<const PositionPolicy> policy) const override {
    if constexpr (std::is_same_v<typename Traits::Policy, PositionPolicy>) return hooksOf(std::move(policy));
    else return Problem::positionPolicyHooks(std::move(policy));
  }
  HookMaker continuousPolicyHooks(std::shared_ptr<const ContinuousPolicy> policy) const override {
    if constexpr (std::is_same_v<typename Traits::Policy, ContinuousPolicy>) return hooksOf(std::move(policy));
    else return Problem::continuousPolicyHooks(std::move(policy));
  }

 private:
  ScoreProblemIdentity<typename Traits::Policy> identity_;
  std::shared_ptr<const typename Traits::Policy> loadPolicy(const std::filesystem::path &directory) const {
    return std::make_shared<const typename Traits::Policy>(
        Traits::Policy::load(directory, this->name(), Traits::spec()));
  }
  /// Hooks of a compile each that `policy` steers.
  static HookMaker hooksOf(std::shared_ptr<const typename Traits::Policy> policy) {
    return [policy] { return std::make_shared<Hook>(std::make_shared<PolicySteerOf<Traits>>(policy)); };
  }
};

}  // namespace mlgo::regalloc
