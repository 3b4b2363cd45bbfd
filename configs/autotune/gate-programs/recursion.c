/* Recursion and mutual recursion: Ackermann, Hofstadter Female/Male, deep
 * even/odd ping-pong, McCarthy 91, N-Queens, Tower of Hanoi with legality
 * checks, permutation generation, partition numbers; all against known values. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "recursion: line %d: %s\n", __LINE__, #c);               \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static unsigned ack(unsigned m, unsigned n) {
  if (m == 0) return n + 1;
  if (n == 0) return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}

static int hof_m(int n);
static int hof_f(int n) { return n == 0 ? 1 : n - hof_m(hof_f(n - 1)); }
static int hof_m(int n) { return n == 0 ? 0 : n - hof_f(hof_m(n - 1)); }

static int is_odd(unsigned n);
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

static int mc91(int n) { return n > 100 ? n - 10 : mc91(mc91(n + 11)); }

static int queens(int n, int row, unsigned cols, unsigned d1, unsigned d2) {
  if (row == n) return 1;
  int count = 0;
  for (int c = 0; c < n; c++) {
    unsigned a = 1u << c, b = 1u << (row + c), d = 1u << (row - c + n - 1);
    if ((cols & a) || (d1 & b) || (d2 & d)) continue;
    count += queens(n, row + 1, cols | a, d1 | b, d2 | d);
  }
  return count;
}

static int pegs[3][16], height[3];
static long moves;
static int illegal;
static void hanoi(int n, int from, int to, int via) {
  if (n == 0) return;
  hanoi(n - 1, from, via, to);
  int disk = pegs[from][--height[from]];
  if (height[to] > 0 && pegs[to][height[to] - 1] < disk) illegal++;
  pegs[to][height[to]++] = disk;
  moves++;
  hanoi(n - 1, via, to, from);
}

static int perm[8], used[8], perm_count, perm_ordered = 1;
static int64_t prev_code = -1;
static void permute(int n, int k) {
  if (k == n) {
    int64_t code = 0;
    for (int i = 0; i < n; i++) code = code * 10 + perm[i];
    if (code <= prev_code) perm_ordered = 0;
    prev_code = code;
    perm_count++;
    return;
  }
  for (int v = 1; v <= n; v++) {
    if (used[v]) continue;
    used[v] = 1;
    perm[k] = v;
    permute(n, k + 1);
    used[v] = 0;
  }
}

static int64_t memo[101][101];
static int64_t partitions(int n, int k) { /* partitions of n into parts <= k */
  if (n == 0) return 1;
  if (k == 0) return 0;
  if (k > n) return partitions(n, n);
  if (memo[n][k]) return memo[n][k];
  return memo[n][k] = partitions(n - k, k) + partitions(n, k - 1);
}

static unsigned gcd_rec(unsigned a, unsigned b) { return b == 0 ? a : gcd_rec(b, a % b); }

int main(void) {
  CHECK(ack(0, 0) == 1 && ack(1, 5) == 7 && ack(2, 3) == 9);
  CHECK(ack(3, 3) == 61 && ack(3, 5) == 253);

  static const int F[] = {1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 6, 7, 8, 8, 9, 9, 10, 11, 11, 12, 13};
  static const int M[] = {0, 0, 1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 7, 8, 9, 9, 10, 11, 11, 12, 12};
  for (int i = 0; i <= 20; i++) CHECK(hof_f(i) == F[i] && hof_m(i) == M[i]);

  CHECK(is_even(10000) && !is_odd(10000) && is_odd(9999) && !is_even(0u + 1));

  for (int n = -20; n <= 101; n++) CHECK(mc91(n) == 91);
  CHECK(mc91(102) == 92 && mc91(200) == 190);

  CHECK(queens(1, 0, 0, 0, 0) == 1 && queens(4, 0, 0, 0, 0) == 2);
  CHECK(queens(6, 0, 0, 0, 0) == 4 && queens(8, 0, 0, 0, 0) == 92);

  for (int n = 1; n <= 12; n++) {
    memset(height, 0, sizeof height);
    for (int d = 0; d < n; d++) pegs[0][d] = n - d;
    height[0] = n;
    moves = 0;
    illegal = 0;
    hanoi(n, 0, 2, 1);
    int ordered = height[2] == n;
    for (int d = 0; d < height[2]; d++) ordered &= pegs[2][d] == n - d;
    CHECK(moves == (1L << n) - 1 && illegal == 0 && ordered && height[0] == 0 && height[1] == 0);
  }

  permute(7, 0);
  CHECK(perm_count == 5040 && perm_ordered && prev_code == 7654321);

  CHECK(partitions(50, 50) == 204226 && partitions(100, 100) == 190569292);
  CHECK(partitions(60, 60) == 966467);

  CHECK(gcd_rec(1071, 462) == 21 && gcd_rec(0, 5) == 5 && gcd_rec(832040, 514229) == 1);

  if (failures) {
    fprintf(stderr, "recursion: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
