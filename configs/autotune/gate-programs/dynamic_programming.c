/* Dynamic programming over 1-D and 2-D tables: edit distance (full table vs
 * two rows), LCS, 0/1 knapsack (table vs rolling array vs brute force), LIS
 * (O(n^2) vs patience sorting), coin change, matrix-chain order. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "dynamic_programming: line %d: %s\n", __LINE__, #c);     \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static int min3(int a, int b, int c) { int m = a < b ? a : b; return m < c ? m : c; }

static int edit_full(const char *a, const char *b) {
  int n = (int)strlen(a), m = (int)strlen(b);
  static int d[64][64];
  for (int i = 0; i <= n; i++) d[i][0] = i;
  for (int j = 0; j <= m; j++) d[0][j] = j;
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= m; j++)
      d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]));
  return d[n][m];
}
static int edit_rows(const char *a, const char *b) {
  int n = (int)strlen(a), m = (int)strlen(b);
  int rows[2][64];
  for (int j = 0; j <= m; j++) rows[0][j] = j;
  for (int i = 1; i <= n; i++) {
    int *cur = rows[i & 1], *prev = rows[(i - 1) & 1];
    cur[0] = i;
    for (int j = 1; j <= m; j++)
      cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]));
  }
  return rows[n & 1][m];
}

static int lcs(const char *a, const char *b, char *out) {
  int n = (int)strlen(a), m = (int)strlen(b);
  static int L[64][64];
  for (int i = 0; i <= n; i++)
    for (int j = 0; j <= m; j++)
      L[i][j] = i == 0 || j == 0 ? 0
              : a[i - 1] == b[j - 1] ? L[i - 1][j - 1] + 1
              : L[i - 1][j] > L[i][j - 1] ? L[i - 1][j] : L[i][j - 1];
  int len = L[n][m], k = len;
  out[k] = 0;
  for (int i = n, j = m; i > 0 && j > 0;) {
    if (a[i - 1] == b[j - 1]) { out[--k] = a[i - 1]; i--; j--; }
    else if (L[i - 1][j] >= L[i][j - 1]) i--;
    else j--;
  }
  return len;
}
static int is_subsequence(const char *s, const char *t) {
  for (; *t && *s; t++) if (*s == *t) s++;
  return *s == 0;
}

static int knap_table(const int *w, const int *v, int n, int cap) {
  static int K[21][1001];
  for (int i = 0; i <= n; i++)
    for (int c = 0; c <= cap; c++)
      K[i][c] = i == 0 ? 0 : w[i - 1] <= c && K[i - 1][c - w[i - 1]] + v[i - 1] > K[i - 1][c]
                                 ? K[i - 1][c - w[i - 1]] + v[i - 1] : K[i - 1][c];
  return K[n][cap];
}
static int knap_rolling(const int *w, const int *v, int n, int cap) {
  int best[1001] = {0};
  for (int i = 0; i < n; i++)
    for (int c = cap; c >= w[i]; c--) /* downward: each item at most once */
      if (best[c - w[i]] + v[i] > best[c]) best[c] = best[c - w[i]] + v[i];
  return best[cap];
}
static int knap_brute(const int *w, const int *v, int n, int cap) {
  int best = 0;
  for (uint32_t mask = 0; mask < (1u << n); mask++) {
    int tw = 0, tv = 0;
    for (int i = 0; i < n; i++)
      if (mask >> i & 1u) { tw += w[i]; tv += v[i]; }
    if (tw <= cap && tv > best) best = tv;
  }
  return best;
}

static int lis_quadratic(const int *a, int n) {
  int len[600], best = 0;
  for (int i = 0; i < n; i++) {
    len[i] = 1;
    for (int j = 0; j < i; j++)
      if (a[j] < a[i] && len[j] + 1 > len[i]) len[i] = len[j] + 1;
    if (len[i] > best) best = len[i];
  }
  return best;
}
static int lis_patience(const int *a, int n) {
  int tails[600], size = 0;
  for (int i = 0; i < n; i++) {
    int lo = 0, hi = size;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (tails[mid] < a[i]) lo = mid + 1; else hi = mid;
    }
    tails[lo] = a[i];
    if (lo == size) size++;
  }
  return size;
}

