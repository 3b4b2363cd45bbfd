#include "mlgo/training/reward.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "mlgo/vocab/quantiles.h"

namespace mlgo {

double sizeReward(double policySize, double baselineSize, double delta) {
  return 1.0 - (policySize + delta) / (baselineSize + delta);
}

void RewardBaselines::addDefault(const std::string &module, double size) {
  entries_.emplace(module, Entry{size, size});
}

const RewardBaselines::Entry &RewardBaselines::at(const std::string &module) const {
  auto found = entries_.find(module);
  if (found == entries_.end()) throw std::logic_error("no reward baseline for module " + module);
  return found->second;
}

RewardBaselines::Rewards RewardBaselines::observe(const std::string &module, double size) {
  auto found = entries_.find(module);
  if (found == entries_.end()) throw std::logic_error("no reward baseline for module " + module);
  Entry &entry = found->second;
  Rewards rewards{sizeReward(size, entry.movingAverage, delta_), sizeReward(size, entry.defaultSize, delta_)};
  entry.movingAverage = entry.movingAverage * decay_ + size * (1 - decay_);
  return rewards;
}

nlohmann::json RewardBaselines::toJson() const {
  nlohmann::json modules = nlohmann::json::object();
  for (const auto &[name, entry] : entries_)
    modules[name] = {{"default", entry.defaultSize}, {"moving_average", entry.movingAverage}};
  return modules;
}

RewardBaselines RewardBaselines::fromJson(const nlohmann::json &json, double decay, double delta) {
  RewardBaselines baselines(decay, delta);
  for (const auto &[name, entry] : json.items())
    baselines.entries_[name] = {entry.at("default").get<double>(), entry.at("moving_average").get<double>()};
  return baselines;
}

nlohmann::json RewardDistribution::toJson() const {
  return {{"mean", mean}, {"p10", p10}, {"p25", p25}, {"p50", p50}, {"p75", p75}, {"p90", p90}, {"count", count}};
}

RewardDistribution summarizeRewards(std::vector<double> rewards) {
  RewardDistribution distribution;
  distribution.count = rewards.size();
  if (rewards.empty()) return distribution;
  std::sort(rewards.begin(), rewards.end());
  distribution.mean = std::accumulate(rewards.begin(), rewards.end(), 0.0) / rewards.size();
  distribution.p10 = quantileOfSorted(rewards, 0.10);
  distribution.p25 = quantileOfSorted(rewards, 0.25);
  distribution.p50 = quantileOfSorted(rewards, 0.50);
  distribution.p75 = quantileOfSorted(rewards, 0.75);
  distribution.p90 = quantileOfSorted(rewards, 0.90);
  return distribution;
}

}  // namespace mlgo
