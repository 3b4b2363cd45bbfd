#pragma once
// A trained policy as reinforcement learning samples from it, whatever the
// policy's kind: for a choice (YesNoPolicy's two actions, PositionPolicy's
// positions) logits over a decision's actions from its raw feature words; for
// a real value (ContinuousPolicy) a Gaussian around the network's output, whose
// samples stand for values. Collection, trajectories and the ranks of an MPI
// run see only this.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace mlgo {

class YesNoPolicy;
class PositionPolicy;
class ContinuousPolicy;

class SamplingPolicy {
 public:
  virtual ~SamplingPolicy() = default;
  /// Raw int64 words of one decision's features.
  virtual size_t featureWords() const = 0;
  /// Actions of one decision (2 for yes/no; the positions otherwise); 0 for
  /// a decision of a real value.
  virtual size_t actionCount() const = 0;
  /// Choices: the logits of every action; -infinity for an action the
  /// decision's mask forbids.
  virtual void logits(const int64_t *features, float *out) const = 0;
  /// Real values: the mean of the Gaussian a decision's output is sampled
  /// from (the network's output), and its log standard deviation (the same
  /// for every decision).
  virtual float mean(const int64_t *features) const = 0;
  virtual float logStd() const = 0;
  /// Real values: the value a sampled output stands for (what the compiler is
  /// answered), rounded to float as LLVM reads a model's answer.
  virtual double valueOf(float output) const = 0;
  /// Writes the policy directory (as the policy's own save does).
  virtual void save(const std::filesystem::path &directory) const = 0;
  /// The policy as bytes, with its kind: deserializeSamplingPolicy gives back
  /// an equal policy, every float bit for bit.
  virtual std::string serialize() const = 0;
};

std::unique_ptr<SamplingPolicy> samplingPolicy(YesNoPolicy model);
std::unique_ptr<SamplingPolicy> samplingPolicy(PositionPolicy policy);
/// A continuous policy sampled with standard deviation exp(`logStd`) around its
/// output (in the output's z-score units).
std::unique_ptr<SamplingPolicy> samplingPolicy(ContinuousPolicy policy, float logStd);
/// Throws std::runtime_error for bytes that are not a serialized policy.
std::unique_ptr<SamplingPolicy> deserializeSamplingPolicy(std::string_view bytes);

/// The greedy action: the first of the highest logits; -1 when every action is
/// forbidden. YesNoPolicy::decide and PositionPolicy::decide take the same.
int64_t greedyAction(const float *logits, size_t actions);

}  // namespace mlgo