static long coin_ways(int target) {
  static const int coins[] = {1, 2, 5, 10, 20, 50, 100, 200};
  long ways[201] = {1};
  for (int c = 0; c < 8; c++)
    for (int v = coins[c]; v <= target; v++) ways[v] += ways[v - coins[c]];
  return ways[target];
}

static long matrix_chain(const int *p, int n) { /* n matrices, dims p[0..n] */
  static long m[16][16];
  for (int i = 0; i < n; i++) m[i][i] = 0;
  for (int len = 2; len <= n; len++)
    for (int i = 0; i + len - 1 < n; i++) {
      int j = i + len - 1;
      m[i][j] = -1;
      for (int k = i; k < j; k++) {
        long cost = m[i][k] + m[k + 1][j] + (long)p[i] * p[k + 1] * p[j + 1];
        if (m[i][j] < 0 || cost < m[i][j]) m[i][j] = cost;
      }
    }
  return m[0][n - 1];
}

int main(void) {
  static const struct { const char *a, *b; int d; } ed[] = {
      {"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"intention", "execution", 5},
      {"", "abc", 3}, {"sunday", "saturday", 3}, {"same", "same", 0}};
  for (size_t i = 0; i < sizeof ed / sizeof ed[0]; i++) {
    CHECK(edit_full(ed[i].a, ed[i].b) == ed[i].d && edit_rows(ed[i].a, ed[i].b) == ed[i].d);
    CHECK(edit_full(ed[i].b, ed[i].a) == ed[i].d);
  }
  char sub[64];
  CHECK(lcs("AGGTAB", "GXTXAYB", sub) == 4 && strcmp(sub, "GTAB") == 0);
  CHECK(lcs("ABCBDAB", "BDCABA", sub) == 4 && is_subsequence(sub, "ABCBDAB") && is_subsequence(sub, "BDCABA"));
  CHECK(lcs("the quick brown fox", "a lazy dog jumps over", sub) == 5 && strlen(sub) == 5);

  int w[20], v[20];
  uint32_t s = 31337u;
  for (int i = 0; i < 16; i++) {
    s = s * 1103515245u + 12345u; w[i] = 5 + (int)((s >> 16) % 60);
    s = s * 1103515245u + 12345u; v[i] = 1 + (int)((s >> 16) % 100);
  }
  for (int cap = 0; cap <= 400; cap += 57) {
    int t = knap_table(w, v, 16, cap);
    CHECK(t == knap_rolling(w, v, 16, cap) && knap_table(w, v, 12, cap) == knap_brute(w, v, 12, cap));
  }
  static const int cw[] = {10, 20, 30}, cv[] = {60, 100, 120};
  CHECK(knap_table(cw, cv, 3, 50) == 220 && knap_rolling(cw, cv, 3, 50) == 220);

  int seq[600];
  for (int n = 1; n <= 600; n += 61) {
    for (int i = 0; i < n; i++) { s = s * 1103515245u + 12345u; seq[i] = (int)((s >> 16) % 1000); }
    CHECK(lis_quadratic(seq, n) == lis_patience(seq, n));
  }
  int inc[50], dec[50];
  for (int i = 0; i < 50; i++) { inc[i] = i; dec[i] = -i; }
  CHECK(lis_patience(inc, 50) == 50 && lis_patience(dec, 50) == 1 && lis_quadratic(dec, 50) == 1);

  CHECK(coin_ways(200) == 73682 && coin_ways(0) == 1 && coin_ways(5) == 4);

  static const int p1[] = {40, 20, 30, 10, 30}, p2[] = {10, 20, 30, 40, 30},
                   p3[] = {30, 35, 15, 5, 10, 20, 25};
  CHECK(matrix_chain(p1, 4) == 26000 && matrix_chain(p2, 4) == 30000 && matrix_chain(p3, 6) == 15125);

  if (failures) {
    fprintf(stderr, "dynamic_programming: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
