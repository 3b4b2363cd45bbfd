/* memcpy/memmove/memset/memcmp against byte-loop references for every small
 * overlap and length, and pointer aliasing that optimizers must respect:
 * same-object arguments, overlapping in-place loops, char access to objects. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "mem_alias: line %d: %s\n", __LINE__, #c);               \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static void ref_move(uint8_t *dst, const uint8_t *src, size_t n) {
  uint8_t tmp[256];
  for (size_t i = 0; i < n; i++) tmp[i] = src[i];
  for (size_t i = 0; i < n; i++) dst[i] = tmp[i];
}
static void my_move(void *dst, const void *src, size_t n) {
  uint8_t *d = dst;
  const uint8_t *s = src;
  if (d < s) for (size_t i = 0; i < n; i++) d[i] = s[i];
  else for (size_t i = n; i-- > 0;) d[i] = s[i];
}

static int store_then_load(int *a, int *b) {
  *a = 1;
  *b = 2;
  return *a; /* 2 when a == b */
}
static long sum_and_clear(long *arr, long *total, int n) {
  for (int i = 0; i < n; i++) *total += arr[i]; /* total may point into arr */
  return *total;
}
static void smooth(int *dst, const int *src, int n) { /* dst may equal src */
  for (int i = 1; i < n; i++) dst[i] = (src[i - 1] + src[i]) / 2;
}
static void smooth_ref(int *dst, const int *src, int n) {
  for (int i = 1; i < n; i++) {
    int v = (src[i - 1] + src[i]) / 2;
    dst[i] = v;
  }
}
typedef struct { int a[8]; double d; } Rec;
static void copy_rec(Rec *dst, const Rec *src) { *dst = *src; }

int main(void) {
  uint8_t base[128], a[128], b[128], c[128];
  for (int i = 0; i < 128; i++) base[i] = (uint8_t)(i * 29 + 7);
  for (int off = -9; off <= 9; off++)
    for (size_t n = 0; n <= 48; n++) {
      memcpy(a, base, sizeof a); memcpy(b, base, sizeof b); memcpy(c, base, sizeof c);
      memmove(a + 40 + off, a + 40, n);
      ref_move(b + 40 + off, b + 40, n);
      my_move(c + 40 + off, c + 40, n);
      if (memcmp(a, b, sizeof a) != 0 || memcmp(c, b, sizeof c) != 0) {
        fprintf(stderr, "mem_alias: memmove offset %d length %zu\n", off, n);
        failures++;
      }
    }
  for (size_t start = 0; start < 16; start++)
    for (size_t n = 0; n <= 40; n++) {
      memcpy(a, base, sizeof a);
      memset(a + start, (int)(start + n), n);
      for (size_t i = 0; i < sizeof a; i++) {
        uint8_t want = i >= start && i < start + n ? (uint8_t)(start + n) : base[i];
        if (a[i] != want) { fprintf(stderr, "mem_alias: memset %zu %zu\n", start, n); failures++; break; }
      }
    }
  memcpy(a, base, sizeof a);
  memcpy(b, base, sizeof b);
  CHECK(memcmp(a, b, 128) == 0);
  b[77] = (uint8_t)(b[77] + 1);
  CHECK(memcmp(a, b, 128) < 0 && memcmp(b, a, 128) > 0 && memcmp(a, b, 77) == 0);
  a[0] = 0x80; b[0] = 0x7f; /* memcmp compares as unsigned char */
  CHECK(memcmp(a, b, 1) > 0);

  int x = 0, y = 0;
  CHECK(store_then_load(&x, &y) == 1);
  CHECK(store_then_load(&x, &x) == 2);

  long arr[6] = {1, 2, 3, 4, 5, 0};
  CHECK(sum_and_clear(arr, &arr[5], 6) == 30); /* total aliases arr[5]: 15, then doubles */
  long arr2[6] = {1, 2, 3, 4, 5, 0};
  CHECK(sum_and_clear(arr2, &arr2[2], 6) == 21); /* 3+1+2 -> [2]=6 -> +6+4+5+0 */

  int s1[32], s2[32];
  for (int i = 0; i < 32; i++) s1[i] = s2[i] = i * i * ((i & 1) ? -3 : 5);
  smooth(s1, s1, 32);       /* in place: each step reads the value just written */
  smooth_ref(s2, s2, 32);
  CHECK(memcmp(s1, s2, sizeof s1) == 0 && s1[5] == -20); /* value from Python */
  int fresh[32], out[32];
  for (int i = 0; i < 32; i++) fresh[i] = i * i * ((i & 1) ? -3 : 5);
  out[0] = fresh[0];
  smooth(out, fresh, 32);   /* no overlap: uses only original values */
  CHECK(out[5] == (fresh[4] + fresh[5]) / 2 && out[5] != s1[5]);

  /* Objects inspected through unsigned char pointers. */
  uint32_t word = 0x11223344u;
  unsigned char *bytes = (unsigned char *)&word;
  unsigned sum = 0;
  for (size_t i = 0; i < sizeof word; i++) sum += bytes[i];
  CHECK(sum == 0x11 + 0x22 + 0x33 + 0x44);
  bytes[0] ^= 0xFF; /* write through the char alias, then read the word */
  CHECK(word == 0x112233BBu || word == 0xEE223344u);
  float f = 3.0f;
  uint32_t fbits;
  memcpy(&fbits, &f, sizeof f);
  CHECK(fbits == 0x40400000u);
  fbits ^= 0x80000000u;
  memcpy(&f, &fbits, sizeof f);
  CHECK(f == -3.0f);

  Rec r = {{1, 2, 3, 4, 5, 6, 7, 8}, 0.5}, r2;
  copy_rec(&r, &r); /* self-copy */
  CHECK(r.a[7] == 8 && r.d == 0.5);
  copy_rec(&r2, &r);
  r.a[0] = 100;
  CHECK(r2.a[0] == 1);

  /* memcpy into a struct member from a shifted view of the same array. */
  int ring[10];
  for (int i = 0; i < 10; i++) ring[i] = i;
  memmove(ring, ring + 1, 9 * sizeof ring[0]);
  ring[9] = 0;
  CHECK(ring[0] == 1 && ring[8] == 9 && ring[9] == 0);
  memmove(ring + 1, ring, 9 * sizeof ring[0]);
  CHECK(ring[0] == 1 && ring[1] == 1 && ring[9] == 9);

  if (failures) {
    fprintf(stderr, "mem_alias: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
