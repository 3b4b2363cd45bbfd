/* 64-bit number theory: Euclid vs binary GCD, extended Euclid inverses,
 * mulmod by double-and-add vs unsigned __int128, modular exponentiation,
 * deterministic Miller-Rabin vs trial division, Pollard rho, CRT, isqrt,
 * Euler phi sieve; expected values computed with Python. */
#include <stdint.h>
#include <stdio.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "number_theory: line %d: %s\n", __LINE__, #c);           \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static uint64_t gcd_euclid(uint64_t a, uint64_t b) { while (b) { uint64_t t = a % b; a = b; b = t; } return a; }
static uint64_t gcd_binary(uint64_t a, uint64_t b) {
  if (!a) return b;
  if (!b) return a;
  int shift = 0;
  while (!((a | b) & 1u)) { a >>= 1; b >>= 1; shift++; }
  while (!(a & 1u)) a >>= 1;
  do {
    while (!(b & 1u)) b >>= 1;
    if (a > b) { uint64_t t = a; a = b; b = t; }
    b -= a;
  } while (b);
  return a << shift;
}
static int64_t ext_gcd(int64_t a, int64_t b, int64_t *x, int64_t *y) {
  if (b == 0) { *x = 1; *y = 0; return a; }
  int64_t x1, y1, g = ext_gcd(b, a % b, &x1, &y1);
  *x = y1;
  *y = x1 - (a / b) * y1;
  return g;
}
static uint64_t mulmod_slow(uint64_t a, uint64_t b, uint64_t m) { /* no overflow for m < 2^63 or any m */
  uint64_t r = 0;
  a %= m;
  while (b) {
    if (b & 1u) { r = r >= m - a ? r - (m - a) : r + a; }
    a = a >= m - a ? a - (m - a) : a + a;
    b >>= 1;
  }
  return r;
}
static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m) {
  return (uint64_t)((unsigned __int128)a * b % m);
}
static uint64_t powmod(uint64_t b, uint64_t e, uint64_t m) {
  uint64_t r = 1 % m;
  b %= m;
  while (e) {
    if (e & 1u) r = mulmod(r, b, m);
    b = mulmod(b, b, m);
    e >>= 1;
  }
  return r;
}
static int is_prime(uint64_t n) {
  static const uint64_t bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  if (n < 2) return 0;
  for (int i = 0; i < 12; i++)
    if (n % bases[i] == 0) return n == bases[i];
  uint64_t d = n - 1;
  int s = 0;
  while (!(d & 1u)) { d >>= 1; s++; }
  for (int i = 0; i < 12; i++) {
    uint64_t x = powmod(bases[i], d, n);
    if (x == 1 || x == n - 1) continue;
    int witness = 1;
    for (int r = 1; r < s && witness; r++) {
      x = mulmod(x, x, n);
      if (x == n - 1) witness = 0;
    }
    if (witness) return 0;
  }
  return 1;
}
static int is_prime_trial(uint64_t n) {
  if (n < 2) return 0;
  for (uint64_t d = 2; d * d <= n; d++)
    if (n % d == 0) return 0;
  return 1;
}
static uint64_t pollard_rho(uint64_t n) {
  if (n % 2 == 0) return 2;
  for (uint64_t c = 1;; c++) {
    uint64_t x = 2, y = 2, d = 1;
    while (d == 1) {
      x = (mulmod(x, x, n) + c) % n;
      y = (mulmod(y, y, n) + c) % n;
      y = (mulmod(y, y, n) + c) % n;
      d = gcd_euclid(x > y ? x - y : y - x, n);
    }
    if (d != n) return d;
  }
}
static uint64_t isqrt(uint64_t n) {
  if (n < 2) return n;
  uint64_t x = n / 2 + 1, y = (x + n / x) / 2;
  while (y < x) { x = y; y = (x + n / x) / 2; }
  return x;
}

