#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "mlgo/support/portable_math.h"

using namespace mlgo;

namespace {

/// Distance in units of the last place of `expected`.
double ulps(double value, double expected) {
  if (value == expected) return 0;
  return std::fabs(value - expected) / std::fabs(std::nextafter(expected, INFINITY) - expected);
}

}  // namespace

TEST_CASE("portable math: within a few units in the last place of glibc's libm", "[support][determinism]") {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> wide(-700, 700), unit(0.5, 1), smallish(-0.999, 4), angle(-50, 50);
  double worstExp = 0, worstLog = 0, worstLog1p = 0, worstCos = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = wide(random);
    worstExp = std::max(worstExp, ulps(portable::exp(x), std::exp(x)));
    const double positive = std::ldexp(unit(random), int(random() % 2000) - 1000);
    worstLog = std::max(worstLog, ulps(portable::log(positive), std::log(positive)));
    const double small = std::ldexp(smallish(random), -int(i % 50));
    worstLog1p = std::max(worstLog1p, ulps(portable::log1p(small), std::log1p(small)));
    const double a = angle(random);
    if (std::fabs(std::cos(a)) > 1e-3) worstCos = std::max(worstCos, ulps(portable::cos(a), std::cos(a)));
  }
  CHECK(worstExp <= 2);
  CHECK(worstLog <= 2);
  CHECK(worstLog1p <= 4);
  CHECK(worstCos <= 2);
}

TEST_CASE("portable math: special values and integer powers", "[support][determinism]") {
  const double infinity = std::numeric_limits<double>::infinity();
  CHECK(portable::exp(0) == 1);
  CHECK(portable::exp(1000) == infinity);
  CHECK(portable::exp(-1000) == 0);
  CHECK(std::isnan(portable::exp(std::nan(""))));
  CHECK(portable::log(1) == 0);
  CHECK(portable::log(0) == -infinity);
  CHECK(std::isnan(portable::log(-1)));
  CHECK(portable::log(infinity) == infinity);
  CHECK(portable::log1p(1e-20) == 1e-20);
  CHECK(portable::log1p(0) == 0);
  CHECK(portable::cos(0) == 1);
  CHECK(std::isnan(portable::cos(infinity)));
  CHECK(portable::power(2, 10) == 1024);
  CHECK(portable::power(0.5, 3) == 0.125);
  CHECK(portable::power(7, 0) == 1);
  CHECK(portable::power(0.999, 1000) == Approx(std::pow(0.999, 1000)).epsilon(1e-12));
}
