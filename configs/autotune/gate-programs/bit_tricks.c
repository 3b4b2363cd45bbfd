/* Bit manipulation: several popcount, clz/ctz, bit-reverse, parity and
 * next-power-of-two implementations must agree on 20000 values and edge
 * cases; Gray code and Morton round trips; Gosper's hack enumerates C(20,5). */
#include <stdint.h>
#include <stdio.h>

static int pop_loop(uint32_t x) { int n = 0; for (int i = 0; i < 32; i++) n += (x >> i) & 1u; return n; }
static int pop_kernighan(uint32_t x) { int n = 0; while (x) { x &= x - 1; n++; } return n; }
static int pop_swar(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (int)((x * 0x01010101u) >> 24);
}
static uint8_t pop_table8[256];
static int pop_table(uint32_t x) {
  return pop_table8[x & 255] + pop_table8[x >> 8 & 255] + pop_table8[x >> 16 & 255] + pop_table8[x >> 24];
}
static int pop64(uint64_t x) { return pop_swar((uint32_t)x) + pop_swar((uint32_t)(x >> 32)); }

static int clz_loop(uint32_t x) { int n = 0; for (uint32_t m = 0x80000000u; m && !(x & m); m >>= 1) n++; return n; }
static int clz_binary(uint32_t x) {
  if (!x) return 32;
  int n = 0;
  if (!(x & 0xffff0000u)) { n += 16; x <<= 16; }
  if (!(x & 0xff000000u)) { n += 8; x <<= 8; }
  if (!(x & 0xf0000000u)) { n += 4; x <<= 4; }
  if (!(x & 0xc0000000u)) { n += 2; x <<= 2; }
  if (!(x & 0x80000000u)) { n += 1; }
  return n;
}
static int ctz_loop(uint32_t x) { if (!x) return 32; int n = 0; while (!(x & 1u)) { x >>= 1; n++; } return n; }
static int ctz_debruijn(uint32_t x) {
  static const int tab[32] = {0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                              31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9};
  if (!x) return 32;
  return tab[((x & (0u - x)) * 0x077CB531u) >> 27];
}
static uint32_t rev_loop(uint32_t x) { uint32_t r = 0; for (int i = 0; i < 32; i++) { r = r << 1 | (x & 1u); x >>= 1; } return r; }
static uint32_t rev_masks(uint32_t x) {
  x = (x >> 1 & 0x55555555u) | (x & 0x55555555u) << 1;
  x = (x >> 2 & 0x33333333u) | (x & 0x33333333u) << 2;
  x = (x >> 4 & 0x0f0f0f0fu) | (x & 0x0f0f0f0fu) << 4;
  x = (x >> 8 & 0x00ff00ffu) | (x & 0x00ff00ffu) << 8;
  return x >> 16 | x << 16;
}
static int parity_fold(uint32_t x) { x ^= x >> 16; x ^= x >> 8; x ^= x >> 4; return (0x6996 >> (x & 15)) & 1; }
static uint32_t next_pow2(uint32_t x) { /* smallest power of two >= x, 0 for x==0 or overflow */
  x--; x |= x >> 1; x |= x >> 2; x |= x >> 4; x |= x >> 8; x |= x >> 16; return x + 1;
}
static uint32_t next_pow2_loop(uint32_t x) {
  if (x == 0) return 0;
  uint64_t p = 1;
  while (p < x) p <<= 1;
  return (uint32_t)p; /* 2^32 truncates to 0, matching the bit trick */
}
static uint32_t gray(uint32_t x) { return x ^ (x >> 1); }
static uint32_t ungray(uint32_t g) { for (uint32_t s = 1; s < 32; s <<= 1) g ^= g >> s; return g; }
static uint32_t spread(uint32_t x) { /* 16 bits -> even positions */
  x &= 0xffffu;
  x = (x | x << 8) & 0x00ff00ffu; x = (x | x << 4) & 0x0f0f0f0fu;
  x = (x | x << 2) & 0x33333333u; x = (x | x << 1) & 0x55555555u;
  return x;
}
static uint32_t compact(uint32_t x) {
  x &= 0x55555555u;
  x = (x | x >> 1) & 0x33333333u; x = (x | x >> 2) & 0x0f0f0f0fu;
  x = (x | x >> 4) & 0x00ff00ffu; x = (x | x >> 8) & 0x0000ffffu;
  return x;
}

int main(void) {
  int failures = 0;
  for (int i = 0; i < 256; i++) pop_table8[i] = (uint8_t)pop_kernighan((uint32_t)i);
  uint32_t edge[] = {0u, 1u, 2u, 3u, 0x80000000u, 0x80000001u, 0x7fffffffu, 0xffffffffu,
                     0xaaaaaaaau, 0x55555555u, 0x00010000u, 0x0000ffffu, 0xffff0000u};
  uint32_t s = 0x2545F491u;
  for (int i = 0; i < 20000; i++) {
    uint32_t x;
    if (i < (int)(sizeof edge / sizeof edge[0])) x = edge[i];
    else {
      s ^= s << 13; s ^= s >> 17; s ^= s << 5;
      x = s >> (i % 29); /* vary magnitude so clz takes every value */
    }
    int p = pop_loop(x);
    if (pop_kernighan(x) != p || pop_swar(x) != p || pop_table(x) != p) { failures++; fprintf(stderr, "popcount %08x\n", (unsigned)x); }
    if (clz_binary(x) != clz_loop(x)) { failures++; fprintf(stderr, "clz %08x\n", (unsigned)x); }
    if (ctz_debruijn(x) != ctz_loop(x)) { failures++; fprintf(stderr, "ctz %08x\n", (unsigned)x); }
    if (rev_masks(x) != rev_loop(x) || rev_loop(rev_loop(x)) != x) { failures++; fprintf(stderr, "reverse %08x\n", (unsigned)x); }
    if (parity_fold(x) != (p & 1)) { failures++; fprintf(stderr, "parity %08x\n", (unsigned)x); }
    if (next_pow2(x) != next_pow2_loop(x)) { failures++; fprintf(stderr, "next_pow2 %08x\n", (unsigned)x); }
    if (ungray(gray(x)) != x || pop_loop(gray(x) ^ gray(x + 1u)) != 1) { failures++; fprintf(stderr, "gray %08x\n", (unsigned)x); }
    uint32_t lo = x & 0xffffu, hi = x >> 16, m = spread(lo) | spread(hi) << 1;
    if (compact(m) != lo || compact(m >> 1) != hi || pop_loop(m) != p) { failures++; fprintf(stderr, "morton %08x\n", (unsigned)x); }
    if (clz_loop(x) + ctz_loop(x) + p > 33 + (x == 0 ? 31 : 0)) failures++;
    uint64_t w = (uint64_t)x << 32 | rev_loop(x);
    if (pop64(w) != 2 * p) failures++;
  }

  /* Gosper's hack: all 20-bit words with exactly 5 bits set, in order. */
  unsigned count = 0;
  uint32_t prev = 0, sum = 0;
  int ordered = 1;
  for (uint32_t v = 0x1fu; v < (1u << 20);) {
    if (pop_swar(v) != 5 || v <= prev) ordered = 0;
    prev = v;
    sum += v;
    count++;
    uint32_t c = v & (0u - v), r = v + c;
    v = (((r ^ v) >> 2) / c) | r;
  }
  /* Each of the 20 bits is set in C(19,4) = 3876 of the words. */
  if (count != 15504 || !ordered || sum != 3876u * 0xfffffu) {
    fprintf(stderr, "gosper: count %u sum %u\n", count, (unsigned)sum);
    failures++;
  }
  return failures ? 1 : 0;
}
