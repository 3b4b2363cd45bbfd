#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "mlgo/vocab/quantiles.h"

using namespace mlgo;

TEST_CASE("quantiles: numpy's linspace and linear interpolation, by hand", "[vocab]") {
  CHECK(linspaceUnit(5) == std::vector<double>{0.0, 0.25, 0.5, 0.75, 1.0});
  CHECK(linspaceUnit(1) == std::vector<double>{0.0});
  // numpy.quantile([1, 2, 3, 4], [0, 1/3, 0.5, 0.9, 1]) == [1, 2, 2.5, 3.7, 4]
  const std::vector<double> data{1, 2, 3, 4};
  CHECK(quantileOfSorted(data, 0.0) == 1.0);
  CHECK(quantileOfSorted(data, 1.0 / 3.0) == Approx(2.0));
  CHECK(quantileOfSorted(data, 0.5) == 2.5);
  CHECK(quantileOfSorted(data, 0.9) == Approx(3.7));
  CHECK(quantileOfSorted(data, 1.0) == 4.0);
  CHECK(quantileOfSorted({5}, 0.3) == 5.0);
}

TEST_CASE("quantiles: exact counting equals sorting every value", "[vocab]") {
  std::mt19937_64 random(5);
  std::geometric_distribution<int> small(0.05);
  FeatureDistribution distribution;
  std::vector<double> all;
  for (int i = 0; i < 20000; ++i) {
    int64_t value = small(random) - 10 + (i % 3 == 0 ? -15030 : 0);
    distribution.add(value);
    all.push_back(static_cast<double>(value));
  }
  std::sort(all.begin(), all.end());
  REQUIRE(distribution.exact());
  const std::vector<double> qs = linspaceUnit(1000);
  const std::vector<double> got = distribution.quantiles(qs);
  for (size_t i = 0; i < qs.size(); ++i) CHECK(got[i] == quantileOfSorted(all, qs[i]));
}

TEST_CASE("quantiles: past the distinct-value limit a sample stays within its bound", "[vocab]") {
  // A small limit forces the sampled mode on data with many distinct values.
  FeatureDistribution distribution(3, /*maxDistinct=*/1000, /*reservoirSize=*/20000);
  std::vector<double> all;
  std::mt19937_64 random(9);
  for (int i = 0; i < 200000; ++i) {
    const int64_t value = static_cast<int64_t>(random() % 1000000);
    distribution.add(value);
    all.push_back(static_cast<double>(value));
  }
  CHECK_FALSE(distribution.exact());
  std::sort(all.begin(), all.end());
  const std::vector<double> qs = linspaceUnit(101);
  const std::vector<double> got = distribution.quantiles(qs);
  // DKW with n = 20000 and 99.9% confidence: rank error below 1.4%.
  for (size_t i = 0; i < qs.size(); ++i) {
    const double rank =
        static_cast<double>(std::lower_bound(all.begin(), all.end(), got[i]) - all.begin()) / all.size();
    CHECK(std::abs(rank - qs[i]) < 0.014);
  }
  CHECK(std::is_sorted(got.begin(), got.end()));
}

TEST_CASE("quantiles: a feature that never varies gives equal boundaries", "[vocab]") {
  FeatureDistribution distribution;
  for (int i = 0; i < 100; ++i) distribution.add(7);
  const auto got = distribution.quantiles(linspaceUnit(10));
  CHECK(got == std::vector<double>(10, 7.0));
  CHECK(FeatureDistribution().quantiles(linspaceUnit(3)) == std::vector<double>(3, 0.0));
}