int main(void) {
  uint64_t s = 0x853c49e6748fea9bull;
  for (int i = 0; i < 2000; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t a = s >> (i % 40), b;
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    b = (s >> (i % 50)) * (i % 3 ? 1 : 6);
    uint64_t g = gcd_euclid(a, b);
    CHECK(g == gcd_binary(a, b));
    if (g) CHECK(a % g == 0 && b % g == 0 && gcd_euclid(a / g, b / g) == 1);
    uint64_t m = (s >> 1) | 1u;
    CHECK(mulmod(a, b, m) == mulmod_slow(a, b, m));
  }
  CHECK(mulmod(UINT64_MAX, UINT64_MAX, UINT64_MAX - 58) == mulmod_slow(UINT64_MAX, UINT64_MAX, UINT64_MAX - 58));

  int64_t x, y;
  CHECK(ext_gcd(240, 46, &x, &y) == 2 && 240 * x + 46 * y == 2);
  CHECK(ext_gcd(17, 3120, &x, &y) == 1 && ((x % 3120) + 3120) % 3120 == 2753);

  const uint64_t M61 = (1ull << 61) - 1;
  CHECK(powmod(3, 1000000000000000000ull, M61) == 1990325404628017161ull);
  CHECK(powmod(123456789, 987654321, 1000000007) == 652541198);
  CHECK(powmod(1ull << 40 | 15, M61 - 2, M61) == 561559273263012380ull); /* Fermat inverse */
  CHECK(mulmod(561559273263012380ull, (1ull << 40) + 15, M61) == 1);

  CHECK(is_prime(M61) && is_prime(18446744073709551557ull) && !is_prime(561) && !is_prime(UINT64_MAX));
  int count = 0;
  for (uint64_t n = UINT64_MAX - 999; n != 0; n++) count += is_prime(n); /* stops after wrapping */
  CHECK(count == 21);
  count = 0;
  for (uint64_t n = 1000000000000ull; n < 1000000001000ull; n++) count += is_prime(n);
  CHECK(count == 37);
  for (uint64_t n = 0; n < 3000; n++)
    if (is_prime(n) != is_prime_trial(n)) { failures++; fprintf(stderr, "number_theory: is_prime(%llu)\n", (unsigned long long)n); }

  uint64_t n = 600851475143ull, product = 1, factors[16];
  int nf = 0;
  while (n > 1 && nf < 16) {
    uint64_t f = is_prime(n) ? n : pollard_rho(n);
    while (!is_prime(f)) f = pollard_rho(f);
    factors[nf++] = f;
    n /= f;
  }
  uint64_t largest = 0;
  for (int i = 0; i < nf; i++) { product *= factors[i]; if (factors[i] > largest) largest = factors[i]; }
  CHECK(product == 600851475143ull && nf == 4 && largest == 6857);

  /* CRT: x = 2 mod 3, 3 mod 5, 2 mod 7 -> 23; then a large system. */
  const int64_t mods[] = {3, 5, 7}, rems[] = {2, 3, 2};
  int64_t M = 1, sol = 0;
  for (int i = 0; i < 3; i++) M *= mods[i];
  for (int i = 0; i < 3; i++) {
    int64_t Mi = M / mods[i], inv, dummy;
    ext_gcd(Mi % mods[i], mods[i], &inv, &dummy);
    inv = ((inv % mods[i]) + mods[i]) % mods[i];
    sol = (sol + rems[i] * Mi * inv) % M;
  }
  CHECK(sol == 23);

  CHECK(isqrt(UINT64_MAX) == 4294967295ull && isqrt(1000000000000000007ull) == 1000000000ull);
  for (uint64_t v = 0; v < 5000; v++) { uint64_t r = isqrt(v); CHECK(r * r <= v && (r + 1) * (r + 1) > v); }

  static int phi[1001];
  for (int i = 0; i <= 1000; i++) phi[i] = i;
  for (int i = 2; i <= 1000; i++)
    if (phi[i] == i)
      for (int j = i; j <= 1000; j += i) phi[j] -= phi[j] / i;
  long phisum = 0;
  for (int i = 1; i <= 1000; i++) phisum += phi[i];
  CHECK(phisum == 304192);
  for (int i = 1; i <= 200; i++) {
    int c = 0;
    for (int j = 1; j <= i; j++) c += gcd_binary((uint64_t)i, (uint64_t)j) == 1;
    if (c != phi[i]) { failures++; break; }
  }

  if (failures) {
    fprintf(stderr, "number_theory: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
