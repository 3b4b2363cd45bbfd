/* Sorts pseudo-random, sorted, reversed and few-distinct-value arrays with
 * insertion, shell, heap, merge, quick and LSD radix sort and checks each
 * result is sorted, a permutation of the input, and equal to qsort's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1500

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rng(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static void insertion_sort(int *a, int n) {
  for (int i = 1; i < n; i++) {
    int v = a[i], j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
}

static void shell_sort(int *a, int n) {
  static const int gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
  for (unsigned g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
    int gap = gaps[g];
    for (int i = gap; i < n; i++) {
      int v = a[i], j;
      for (j = i; j >= gap && a[j - gap] > v; j -= gap) a[j] = a[j - gap];
      a[j] = v;
    }
  }
}

static void sift_down(int *a, size_t start, size_t end) {
  size_t root = start;
  while (2 * root + 1 <= end) {
    size_t child = 2 * root + 1, swap = root;
    if (a[swap] < a[child]) swap = child;
    if (child + 1 <= end && a[swap] < a[child + 1]) swap = child + 1;
    if (swap == root) return;
    int t = a[root]; a[root] = a[swap]; a[swap] = t;
    root = swap;
  }
}

static void heap_sort(int *a, size_t n) {
  if (n < 2) return;
  for (size_t start = (n - 2) / 2 + 1; start-- > 0;) sift_down(a, start, n - 1);
  for (size_t end = n - 1; end > 0; end--) {
    int t = a[end]; a[end] = a[0]; a[0] = t;
    sift_down(a, 0, end - 1);
  }
}

static void merge_sort_rec(int *a, int *tmp, size_t lo, size_t hi) {
  if (hi - lo < 2) return;
  size_t mid = lo + (hi - lo) / 2;
  merge_sort_rec(a, tmp, lo, mid);
  merge_sort_rec(a, tmp, mid, hi);
  size_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi) tmp[k++] = a[j] < a[i] ? a[j++] : a[i++];
  while (i < mid) tmp[k++] = a[i++];
  while (j < hi) tmp[k++] = a[j++];
  memcpy(a + lo, tmp + lo, (hi - lo) * sizeof *a);
}

static void quick_sort(int *a, int lo, int hi) { /* Hoare partition, inclusive */
  while (lo < hi) {
    int pivot = a[lo + (hi - lo) / 2];
    int i = lo - 1, j = hi + 1;
    for (;;) {
      do i++; while (a[i] < pivot);
      do j--; while (a[j] > pivot);
      if (i >= j) break;
      int t = a[i]; a[i] = a[j]; a[j] = t;
    }
    if (j - lo < hi - j) { quick_sort(a, lo, j); lo = j + 1; }
    else { quick_sort(a, j + 1, hi); hi = j; }
  }
}

static void radix_sort(int *a, int *tmp, size_t n) { /* signed via bias */
  for (unsigned shift = 0; shift < 32; shift += 8) {
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++)
      count[(((uint32_t)a[i] ^ 0x80000000u) >> shift & 0xffu) + 1]++;
    for (int b = 0; b < 256; b++) count[b + 1] += count[b];
    for (size_t i = 0; i < n; i++)
      tmp[count[((uint32_t)a[i] ^ 0x80000000u) >> shift & 0xffu]++] = a[i];
    memcpy(a, tmp, n * sizeof *a);
  }
}

static int failures;

static void verify(const char *alg, const char *input, const int *got,
                   const int *ref, int n, uint64_t sum, uint64_t xsum) {
  uint64_t s = 0, x = 0;
  for (int i = 0; i < n; i++) {
    s += (uint32_t)got[i];
    x ^= (uint64_t)(uint32_t)got[i] * 0x9E3779B97F4A7C15ull;
    if (i > 0 && got[i - 1] > got[i]) {
      fprintf(stderr, "sort: %s on %s: not sorted at %d\n", alg, input, i);
      failures++;
      return;
    }
  }
  if (s != sum || x != xsum || memcmp(got, ref, (size_t)n * sizeof *got) != 0) {
    fprintf(stderr, "sort: %s on %s: not a permutation / differs from qsort\n", alg, input);
    failures++;
  }
}

int main(void) {
  static int input[N], ref[N], work[N], tmp[N];
  static const char *kinds[] = {"random", "sorted", "reversed", "few-values", "extremes"};
  for (int kind = 0; kind < 5; kind++) {
    for (int n = 0; n <= N; n += (n < 20 ? 1 : 373)) {
      for (int i = 0; i < n; i++) {
        switch (kind) {
        case 0: input[i] = (int)rng(); break;
        case 1: input[i] = i * 3 - 1000; break;
        case 2: input[i] = n - i; break;
        case 3: input[i] = (int)(rng() % 4) - 2; break;
        default: input[i] = (i & 1) ? INT32_MIN + i : INT32_MAX - i; break;
        }
      }
      uint64_t sum = 0, xsum = 0;
      for (int i = 0; i < n; i++) {
        sum += (uint32_t)input[i];
        xsum ^= (uint64_t)(uint32_t)input[i] * 0x9E3779B97F4A7C15ull;
      }
      memcpy(ref, input, sizeof input);
      qsort(ref, (size_t)n, sizeof *ref, cmp_int);

      memcpy(work, input, sizeof input); insertion_sort(work, n);
      verify("insertion", kinds[kind], work, ref, n, sum, xsum);
      memcpy(work, input, sizeof input); shell_sort(work, n);
      verify("shell", kinds[kind], work, ref, n, sum, xsum);
      memcpy(work, input, sizeof input); heap_sort(work, (size_t)n);
      verify("heap", kinds[kind], work, ref, n, sum, xsum);
      memcpy(work, input, sizeof input); merge_sort_rec(work, tmp, 0, (size_t)n);
      verify("merge", kinds[kind], work, ref, n, sum, xsum);
      memcpy(work, input, sizeof input); quick_sort(work, 0, n - 1);
      verify("quick", kinds[kind], work, ref, n, sum, xsum);
      memcpy(work, input, sizeof input); radix_sort(work, tmp, (size_t)n);
      verify("radix", kinds[kind], work, ref, n, sum, xsum);
    }
  }
  if (failures) {
    fprintf(stderr, "sort: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
