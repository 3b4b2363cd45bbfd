#include "mlgo/vocab/quantiles.h"

#include <algorithm>
#include <cmath>

#include "mlgo/support/sampling.h"

namespace mlgo {

std::vector<double> linspaceUnit(size_t count) {
  std::vector<double> values(count);
  if (count == 0) return values;
  if (count == 1) return {0.0};
  const double step = 1.0 / static_cast<double>(count - 1);
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<double>(i) * step;
  values.back() = 1.0;  // numpy sets the endpoint exactly
  return values;
}

namespace {

/// numpy's _lerp: a + (b - a) * t, computed from the nearer end for t >= 0.5.
double lerp(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

/// numpy's "linear" method on a virtual index into n sorted values.
template <typename ValueAt>
double interpolate(size_t n, double q, ValueAt valueAt) {
  const double index = q * static_cast<double>(n - 1);
  const double floorIndex = std::floor(index);
  const size_t lo = std::min(static_cast<size_t>(floorIndex), n - 1);
  const size_t hi = std::min(lo + 1, n - 1);
  return lerp(valueAt(lo), valueAt(hi), index - floorIndex);
}

}  // namespace

double quantileOfSorted(const std::vector<double> &sorted, double q) {
  return interpolate(sorted.size(), q, [&](size_t i) { return sorted[i]; });
}

FeatureDistribution::FeatureDistribution(uint64_t seed, size_t maxDistinct, size_t reservoirSize)
    : rng_(mixBits(seed)), maxDistinct_(maxDistinct), reservoirSize_(reservoirSize) {}

uint64_t FeatureDistribution::nextRandom() {
  rng_ += 0x9e3779b97f4a7c15ull;
  return mixBits(rng_);
}

void FeatureDistribution::add(double value) {
  if (std::isnan(value)) return;
  if (value == 0) value = 0;  // -0.0 and 0.0 are one value
  ++count_;
  if (exact()) {
    ++counts_[value];
    if (counts_.size() > maxDistinct_) switchToSample();
    return;
  }
  // Algorithm R over everything seen so far.
  if (reservoir_.size() < reservoirSize_) {
    reservoir_.push_back(value);
    return;
  }
  const uint64_t slot = nextRandom() % count_;
  if (slot < reservoir_.size()) reservoir_[slot] = value;
}

void FeatureDistribution::switchToSample() {
  sampled_ = true;
  std::vector<std::pair<double, uint64_t>> sorted(counts_.begin(), counts_.end());
  std::sort(sorted.begin(), sorted.end());
  counts_.clear();
  counts_.rehash(0);
  if (count_ <= reservoirSize_) {
    // Still in Algorithm R's filling phase: the sample is every value so far.
    for (const auto &[value, count] : sorted) reservoir_.insert(reservoir_.end(), count, value);
    return;
  }
  // More values than the sample holds: an i.i.d. draw from the values
  // counted so far stands for them, and Algorithm R continues from there.
  std::vector<uint64_t> cumulative;
  cumulative.reserve(sorted.size());
  uint64_t total = 0;
  for (const auto &[value, count] : sorted) cumulative.push_back(total += count);
  reservoir_.resize(reservoirSize_);
  for (double &slot : reservoir_) {
    const uint64_t rank = nextRandom() % total;
    slot = sorted[std::upper_bound(cumulative.begin(), cumulative.end(), rank) - cumulative.begin()].first;
  }
}

std::vector<double> FeatureDistribution::quantiles(const std::vector<double> &qs) const {
  std::vector<double> out;
  out.reserve(qs.size());
  if (count_ == 0) return std::vector<double>(qs.size(), 0.0);
  if (!exact()) {
    std::vector<double> sorted = reservoir_;
    std::sort(sorted.begin(), sorted.end());
    for (double q : qs) out.push_back(quantileOfSorted(sorted, q));
    return out;
  }
  // Exact: rank i of the sorted data is found by walking cumulative counts.
  std::vector<std::pair<double, uint64_t>> sorted(counts_.begin(), counts_.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<uint64_t> cumulative;
  cumulative.reserve(sorted.size());
  uint64_t total = 0;
  for (const auto &[value, count] : sorted) cumulative.push_back(total += count);
  auto valueAt = [&](size_t rank) {
    const size_t index = std::upper_bound(cumulative.begin(), cumulative.end(), uint64_t(rank)) - cumulative.begin();
    return sorted[index].first;
  };
  for (double q : qs) out.push_back(interpolate(total, q, valueAt));
  return out;
}

}  // namespace mlgo
