#include "mlgo/policy/trajectory.h"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "mlgo/support/portable_math.h"
#include "mlgo/support/sampling.h"

namespace mlgo {

void Trajectory::clear() {
  features.clear();
  actions.clear();
  logits.clear();
  outputs.clear();
  means.clear();
  segments.clear();
}

uint64_t actionSeed(uint64_t runSeed, uint64_t iteration, std::string_view moduleName) {
  return mixBits(mixBits(runSeed ^ 0x7070'6f61'6374'696full) ^ mixBits(iteration) ^ hashName(moduleName));
}

double probabilityOfAction1(const float logits[2]) {
  const double difference = double(logits[1]) - double(logits[0]);
  if (difference >= 0) return 1.0 / (1.0 + portable::exp(-difference));
  const double e = portable::exp(difference);
  return e / (1.0 + e);
}

ActionSampler::ActionSampler(const SamplingPolicy &policy, uint64_t seed, Trajectory &trajectory, bool greedy)
    : policy_(policy), state_(seed), greedy_(greedy), trajectory_(trajectory) {
  if (policy.actionCount() > 256) throw std::invalid_argument("trajectories hold at most 256 actions a decision");
  trajectory_.featureCount = policy.featureWords();
  trajectory_.actionCount = policy.actionCount();
  if (!policy.actionCount()) trajectory_.logStd = policy.logStd();
}

double ActionSampler::nextUniform() {
  // A SplitMix64 stream: portable, so a seed gives the same actions on every
  // platform and standard library.
  return static_cast<double>(mixBits(state_++) >> 11) * 0x1.0p-53;
}

double ActionSampler::nextStandardNormal() {
  // Marsaglia's polar method: needs only log and sqrt, both portable.
  for (;;) {
    const double u = 2 * nextUniform() - 1, v = 2 * nextUniform() - 1, s = u * u + v * v;
    if (s > 0 && s < 1) return u * std::sqrt(-2 * portable::log(s) / s);
  }
}

int64_t ActionSampler::draw(const float *logits) {
  const size_t actions = policy_.actionCount();
  const int64_t best = greedyAction(logits, actions);
  if (greedy_ || best < 0) return best;
  if (actions == 2) return nextUniform() < probabilityOfAction1(logits) ? 1 : 0;
  // Softmax relative to the best logit; forbidden actions weigh exp(-inf) = 0.
  thread_local std::vector<double> weights;
  weights.resize(actions);
  double total = 0;
  for (size_t a = 0; a < actions; ++a) total += weights[a] = portable::exp(double(logits[a]) - double(logits[best]));
  double point = nextUniform() * total;
  for (size_t a = 0; a < actions; ++a) {
    if (weights[a] == 0) continue;
    if (point < weights[a]) return static_cast<int64_t>(a);
    point -= weights[a];
  }
  return best;  // rounding left the point past the last weight
}

int64_t ActionSampler::sample(const int64_t *features) {
  const size_t actions = policy_.actionCount();
  thread_local std::vector<float> logits;
  logits.resize(actions);
  policy_.logits(features, logits.data());
  const int64_t action = draw(logits.data());
  if (action < 0) return action;
  trajectory_.features.insert(trajectory_.features.end(), features, features + trajectory_.featureCount);
  trajectory_.actions.push_back(static_cast<uint8_t>(action));
  trajectory_.logits.insert(trajectory_.logits.end(), logits.begin(), logits.end());
  return action;
}

double ActionSampler::decideValue(const int64_t *features, double) {
  if (policy_.actionCount()) throw std::logic_error("a policy of choices asked for a real value");
  const float mean = policy_.mean(features);
  const auto output =
      greedy_ ? mean : static_cast<float>(mean + portable::exp(policy_.logStd()) * nextStandardNormal());
  trajectory_.features.insert(trajectory_.features.end(), features, features + trajectory_.featureCount);
  trajectory_.outputs.push_back(output);
  trajectory_.means.push_back(mean);
  return policy_.valueOf(output);
}

void ActionSampler::beginSegment(std::string_view key) {
  std::vector<Trajectory::Segment> &segments = trajectory_.segments;
  // A segment without decisions (each was forbidden everything) is dropped.
  if (!segments.empty() && segments.back().firstDecision == trajectory_.decisions()) segments.pop_back();
  segments.push_back({trajectory_.decisions(), std::string(key)});
}

}  // namespace mlgo
