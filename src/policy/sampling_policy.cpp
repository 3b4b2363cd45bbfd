#include "mlgo/policy/sampling_policy.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/policy/position_policy.h"
#include "mlgo/policy/continuous_policy.h"

namespace mlgo {

namespace {

/// The first byte of serialize()'s bytes: which kind of policy follows.
enum class Kind : char { YesNo = 'b', Position = 'p', Continuous = 'v' };

/// What a policy of choices has no use for.
class ChoiceSampling : public SamplingPolicy {
 public:
  float mean(const int64_t *) const override { throw notAValue(); }
  float logStd() const override { throw notAValue(); }
  double valueOf(float) const override { throw notAValue(); }

 private:
  static std::logic_error notAValue() { return std::logic_error("a policy of choices asked for a value"); }
};

class YesNoSampling final : public ChoiceSampling {
 public:
  explicit YesNoSampling(YesNoPolicy model) : model_(std::move(model)) {}
  size_t featureWords() const override { return model_.preprocessor().inputCount(); }
  size_t actionCount() const override { return 2; }
  void logits(const int64_t *features, float *out) const override { model_.logits(features, out); }
  void save(const std::filesystem::path &directory) const override { model_.save(directory); }
  std::string serialize() const override { return char(Kind::YesNo) + model_.serialize(); }

 private:
  YesNoPolicy model_;
};

class PositionSampling final : public ChoiceSampling {
 public:
  explicit PositionSampling(PositionPolicy policy) : policy_(std::move(policy)) {}
  size_t featureWords() const override { return policy_.spec().decisionWords(); }
  size_t actionCount() const override { return policy_.layout().positions(); }
  void logits(const int64_t *features, float *out) const override { policy_.scores(features, out); }
  void save(const std::filesystem::path &directory) const override { policy_.save(directory); }
  std::string serialize() const override { return char(Kind::Position) + policy_.serialize(); }

 private:
  PositionPolicy policy_;
};

class ContinuousSampling final : public SamplingPolicy {
 public:
  ContinuousSampling(ContinuousPolicy policy, float logStd) : policy_(std::move(policy)), logStd_(logStd) {
    if (!std::isfinite(logStd))
      throw std::invalid_argument("a continuous policy's log standard deviation must be finite");
  }
  size_t featureWords() const override { return policy_.spec().decisionWords(); }
  size_t actionCount() const override { return 0; }
  void logits(const int64_t *, float *) const override {
    throw std::logic_error("a policy of real values asked for logits");
  }
  float mean(const int64_t *features) const override { return policy_.output(features); }
  float logStd() const override { return logStd_; }
  double valueOf(float output) const override { return static_cast<float>(policy_.valueOf(output)); }
  void save(const std::filesystem::path &directory) const override { policy_.save(directory); }
  std::string serialize() const override {
    std::string bytes(1 + sizeof logStd_, char(Kind::Continuous));
    std::memcpy(&bytes[1], &logStd_, sizeof logStd_);
    return bytes + policy_.serialize();
  }

 private:
  ContinuousPolicy policy_;
  float logStd_;
};

}  // namespace

std::unique_ptr<SamplingPolicy> samplingPolicy(YesNoPolicy model) {
  return std::make_unique<YesNoSampling>(std::move(model));
}

std::unique_ptr<SamplingPolicy> samplingPolicy(PositionPolicy policy) {
  return std::make_unique<PositionSampling>(std::move(policy));
}

std::unique_ptr<SamplingPolicy> samplingPolicy(ContinuousPolicy policy, float logStd) {
  return std::make_unique<ContinuousSampling>(std::move(policy), logStd);
}

std::unique_ptr<SamplingPolicy> deserializeSamplingPolicy(std::string_view bytes) {
  if (bytes.empty()) throw std::runtime_error("not a serialized policy: no bytes");
  const std::string_view rest = bytes.substr(1);
  switch (Kind(bytes[0])) {
    case Kind::YesNo:
      return samplingPolicy(YesNoPolicy::deserialize(rest));
    case Kind::Position:
      return samplingPolicy(PositionPolicy::deserialize(rest));
    case Kind::Continuous: {
      float logStd;
      if (rest.size() < sizeof logStd) throw std::runtime_error("not a serialized policy: truncated");
      std::memcpy(&logStd, rest.data(), sizeof logStd);
      return samplingPolicy(ContinuousPolicy::deserialize(rest.substr(sizeof logStd)), logStd);
    }
  }
  throw std::runtime_error("not a serialized policy: unknown kind");
}

int64_t greedyAction(const float *logits, size_t actions) {
  int64_t best = -1;
  for (size_t a = 0; a < actions; ++a)
    if (logits[a] != -std::numeric_limits<float>::infinity() && (best < 0 || logits[a] > logits[best]))
      best = static_cast<int64_t>(a);
  return best;
}

}  // namespace mlgo
