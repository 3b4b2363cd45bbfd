#pragma once
// Quantile bucket boundaries as ml-compiler-opt computes them:
// numpy.quantile(values, numpy.linspace(0, 1, n)) with linear interpolation.
//
// Memory stays bounded on any trace. Feature values repeat a lot (inlining's
// are integers, many of register allocation's are ratios of few distinct
// values), so each feature is counted exactly (value -> count) up to
// kMaxDistinctValues distinct values. A feature with more distinct values
// switches to a uniform random sample of kReservoirSize values (seeded); by
// the Dvoretzky-Kiefer-Wolfowitz inequality the rank of every boundary is then
// off by at most 0.2% of the data with probability 99.9%.
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace mlgo {

/// numpy.linspace(0, 1, count), bit for bit.
std::vector<double> linspaceUnit(size_t count);

/// numpy.quantile(sorted, q, method="linear") for a sorted array, bit for bit.
double quantileOfSorted(const std::vector<double> &sorted, double q);

class FeatureDistribution {
 public:
  static constexpr size_t kMaxDistinctValues = size_t(1) << 18;
  static constexpr size_t kReservoirSize = size_t(1) << 20;

  explicit FeatureDistribution(uint64_t seed = 0, size_t maxDistinct = kMaxDistinctValues,
                               size_t reservoirSize = kReservoirSize);
  /// One value (integers convert exactly up to 2^53); NaN is not a value
  /// and is left out.
  void add(double value);
  uint64_t count() const { return count_; }
  bool exact() const { return !sampled_; }
  /// The values at quantiles `qs` (ascending), as numpy.quantile would give
  /// for all values added (exactly, or from the sample).
  std::vector<double> quantiles(const std::vector<double> &qs) const;

 private:
  uint64_t nextRandom();
  void switchToSample();

  std::unordered_map<double, uint64_t> counts_;
  std::vector<double> reservoir_;
  uint64_t count_ = 0;
  bool sampled_ = false;
  uint64_t rng_;
  size_t maxDistinct_, reservoirSize_;
};

}  // namespace mlgo
