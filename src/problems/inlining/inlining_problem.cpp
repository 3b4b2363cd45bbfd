#include "mlgo/problems/inlining/fixed_policies.h"
#include "mlgo/problems/inlining/inlining_hook.h"
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

class InliningProblem final : public Problem {
 public:
  std::string name() const override { return "inlining"; }
  const std::vector<std::string> &featureNames() const override { return inlining::featureNames(); }
  std::shared_ptr<PipelineHook> defaultTracingHook(trace::ModuleTrace &trace) const override {
    return std::make_shared<RecordingHook>(makeFixedPolicy(FixedChoice::Default), trace);
  }
};

}  // namespace

const Problem &inliningProblem() {
  static const InliningProblem problem;
  return problem;
}

}  // namespace mlgo::inlining
