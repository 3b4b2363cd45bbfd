#include "mlgo/policy/trajectory.h"

#include <cmath>

#include "mlgo/trace/sampling.h"

namespace mlgo {

void Trajectory::clear() {
  features.clear();
  actions.clear();
  logits.clear();
}

uint64_t actionSeed(uint64_t runSeed, uint64_t iteration, std::string_view moduleName) {
  return mixBits(mixBits(runSeed ^ 0x7070'6f61'6374'696full) ^ mixBits(iteration) ^ hashName(moduleName));
}

double probabilityOfAction1(const float logits[2]) {
  const double difference = double(logits[1]) - double(logits[0]);
  if (difference >= 0) return 1.0 / (1.0 + std::exp(-difference));
  const double e = std::exp(difference);
  return e / (1.0 + e);
}

ActionSampler::ActionSampler(const PolicyModel &model, uint64_t seed, Trajectory &trajectory, bool greedy)
    : model_(model), state_(seed), greedy_(greedy), trajectory_(trajectory) {
  trajectory_.featureCount = model.preprocessor().inputCount();
}

double ActionSampler::nextUniform() {
  // A SplitMix64 stream: portable, so a seed gives the same actions on every
  // platform and standard library.
  return static_cast<double>(mixBits(state_++) >> 11) * 0x1.0p-53;
}

bool ActionSampler::sample(const int64_t *features) {
  float logits[2];
  model_.logits(features, logits);
  const bool action = greedy_ ? logits[1] > logits[0]  // PolicyModel::decide's rule
                              : nextUniform() < probabilityOfAction1(logits);
  trajectory_.features.insert(trajectory_.features.end(), features, features + trajectory_.featureCount);
  trajectory_.actions.push_back(action ? 1 : 0);
  trajectory_.logits.push_back(logits[0]);
  trajectory_.logits.push_back(logits[1]);
  return action;
}

}  // namespace mlgo
