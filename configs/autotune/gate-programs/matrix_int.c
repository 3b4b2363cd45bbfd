/* Integer matrix math: four multiplication loop orders (ijk, ikj, blocked,
 * transposed) must agree, (AB)C == A(BC) mod 2^32, Bareiss determinants of
 * Vandermonde matrices equal the product formula, Fibonacci by matrix power. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N 37 /* deliberately not a multiple of the block or vector width */
typedef uint32_t Mat[N][N];

static void mul_ijk(Mat c, Mat a, Mat b) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      uint32_t s = 0;
      for (int k = 0; k < N; k++) s += a[i][k] * b[k][j];
      c[i][j] = s;
    }
}
static void mul_ikj(Mat c, Mat a, Mat b) {
  memset(c, 0, sizeof(Mat));
  for (int i = 0; i < N; i++)
    for (int k = 0; k < N; k++) {
      uint32_t aik = a[i][k];
      for (int j = 0; j < N; j++) c[i][j] += aik * b[k][j];
    }
}
static void mul_blocked(Mat c, Mat a, Mat b) {
  enum { B = 8 };
  memset(c, 0, sizeof(Mat));
  for (int ii = 0; ii < N; ii += B)
    for (int kk = 0; kk < N; kk += B)
      for (int jj = 0; jj < N; jj += B)
        for (int i = ii; i < ii + B && i < N; i++)
          for (int k = kk; k < kk + B && k < N; k++)
            for (int j = jj; j < jj + B && j < N; j++) c[i][j] += a[i][k] * b[k][j];
}
static void mul_transposed(Mat c, Mat a, Mat b) {
  static Mat bt;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) bt[j][i] = b[i][j];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      uint32_t s = 0;
      const uint32_t *ra = a[i], *rb = bt[j];
      for (int k = N - 1; k >= 0; k--) s += ra[k] * rb[k];
      c[i][j] = s;
    }
}

/* Fraction-free Gaussian elimination (Bareiss) on an n x n int64 matrix. */
static int64_t det_bareiss(int64_t m[][8], int n) {
  int sign = 1;
  int64_t prev = 1;
  for (int k = 0; k < n - 1; k++) {
    if (m[k][k] == 0) {
      int r = k + 1;
      while (r < n && m[r][k] == 0) r++;
      if (r == n) return 0;
      for (int j = 0; j < n; j++) { int64_t t = m[k][j]; m[k][j] = m[r][j]; m[r][j] = t; }
      sign = -sign;
    }
    for (int i = k + 1; i < n; i++)
      for (int j = k + 1; j < n; j++) m[i][j] = (m[i][j] * m[k][k] - m[i][k] * m[k][j]) / prev;
    prev = m[k][k];
  }
  return sign * m[n - 1][n - 1];
}

static void mat2_mul(uint64_t r[2][2], const uint64_t a[2][2], const uint64_t b[2][2], uint64_t mod) {
  uint64_t t[2][2];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) t[i][j] = (a[i][0] * b[0][j] + a[i][1] * b[1][j]) % mod;
  memcpy(r, t, sizeof t);
}

int main(void) {
  int failures = 0;
  static Mat a, b, c, r1, r2, r3, r4, t1, t2;
  uint32_t s = 1u;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      s = s * 1664525u + 1013904223u; a[i][j] = s;
      s = s * 1664525u + 1013904223u; b[i][j] = s >> 7;
      s = s * 1664525u + 1013904223u; c[i][j] = (s >> 20) - 2048u; /* wraps for small s */
    }
  mul_ijk(r1, a, b);
  mul_ikj(r2, a, b);
  mul_blocked(r3, a, b);
  mul_transposed(r4, a, b);
  if (memcmp(r1, r2, sizeof(Mat)) || memcmp(r1, r3, sizeof(Mat)) || memcmp(r1, r4, sizeof(Mat))) {
    fprintf(stderr, "matrix_int: multiplication orders disagree\n");
    failures++;
  }
  mul_ikj(t1, r1, c);    /* (AB)C */
  mul_blocked(r2, b, c); /* BC */
  mul_transposed(t2, a, r2);
  if (memcmp(t1, t2, sizeof(Mat))) { fprintf(stderr, "matrix_int: not associative\n"); failures++; }

  /* Identity is neutral; trace(AB) == trace(BA). */
  static Mat id;
  for (int i = 0; i < N; i++) id[i][i] = 1;
  mul_ijk(r2, a, id);
  if (memcmp(r2, a, sizeof(Mat))) failures++;
  mul_ikj(r2, b, a);
  uint32_t tr1 = 0, tr2 = 0;
  for (int i = 0; i < N; i++) { tr1 += r1[i][i]; tr2 += r2[i][i]; }
  if (tr1 != tr2) { fprintf(stderr, "matrix_int: trace(AB) != trace(BA)\n"); failures++; }

  /* Vandermonde determinants: det = prod_{i<j} (x_j - x_i). */
  for (int n = 1; n <= 6; n++) { /* n = 7 would overflow int64 intermediates */
    int64_t m[8][8], x[8], want = 1;
    for (int i = 0; i < n; i++) x[i] = 3 * i - 5 + (i % 2); /* -5,-1,1,5,7,11 */
    for (int i = 0; i < n; i++) {
      int64_t p = 1;
      for (int j = 0; j < n; j++) { m[i][j] = p; p *= x[i]; }
    }
    for (int i = 0; i < n; i++)
      for (int j = i + 1; j < n; j++) want *= x[j] - x[i];
    int64_t got = det_bareiss(m, n);
    if (got != want) {
      fprintf(stderr, "matrix_int: Vandermonde %d: %lld vs %lld\n", n, (long long)got, (long long)want);
      failures++;
    }
  }
  int64_t sing[8][8] = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  if (det_bareiss(sing, 3) != 0) failures++;
  int64_t piv[8][8] = {{0, 2, 1}, {3, 0, 1}, {1, 1, 0}}; /* needs a row swap; det = 5 */
  if (det_bareiss(piv, 3) != 5) { fprintf(stderr, "matrix_int: pivoting det\n"); failures++; }

  /* Fibonacci by fast matrix power modulo 1e9+7: F(10^6) mod p = 918091266 (Python). */
  uint64_t res[2][2] = {{1, 0}, {0, 1}}, base[2][2] = {{1, 1}, {1, 0}};
  const uint64_t mod = 1000000007u;
  for (uint64_t e = 1000000; e; e >>= 1) {
    if (e & 1) mat2_mul(res, (const uint64_t(*)[2])res, (const uint64_t(*)[2])base, mod);
    mat2_mul(base, (const uint64_t(*)[2])base, (const uint64_t(*)[2])base, mod);
  }
  if (res[0][1] != 918091266u) {
    fprintf(stderr, "matrix_int: F(10^6) mod p = %llu\n", (unsigned long long)res[0][1]);
    failures++;
  }
  return failures ? 1 : 0;
}
