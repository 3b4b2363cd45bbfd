#pragma once
// Whatever takes the decisions of one compile in a problem's hook: a policy
// sampling for reinforcement learning (ActionSampler), a baseline with some
// decisions flipped for exploration (mlgo/tracing/explore.h). Problem-agnostic:
// it sees a decision's raw features and, when it asks, the default
// heuristic's action, and answers with an action.
#include <cstdint>
#include <string_view>

namespace mlgo {

class DecisionSteer {
 public:
  virtual ~DecisionSteer() = default;
  /// True when decide() needs the default heuristic's action, which can cost
  /// the problem extra work per decision (inlining: a second cost analysis).
  virtual bool wantsDefaultAction() const { return false; }
  /// The action for the next decision of the compile (decisions come in a
  /// fixed order, one compile per steer): 0 or 1 for a yes/no decision, a
  /// position for a choice among positions. `defaultAction` is the default
  /// heuristic's when asked for (always, where the problem has it for free),
  /// -1 otherwise.
  virtual int64_t decide(const int64_t *features, int64_t defaultAction) = 0;
  /// The decisions that follow belong to the reward segment `key`, until the
  /// next call: a problem whose measure is computed per part of a compile says
  /// where each part starts (register allocation: per function, by name).
  virtual void beginSegment(std::string_view key) {}
};

}  // namespace mlgo
