#pragma once
// Whatever takes the decisions of one compile in a problem's hook: a policy
// sampling for reinforcement learning (ActionSampler), a baseline with some
// decisions flipped for exploration (mlgo/tracing/explore.h). Problem-agnostic:
// it sees a decision's raw features and, when it asks, the default
// heuristic's action, and answers with an action (decide) or, for a problem
// whose decisions are real values, a value (decideValue).
#include <cstdint>
#include <stdexcept>
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
  /// The value for the next decision of a problem whose decisions are real
  /// values, which calls this instead of decide(). `defaultValue` is the
  /// default heuristic's. A steer of choices (explore's) throws
  /// std::logic_error: stages refuse such problems before compiling.
  virtual double decideValue(const int64_t *features, double defaultValue);
  /// The decisions that follow belong to the reward segment `key`, until the
  /// next call: a problem whose measure is computed per part of a compile says
  /// where each part starts (register allocation: per function, by name).
  virtual void beginSegment(std::string_view key) {}
};

inline double DecisionSteer::decideValue(const int64_t *, double) {
  throw std::logic_error("a steer of choices asked for a real value");
}

}  // namespace mlgo
