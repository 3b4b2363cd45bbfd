// Register pressure for the eviction tests: more values live across the
// loop than x86-64 has registers, integer and floating point, so the greedy
// allocator evicts. main prints a checksum, the same for every correct
// allocation of the registers.
#include <stdint.h>
#include <stdio.h>

__attribute__((noinline)) uint64_t mix(const uint32_t *data, int n) {
  uint64_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8, i = 9, j = 10, k = 11, l = 12;
  uint64_t m = 13, o = 14, p = 15, q = 16, r = 17, s = 18;
  for (int t = 0; t < n; ++t) {
    const uint64_t x = data[t];
    a += x ^ b;  b = (b << 3) ^ c;  c += d * x;  d ^= e + x;
    e += f >> 2; f = (f * 31) ^ g;  g += h ^ x;  h -= i + 7;
    i ^= j * 5;  j += k ^ (x >> 1); k = (k << 1) ^ l; l += m * 3;
    m ^= o + x;  o += p >> 1;        p = (p * 17) ^ q; q -= r ^ x;
    r += s * 9;  s ^= a + t;
  }
  return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ i ^ j ^ k ^ l ^ m ^ o ^ p ^ q ^ r ^ s;
}

__attribute__((noinline)) double blend(const double *v, int n) {
  double a = 0.5, b = 1.5, c = 2.5, d = 3.5, e = 4.5, f = 5.5, g = 6.5, h = 7.5;
  double i = 8.5, j = 9.5, k = 10.5, l = 11.5, m = 12.5, o = 13.5, p = 14.5, q = 15.5, r = 16.5;
  for (int t = 0; t < n; ++t) {
    const double x = v[t];
    a = a * 0.5 + x * b; b = b * 0.25 + c; c = c * 0.75 + x * d; d = d * 0.5 + e;
    e = e * 0.125 + x * f; f = f * 0.5 + g; g = g * 0.25 + x * h; h = h * 0.5 + i;
    i = i * 0.75 + x * j; j = j * 0.5 + k; k = k * 0.25 + x * l; l = l * 0.5 + m;
    m = m * 0.125 + x * o; o = o * 0.5 + p; p = p * 0.25 + x * q; q = q * 0.5 + r; r = r * 0.75 + a;
  }
  return a + b + c + d + e + f + g + h + i + j + k + l + m + o + p + q + r;
}

int main(void) {
  static uint32_t data[4096];
  static double values[4096];
  uint32_t seed = 12345;
  for (int t = 0; t < 4096; ++t) {
    seed = seed * 1103515245u + 12345u;
    data[t] = seed >> 8;
    values[t] = (double)(seed % 1000) / 1000.0;
  }
  uint64_t total = 0;
  double sum = 0;
  for (int round = 0; round < 50; ++round) {
    total ^= mix(data, 4096 - round) + (uint64_t)round;
    sum += blend(values, 4096 - round);
  }
  printf("%016llx %.6f\n", (unsigned long long)total, sum);
  return 0;
}
