/* Bitsets: an odd-only bitset sieve to 10^6 and a segmented sieve must agree
 * and match pi(10^6) = 78498 and other counts from Python; bitset algebra
 * (and/or/andnot, popcount, iteration by lowest set bit) is cross-checked. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT 1000000u
typedef uint64_t Word;
#define WBITS 64u

static void bs_set(Word *b, uint32_t i) { b[i / WBITS] |= (Word)1 << (i % WBITS); }
static void bs_clear(Word *b, uint32_t i) { b[i / WBITS] &= ~((Word)1 << (i % WBITS)); }
static int bs_test(const Word *b, uint32_t i) { return (int)(b[i / WBITS] >> (i % WBITS) & 1u); }
static int popcount64(Word x) {
  int n = 0;
  while (x) { x &= x - 1; n++; }
  return n;
}
static int ctz64(Word x) { /* x != 0 */
  int n = 0;
  while (!(x & 1u)) { x >>= 1; n++; }
  return n;
}

/* Bit k of `odd` represents the number 2k+1. */
static Word *sieve_odd(void) {
  size_t nbits = LIMIT / 2, nwords = (nbits + WBITS - 1) / WBITS;
  Word *odd = malloc(nwords * sizeof *odd);
  memset(odd, 0xff, nwords * sizeof *odd);
  bs_clear(odd, 0); /* 1 is not prime */
  for (uint32_t i = 3; i * i < LIMIT; i += 2)
    if (bs_test(odd, i / 2))
      for (uint32_t j = i * i; j < LIMIT; j += 2 * i) bs_clear(odd, j / 2);
  for (size_t k = nbits; k < nwords * WBITS; k++) bs_clear(odd, (uint32_t)k); /* tail */
  return odd;
}

static int is_prime_odd(const Word *odd, uint32_t n) {
  if (n < 2) return 0;
  if (n == 2) return 1;
  return (n & 1u) && bs_test(odd, n / 2);
}

/* Segmented sieve over [lo, hi) using small primes; returns count. */
static unsigned segmented_count(uint32_t lo, uint32_t hi) {
  static uint8_t small[1001], seg[32768];
  memset(small, 1, sizeof small);
  small[0] = small[1] = 0;
  for (int i = 2; i * i <= 1000; i++)
    if (small[i])
      for (int j = i * i; j <= 1000; j += i) small[j] = 0;
  unsigned count = 0;
  for (uint32_t base = lo; base < hi; base += sizeof seg) {
    uint32_t top = base + (uint32_t)sizeof seg < hi ? base + (uint32_t)sizeof seg : hi;
    memset(seg, 1, sizeof seg);
    for (uint32_t p = 2; p <= 1000 && p * p < top; p++) {
      if (!small[p]) continue;
      uint32_t start = (base + p - 1) / p * p;
      if (start < p * p) start = p * p;
      for (uint32_t m = start; m < top; m += p) seg[m - base] = 0;
    }
    for (uint32_t n = base; n < top; n++) count += n >= 2 && seg[n - base];
  }
  return count;
}

int main(void) {
  int failures = 0;
  Word *odd = sieve_odd();
  size_t nwords = (LIMIT / 2 + WBITS - 1) / WBITS;

  unsigned count = 1; /* the prime 2 */
  for (size_t w = 0; w < nwords; w++) count += (unsigned)popcount64(odd[w]);
  if (count != 78498) { fprintf(stderr, "bitset_sieve: pi(10^6) = %u\n", count); failures++; }

  /* Iterate set bits by lowest-bit extraction; sum primes below 10^5. */
  uint64_t sum = 2;
  unsigned twins = 0, mod1 = 0, mod3 = 0;
  for (size_t w = 0; w < nwords; w++) {
    for (Word x = odd[w]; x; x &= x - 1) {
      uint32_t p = (uint32_t)(2 * (w * WBITS + (size_t)ctz64(x)) + 1);
      if (p < 100000) sum += p;
      if (p + 2 < LIMIT && is_prime_odd(odd, p + 2)) twins++;
      if (p % 4 == 1) mod1++; else mod3++;
    }
  }
  if (sum != 454396537u || twins != 8169 || mod1 != 39175 || mod3 != 39322) {
    fprintf(stderr, "bitset_sieve: sum %llu twins %u mod4 %u/%u\n", (unsigned long long)sum, twins, mod1, mod3);
    failures++;
  }
  if (segmented_count(0, LIMIT) != 78498 || segmented_count(500000, 600000) != 7560) {
    fprintf(stderr, "bitset_sieve: segmented sieve disagrees\n");
    failures++;
  }

  /* Bitset algebra on {multiples of 3} and {multiples of 5} below 3000. */
  enum { NB = 3000, NW = (NB + 63) / 64 };
  Word m3[NW] = {0}, m5[NW] = {0}, both[NW], either[NW], only3[NW];
  for (uint32_t i = 0; i < NB; i += 3) bs_set(m3, i);
  for (uint32_t i = 0; i < NB; i += 5) bs_set(m5, i);
  int nb = 0, ne = 0, no = 0;
  for (int w = 0; w < NW; w++) {
    both[w] = m3[w] & m5[w];
    either[w] = m3[w] | m5[w];
    only3[w] = m3[w] & ~m5[w];
    nb += popcount64(both[w]);
    ne += popcount64(either[w]);
    no += popcount64(only3[w]);
  }
  if (nb != 200 || ne != 1000 + 600 - 200 || no != 800) {
    fprintf(stderr, "bitset_sieve: algebra %d %d %d\n", nb, ne, no);
    failures++;
  }
  for (uint32_t i = 0; i < NB; i++)
    if (bs_test(both, i) != (i % 15 == 0)) { failures++; break; }
  free(odd);
  return failures ? 1 : 0;
}
