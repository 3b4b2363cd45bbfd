#pragma once
// The inlining problem's decision interface. The inliner asks a policy about
// every call site LLVM's MLInlineAdvisor would ask its model about, with
// LLVM's own MLGO feature set (llvm/Analysis/InlineModelFeatureMaps.h, same
// names and order) and, when the policy wants it, the default heuristic's
// decision.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mlgo::inlining {

/// LLVM's FeatureMap names, in LLVM's order.
const std::vector<std::string> &featureNames();
size_t featureCount();
/// The name LLVM gives the decision ("inlining_decision") and the default
/// heuristic's decision ("inlining_default").
const char *decisionName();
const char *defaultDecisionName();

struct DecisionInput {
  const int64_t *features = nullptr;  ///< featureCount() values
  /// 1 when LLVM's default heuristic would inline, 0 when not; -1 when the
  /// policy did not ask for it (computing it costs a second inline-cost
  /// analysis per call site).
  int64_t defaultDecision = -1;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual bool needsDefaultDecision() const { return false; }
  /// True to inline. Called concurrently from compile threads: must be
  /// thread-safe (per-compile state belongs in the observer).
  virtual bool decide(const DecisionInput &input) const = 0;
  /// Equal keys mean equal decisions on equal inputs: lets the compile memo
  /// reuse results. Empty (the default) for policies that must run, such as
  /// sampling ones.
  virtual std::string memoKey() const { return {}; }
};

/// Sees every decision of one compile, in order (traces, training).
class DecisionObserver {
 public:
  virtual ~DecisionObserver() = default;
  virtual void onDecision(const DecisionInput &input, bool inlined) = 0;
};

}  // namespace mlgo::inlining
