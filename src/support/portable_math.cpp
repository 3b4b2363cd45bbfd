// See portable_math.h. Range reductions after fdlibm (Sun Microsystems'
// freely distributable libm): split constants whose high parts have trailing
// zero bits, so that k * high part is exact.
#include "mlgo/support/portable_math.h"

#include <cmath>
#include <limits>

namespace mlgo::portable {

namespace {

constexpr double kLn2High = kExpLn2High;
constexpr double kLn2Low = kExpLn2Low;
constexpr double kInverseLn2 = kExpInverseLn2;
constexpr double kHalfPiHigh = 1.57079632673412561417e+00;
constexpr double kHalfPiLow = 6.07710050650619224932e-11;
constexpr double kTwoOverPi = 6.36619772367581382433e-01;
constexpr double kSqrtHalf = 0.70710678118654752440;

/// e^r for |r| <= ln(2)/2: Taylor to degree 13 (the next term is below
/// 1e-17 relative), as 1 + r (1 + r/2 (1 + r/3 (... (1 + r/13)))).
double expReduced(double r) {
  double p = 1.0;
  for (int n = kExpDegree; n >= 1; --n) p = 1.0 + r * p / n;
  return p;
}

/// sin and cos for |r| <= pi/4: Taylor to degrees 21 and 20, nested the
/// same way.
double sinReduced(double r) {
  const double r2 = r * r;
  double t = 1.0;
  for (int n = 21; n >= 3; n -= 2) t = 1.0 - r2 / (double(n) * double(n - 1)) * t;
  return r * t;
}
double cosReduced(double r) {
  const double r2 = r * r;
  double t = 1.0;
  for (int n = 20; n >= 2; n -= 2) t = 1.0 - r2 / (double(n) * double(n - 1)) * t;
  return t;
}

}  // namespace

double exp(double x) {
  if (std::isnan(x)) return x;
  if (x > kExpOverflow) return std::numeric_limits<double>::infinity();
  if (x < kExpUnderflow) return 0.0;
  const double k = std::floor(x * kInverseLn2 + 0.5);
  const double r = (x - k * kLn2High) - k * kLn2Low;
  // ldexp scales exactly (and rounds a subnormal result the IEEE way).
  return std::ldexp(expReduced(r), int(k));
}

double log(double x) {
  if (std::isnan(x) || x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(x)) return x;
  int exponent = 0;
  double m = std::frexp(x, &exponent);  // x = m 2^exponent, m in [0.5, 1)
  if (m < kSqrtHalf) {
    m *= 2;
    --exponent;
  }
  // log(m) = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), s = (m-1)/(m+1),
  // |s| <= 0.172: 12 terms reach below 1e-18.
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double s2 = s * s;
  double series = 0;
  for (int n = 23; n >= 3; n -= 2) series = (series + 1.0 / n) * s2;
  const double logM = 2.0 * s + 2.0 * s * series;
  return (double(exponent) * kLn2High + logM) + double(exponent) * kLn2Low;
}

double log1p(double x) {
  if (std::isnan(x)) return x;
  const double u = 1.0 + x;
  if (u == 1.0) return x;
  if (std::isinf(u)) return u;
  // Corrects for the rounding of 1 + x (Goldberg, "What every computer
  // scientist should know about floating-point arithmetic", theorem 4).
  return log(u) * (x / (u - 1.0));
}

double cos(double x) {
  if (std::isnan(x) || std::isinf(x)) return std::numeric_limits<double>::quiet_NaN();
  const double k = std::nearbyint(x * kTwoOverPi);
  const double r = (x - k * kHalfPiHigh) - k * kHalfPiLow;
  switch (int64_t(std::fmod(k, 4.0) + 4.0) % 4) {
    case 0: return cosReduced(r);
    case 1: return -sinReduced(r);
    case 2: return -cosReduced(r);
    default: return sinReduced(r);
  }
}

double power(double base, uint64_t exponent) {
  double result = 1.0;
  while (exponent > 0) {
    if (exponent & 1) result *= base;
    base *= base;
    exponent >>= 1;
  }
  return result;
}

}  // namespace mlgo::portable
