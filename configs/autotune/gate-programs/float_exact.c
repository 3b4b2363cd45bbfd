/* IEEE-754 double/float behaviour without fast-math: exact results that a
 * reassociating or contracting optimizer would change (sequential sums whose
 * value Python computed), rounding functions, signed zero, NaN, infinities,
 * conversions; libm functions compared with a tolerance of a few ulps. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "float_exact: line %d: %s\n", __LINE__, #c);             \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static volatile double v_tenth = 0.1, v_zero = 0.0, v_one = 1.0, v_two = 2.0;
static volatile float v_tenth_f = 0.1f;

static int close_ulps(double a, double b, int ulps) {
  if (a == b) return 1;
  double scale = fabs(b) > DBL_MIN ? fabs(b) : DBL_MIN;
  return fabs(a - b) <= ulps * DBL_EPSILON * scale;
}

static double kahan(const double *x, int n) {
  double sum = 0, c = 0;
  for (int i = 0; i < n; i++) {
    double y = x[i] - c;
    double t = sum + y;
    c = (t - sum) - y; /* algebraically zero; must not be simplified away */
    sum = t;
  }
  return sum;
}

int main(void) {
  double tenth = v_tenth, zero = v_zero, one = v_one, two = v_two;

  /* Sequential sums: the exact double results depend on evaluation order. */
  double s = 0;
  for (int i = 0; i < 10000; i++) s += tenth;
  CHECK(s == 1000.0000000001588);
  double h = 0, hb = 0;
  for (int i = 1; i <= 1000; i++) h += one / i;
  for (int i = 1000; i >= 1; i--) hb += one / i;
  CHECK(h == 7.485470860550343 && hb == 7.485470860550341 && h != hb);
  CHECK(tenth + 0.2 == 0.30000000000000004 && tenth + 0.2 != 0.3);
  float fs = 0;
  float ft = v_tenth_f;
  for (int i = 0; i < 1000; i++) fs += ft; /* stays in single precision */
  CHECK(fs == 99.9990463256836f);

  /* Compensated summation recovers what naive summation loses. */
  static double xs[10000];
  for (int i = 0; i < 10000; i++) xs[i] = tenth;
  double k = kahan(xs, 10000);
  CHECK(fabs(k - 1000.0) < 1e-12 && k != s);
  /* (1 + 2^-53) - 1 is 0 while 1 + (2^-53 - 1) is not: order matters. */
  double tiny = ldexp(one, -53);
  CHECK((one + tiny) - one == 0.0 && one + (tiny - one) == tiny);

  /* Exact operations: dyadic fractions, perfect squares, fmod, scaling. */
  double d = 0;
  for (int i = 1; i <= 20; i++) d += ldexp(one, -i);
  CHECK(d == 1.0 - ldexp(one, -20));
  for (int i = 0; i <= 3000; i += 7) CHECK(sqrt((double)i * i) == i);
  CHECK(sqrt(two) == 1.4142135623730951 && sqrt(two) * sqrt(two) != 2.0);
  CHECK(fmod(10.5, 3 * one) == 1.5 && fmod(-10.5, 3 * one) == -1.5);
  int e;
  double m = frexp(48.0 * one, &e);
  CHECK(m == 0.75 && e == 6 && ldexp(m, e) == 48.0);
  CHECK(nextafter(one, two) == one + DBL_EPSILON && nextafter(one, zero) == one - DBL_EPSILON / 2);

  /* Rounding functions (default round-to-nearest-even mode). */
  double halves[] = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5};
  double want_rint[] = {-2, -2, -0.0, 0, 2, 2};
  double want_round[] = {-3, -2, -1, 1, 2, 3};
  for (int i = 0; i < 6; i++) {
    double x = halves[i] * one;
    CHECK(rint(x) == want_rint[i] && nearbyint(x) == want_rint[i] && round(x) == want_round[i]);
  }
  CHECK(floor(-2.7 * one) == -3 && ceil(-2.7 * one) == -2 && trunc(-2.7 * one) == -2);
  CHECK(lround(2.5 * one) == 3 && lrint(2.5 * one) == 2);

  /* Signed zero, infinities, NaN. */
  double nz = -zero;
  CHECK(nz == 0.0 && signbit(nz) && !signbit(zero));
  CHECK(one / nz == -INFINITY && one / zero == INFINITY);
  CHECK(copysign(3.0, nz) == -3.0);
  double inf = one / zero;
  CHECK(isinf(inf) && inf > DBL_MAX && -inf < -DBL_MAX && inf - inf != inf - inf);
  double nan = zero / zero;
  CHECK(isnan(nan) && nan != nan && !(nan < one) && !(nan >= one) && !(nan == nan));
  CHECK(fmax(nan, one) == 1.0 && fmin(one, nan) == 1.0);
  int nan_count = 0;
  double arr[] = {1, nan, 3, nan};
  for (int i = 0; i < 4; i++) nan_count += arr[i] != arr[i];
  CHECK(nan_count == 2);
  CHECK(DBL_MAX * two == inf && DBL_MIN / two > 0 && DBL_MIN / two < DBL_MIN);

  /* Conversions. */
  CHECK((float)16777217.0 == 16777216.0f && (double)(float)tenth != tenth);
  CHECK((int64_t)(ldexp(one, 62)) == INT64_C(1) << 62);
  CHECK((double)(INT64_C(1) << 53) + one == (double)(INT64_C(1) << 53)); /* 2^53+1 rounds down */
  CHECK((uint32_t)(4294967295.0 * one) == 4294967295u);
  uint64_t bits;
  memcpy(&bits, &tenth, sizeof bits);
  CHECK(bits == 0x3FB999999999999AULL);

  /* libm: correctly rounded to within a few ulps. */
  CHECK(close_ulps(exp(one), 2.718281828459045, 2));
  CHECK(close_ulps(log(10 * one), 2.302585092994046, 2));
  CHECK(close_ulps(sin(one), 0.8414709848078965, 2));
  CHECK(close_ulps(cos(one), 0.5403023058681398, 2));
  CHECK(close_ulps(atan(one) * 4, 3.141592653589793, 2));
  CHECK(close_ulps(pow(two, 0.5), sqrt(two), 2) && pow(two, 10 * one) == 1024.0);
  CHECK(exp(zero) == 1.0 && log(one) == 0.0 && sin(zero) == 0.0 && cos(zero) == 1.0);
  CHECK(hypot(3 * one, 4 * one) == 5.0 && close_ulps(cbrt(27 * one), 3.0, 2));

  /* Newton's method for sqrt agrees with sqrt to 1 ulp. */
  for (int i = 1; i < 200; i++) {
    double x = i * 0.37 * one, g = x > 1 ? x : 1;
    for (int it = 0; it < 60; it++) g = 0.5 * (g + x / g);
    CHECK(close_ulps(g, sqrt(x), 1));
  }

  if (failures) {
    fprintf(stderr, "float_exact: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
