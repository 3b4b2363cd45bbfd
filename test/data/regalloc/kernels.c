// More register pressure for the regalloc learner tests: values live across
// calls (which clobber the caller-saved registers) and unrolled kernels with
// more live temporaries than registers, so the greedy allocator has many
// eviction decisions of different shapes to take. main prints a checksum.
#include <stdint.h>
#include <stdio.h>

__attribute__((noinline)) uint32_t step(uint32_t x) { return x * 2654435761u + (x >> 7); }

__attribute__((noinline)) uint32_t across_calls(const uint32_t *v, int n) {
  uint32_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8, i = 9, j = 10;
  for (int t = 0; t < n; ++t) {
    const uint32_t x = step(v[t]);
    a += x ^ j;  b ^= step(a + x);  c += b * 3;  d ^= c >> 1;  e += step(d ^ x);
    f ^= e + a;  g += f * 5;        h ^= g + b;  i += step(h) ^ c;  j ^= i + d + e + f + g;
  }
  return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ i ^ j;
}

__attribute__((noinline)) void matmul4(const float *a, const float *b, float *out, int blocks) {
  for (int k = 0; k < blocks; ++k, a += 16, b += 16, out += 16) {
    const float a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4], a5 = a[5], a6 = a[6], a7 = a[7];
    const float a8 = a[8], a9 = a[9], a10 = a[10], a11 = a[11], a12 = a[12], a13 = a[13], a14 = a[14], a15 = a[15];
    for (int c = 0; c < 4; ++c) {
      const float b0 = b[c], b1 = b[4 + c], b2 = b[8 + c], b3 = b[12 + c];
      out[c] = a0 * b0 + a1 * b1 + a2 * b2 + a3 * b3;
      out[4 + c] = a4 * b0 + a5 * b1 + a6 * b2 + a7 * b3;
      out[8 + c] = a8 * b0 + a9 * b1 + a10 * b2 + a11 * b3;
      out[12 + c] = a12 * b0 + a13 * b1 + a14 * b2 + a15 * b3;
    }
  }
}

__attribute__((noinline)) uint64_t horner(const int64_t *x, int n) {
  uint64_t sum = 0;
  for (int t = 0; t < n; ++t) {
    const int64_t v = x[t];
    const int64_t p = ((((((((3 * v + 7) * v - 11) * v + 13) * v - 17) * v + 19) * v - 23) * v + 29) * v - 31);
    const int64_t q = ((((((5 * v - 2) * v + 9) * v - 4) * v + 6) * v - 8) * v + 10);
    sum += (uint64_t)(p ^ (q << 3)) + (uint64_t)(p * q);
  }
  return sum;
}

int main(void) {
  static uint32_t words[2048];
  static float a[256], b[256], out[256];
  static int64_t ints[1024];
  uint32_t seed = 777;
  for (int t = 0; t < 2048; ++t) words[t] = seed = step(seed);
  for (int t = 0; t < 256; ++t) {
    a[t] = (float)(words[t] % 100) / 10.0f;
    b[t] = (float)(words[t + 256] % 100) / 10.0f;
  }
  for (int t = 0; t < 1024; ++t) ints[t] = (int64_t)(words[t] % 2001) - 1000;
  matmul4(a, b, out, 16);
  double total = 0;
  for (int t = 0; t < 256; ++t) total += out[t];
  printf("%08x %.3f %016llx\n", across_calls(words, 2048), total, (unsigned long long)horner(ints, 1024));
  return 0;
}
