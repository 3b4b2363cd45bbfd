#pragma once
// exp, log, log1p, cos and integer powers in double that give the same bits
// on every x86-64 CPU.
//
// glibc picks its libm from the CPU at load time: on a CPU with FMA and AVX2,
// exp, log, pow, cos, tanh and log1p of a double are other code that rounds
// differently about once in a thousand calls (measured: 2,000,000 random
// arguments under GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA against the
// default; the float functions agreed on every one). A sampled decision, an
// ES perturbation or a geometric mean that went through them would differ
// between two machines. These are plain arithmetic in a fixed order (the
// build turns contraction off), accurate to a few units in the last place:
// use them wherever a double result reaches a training output or a reported
// figure.
#include <cstdint>

namespace mlgo::portable {

double exp(double x);
/// exp's arithmetic, for code that repeats it outside mlgo (an exported
/// model): e^x = 2^k e^r, k = floor(x / ln 2 + 1/2), r = (x - k ln2High) -
/// k ln2Low, e^r by Taylor to kExpDegree nested as 1 + r (1 + r/2 (...)).
inline constexpr double kExpLn2High = 6.93147180369123816490e-01;
inline constexpr double kExpLn2Low = 1.90821492927058770002e-10;
inline constexpr double kExpInverseLn2 = 1.44269504088896338700e+00;
inline constexpr double kExpOverflow = 709.782712893384;     ///< above: infinity
inline constexpr double kExpUnderflow = -745.1332191019412;  ///< below: 0
inline constexpr int kExpDegree = 13;
double log(double x);     ///< NaN below 0, -infinity at 0
double log1p(double x);   ///< log(1 + x), accurate for small x
double cos(double x);     ///< accurate for |x| up to about 1e5
/// base^exponent by repeated squaring (exponent >= 0).
double power(double base, uint64_t exponent);

}  // namespace mlgo::portable
