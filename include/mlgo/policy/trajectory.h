#pragma once
// What a stochastic policy did during one compile, for reinforcement
// learning: every decision's raw features, the action it sampled and the
// distribution it sampled from (PPO's "old policy", needed for the importance
// ratio and the KL term): a choice's logits, or a real value's Gaussian.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mlgo/policy/decision_steer.h"
#include "mlgo/policy/sampling_policy.h"

namespace mlgo {

struct Trajectory {
  /// Where a reward segment begins (DecisionSteer::beginSegment): its
  /// decisions run up to the next segment's first, or to the end.
  struct Segment {
    size_t firstDecision = 0;
    std::string key;
    bool operator==(const Segment &other) const { return firstDecision == other.firstDecision && key == other.key; }
  };
  size_t featureCount = 0;
  size_t actionCount = 2;         ///< 0: decisions of a real value
  std::vector<int64_t> features;  ///< decisions x featureCount
  /// Choices: each below actionCount (at most 256).
  std::vector<uint8_t> actions;
  /// Choices: decisions x actionCount; -infinity where the decision's mask
  /// forbids.
  std::vector<float> logits;
  /// Real values: the output each decision sampled, and the mean of the
  /// Gaussian it was sampled from (SamplingPolicy::mean).
  std::vector<float> outputs, means;
  float logStd = 0;  ///< real values: the Gaussian's log standard deviation
  /// In decision order; empty for a problem rewarded per module.
  std::vector<Segment> segments;
  size_t decisions() const { return actionCount ? actions.size() : outputs.size(); }
  void clear();
};

/// The seed of one module's action sampling in one policy iteration. It
/// depends on the run's seed, the iteration and the module's name only, never
/// on which thread (or machine) compiles the module.
uint64_t actionSeed(uint64_t runSeed, uint64_t iteration, std::string_view moduleName);

/// Samples actions from a policy's categorical distribution, or values from
/// its Gaussian, with its own random stream (or, `greedy`, takes the policy's
/// argmax or mean), recording each decision. One sampler per compile: it is
/// not thread-safe, and the decisions of one compile come in a fixed order.
class ActionSampler final : public DecisionSteer {
 public:
  /// Throws std::invalid_argument for a policy of more than 256 actions.
  ActionSampler(const SamplingPolicy &policy, uint64_t seed, Trajectory &trajectory, bool greedy = false);
  /// Samples and records an action for one decision's raw features; -1 (not
  /// recorded) when the decision's mask forbids every action.
  int64_t sample(const int64_t *features);
  int64_t decide(const int64_t *features, int64_t) override { return sample(features); }
  /// Samples and records an output of a continuous decision; the value it
  /// stands for.
  double decideValue(const int64_t *features, double) override;
  void beginSegment(std::string_view key) override;

 private:
  double nextUniform();
  double nextStandardNormal();
  int64_t draw(const float *logits);
  const SamplingPolicy &policy_;
  uint64_t state_;
  bool greedy_;
  Trajectory &trajectory_;
};

/// P(action 1) of two logits, computed stably.
double probabilityOfAction1(const float logits[2]);

}  // namespace mlgo
