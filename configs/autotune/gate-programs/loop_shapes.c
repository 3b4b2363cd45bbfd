/* Loop shapes optimizers transform: odd strides and bounds, wrapping and
 * narrow induction variables, values live after the loop, early exits,
 * loop-carried dependences at distances 1..4, reductions, triangular nests;
 * each checked against a closed form or a plainly written reference. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "loop_shapes: line %d: %s\n", __LINE__, #c);             \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static volatile int vn = 1000, vstep = 3, vzero = 0;

static long stride_sum(int lo, int hi, int step) { /* sum of lo, lo+step, ... < hi */
  long s = 0;
  for (int i = lo; i < hi; i += step) s += i;
  return s;
}
static long stride_closed(int lo, int hi, int step) {
  if (lo >= hi) return 0;
  long k = (hi - lo + step - 1) / step; /* number of terms */
  return k * lo + (long)step * k * (k - 1) / 2;
}

static int find_first(const int *a, int n, int key) {
  for (int i = 0; i < n; i++)
    if (a[i] == key) return i;
  return -1;
}

static void shift_dep(int *a, int n, int d) { /* a[i+d] depends on a[i] written this loop */
  for (int i = 0; i + d < n; i++) a[i + d] = a[i] + 1;
}
static void shift_dep_ref(int *a, int n, int d) {
  for (int i = 0; i + d < n; i++) {
    int v = a[i] + 1;
    a[i + d] = v;
  }
}

int main(void) {
  int n = vn, step = vstep, zero = vzero;

  /* Strided loops with bounds that are not multiples of the stride. */
  for (int lo = -7; lo <= 7; lo++)
    for (int st = 1; st <= 5; st++)
      CHECK(stride_sum(lo, n + lo % 4, st) == stride_closed(lo, n + lo % 4, st));
  CHECK(stride_sum(n, n, step) == 0 && stride_sum(n + 1, n, step) == 0);

  /* Induction variable live after the loop. */
  int i;
  for (i = zero; i * i < n; i++) {}
  CHECK(i == 32);
  int j = 0;
  for (j = n; j > 0; j -= 7) {}
  CHECK(j == -1); /* 1000 = 7*142 + 6 -> ends at 6 - 7 */

  /* Narrow and wrapping induction variables. */
  unsigned count8 = 0;
  for (uint8_t u = (uint8_t)(250 + zero); u != 4; u++) count8++;
  CHECK(count8 == 10);
  unsigned count16 = 0;
  for (int16_t s = (int16_t)(-300 + zero); s < 300; s = (int16_t)(s + 7)) count16++;
  CHECK(count16 == 86);
  unsigned count32 = 0;
  for (uint32_t u = UINT32_MAX - 20u + (unsigned)zero; u >= UINT32_MAX - 20u; u += 4u) count32++;
  CHECK(count32 == 6); /* ... -20,-16,-12,-8,-4,0(wraps to 3 -> exits) */

  /* Signed down-counting loop crossing zero with step 2. */
  long alt = 0;
  for (int k = 9 + zero; k >= -9; k -= 2) alt += k * (k > 0 ? 1 : -1);
  CHECK(alt == 50);

  /* Early exits. */
  int arr[257];
  for (int k = 0; k < 257; k++) arr[k] = (k * 37) % 257;
  CHECK(find_first(arr, 257, 0) == 0);
  CHECK(find_first(arr, 257, 37) == 1);
  CHECK(find_first(arr, 257, 1) == 132); /* 37 * 132 = 4884 = 19*257 + 1 */
  CHECK(find_first(arr, 257, 999) == -1);
  CHECK(find_first(arr, zero, 0) == -1);

  /* Loop-carried dependences at several distances. */
  for (int d = 1; d <= 4; d++) {
    int a[100], b[100];
    for (int k = 0; k < 100; k++) a[k] = b[k] = k * k;
    shift_dep(a, 100 - zero, d);
    shift_dep_ref(b, 100, d);
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(a[99] == ((99 % d) * (99 % d)) + 99 / d);
  }
  /* Prefix sum in place (distance 1 recurrence). */
  int pre[64];
  for (int k = 0; k < 64; k++) pre[k] = k + 1;
  for (int k = 1; k < 64 - zero; k++) pre[k] += pre[k - 1];
  CHECK(pre[63] == 64 * 65 / 2 && pre[9] == 55);
  /* Backwards dependence: a[k] = a[k+1] + 1 iterating downward. */
  int back[50];
  back[49] = 0;
  for (int k = 48; k >= zero; k--) back[k] = back[k + 1] + 1;
  CHECK(back[0] == 49);

  /* Reductions: wrapping sum, min/max with index, exact double sum. */
  uint32_t usum = 0;
  int mn = 1 << 30, mx = -(1 << 30), mn_at = -1, mx_at = -1;
  double dsum = 0;
  for (int k = 0; k < n; k++) {
    int v = (int)((k * 2654435761u) >> 8) - (1 << 23);
    usum += (uint32_t)v * 2654435761u;
    if (v < mn) { mn = v; mn_at = k; }
    if (v >= mx) { mx = v; mx_at = k; }
    dsum += (double)(k % 64) * 0.5; /* exact in binary */
  }
  uint32_t usum2 = 0;
  for (int k = n - 1; k >= 0; k--) usum2 += (uint32_t)((int)((k * 2654435761u) >> 8) - (1 << 23)) * 2654435761u;
  CHECK(usum == usum2);
  double dref = 0;
  for (int k = 0; k < 1000; k++) dref += (double)(k % 64) * 0.5;
  CHECK(dsum == dref && dsum == 15 * 1008.0 + 390.0);
  int mn2 = 1 << 30, mx2 = -(1 << 30);
  for (int k = 0; k < n; k++) {
    int v = (int)((k * 2654435761u) >> 8) - (1 << 23);
    mn2 = v < mn2 ? v : mn2;
    mx2 = v > mx2 ? v : mx2;
  }
  CHECK(mn == mn2 && mx == mx2 && mn_at >= 0 && mx_at >= 0);

  /* Triangular nests: number of (a<b<c) triples below m equals C(m,3). */
  for (int m = 0; m <= 40; m += 7) {
    long triples = 0, pairs_sum = 0;
    for (int a = 0; a < m + zero; a++)
      for (int b = a + 1; b < m; b++) {
        pairs_sum += b - a;
        for (int c = b + 1; c < m; c++) triples++;
      }
    CHECK(triples == (long)m * (m - 1) * (m - 2) / 6);
    CHECK(pairs_sum == (long)(m + 1) * m * (m - 1) / 6);
  }

  /* 2-D recurrence that forbids loop interchange. */
  static int g[20][21];
  for (int c = 0; c < 21; c++) g[0][c] = c;
  for (int r = 1; r < 20; r++)
    for (int c = 0; c < 20; c++) g[r][c] = g[r - 1][c + 1] + 1;
  CHECK(g[19][0] == 19 + 19 && g[10][5] == 15 + 10);

  /* Loop-invariant condition inside the loop (unswitching candidate). */
  long with = 0, without = 0;
  for (int flag = 0; flag < 2; flag++)
    for (int k = 0; k < n; k++) {
      if (flag + zero) with += k;
      else without -= k;
    }
  CHECK(with == 499500 && without == -499500);

  /* do-while executes at least once even with an empty range. */
  int runs = 0, idx = n;
  do { runs++; idx++; } while (idx < n);
  CHECK(runs == 1 && idx == n + 1);

  if (failures) {
    fprintf(stderr, "loop_shapes: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
