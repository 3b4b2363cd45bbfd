#pragma once
// A trained policy as reinforcement learning samples from it: logits over a
// decision's actions from its raw feature words, whatever the policy's kind
// (PolicyModel's two actions, PositionPolicy's positions). Collection,
// trajectories and the ranks of an MPI run see only this.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace mlgo {

class PolicyModel;
class PositionPolicy;

class SamplingPolicy {
 public:
  virtual ~SamplingPolicy() = default;
  /// Raw int64 words of one decision's features.
  virtual size_t featureWords() const = 0;
  /// Actions of one decision (2 for yes/no; the positions otherwise).
  virtual size_t actionCount() const = 0;
  /// The logits of every action; -infinity for an action the decision's mask
  /// forbids.
  virtual void logits(const int64_t *features, float *out) const = 0;
  /// Writes the policy directory (as the policy's own save does).
  virtual void save(const std::filesystem::path &directory) const = 0;
  /// The policy as bytes, with its kind: deserializeSamplingPolicy gives back
  /// an equal policy, every float bit for bit.
  virtual std::string serialize() const = 0;
};

std::unique_ptr<SamplingPolicy> samplingPolicy(PolicyModel model);
std::unique_ptr<SamplingPolicy> samplingPolicy(PositionPolicy policy);
/// Throws std::runtime_error for bytes that are not a serialized policy.
std::unique_ptr<SamplingPolicy> deserializeSamplingPolicy(std::string_view bytes);

/// The greedy action: the first of the highest logits; -1 when every action is
/// forbidden. PolicyModel::decide and PositionPolicy::decide take the same.
int64_t greedyAction(const float *logits, size_t actions);

}  // namespace mlgo
