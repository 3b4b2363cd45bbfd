/* C integer semantics: unsigned wrap-around, usual arithmetic conversions in
 * signed/unsigned comparisons, integer promotion of narrow types, narrowing,
 * shifts, division/modulo signs, all on values the compiler cannot see. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "int_conversions: line %d: %s\n", __LINE__, #c);         \
      failures++;                                                              \
    }                                                                          \
  } while (0)

/* Opaque values: the optimizer must not assume anything about them. */
static volatile int v_minus1 = -1, v_zero = 0, v_int_max = INT_MAX, v_int_min = INT_MIN;
static volatile unsigned v_umax = UINT_MAX, v_one = 1u;
static volatile unsigned char v_uc200 = 200;
static volatile signed char v_sc_m100 = -100;
static volatile unsigned short v_us60000 = 60000;
static volatile short v_s_m30000 = -30000;
static volatile long long v_ll_big = 0x123456789LL;

/* The implicit conversion is the point here; -Wextra would flag it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
static int lt_mixed(int a, unsigned b) { return a < b; } /* a converted to unsigned */
#pragma GCC diagnostic pop
static int lt_long(long long a, unsigned b) { return a < b; } /* b converted to long long */

static unsigned sum_wrapping(unsigned start, unsigned count) {
  unsigned s = 0;
  for (unsigned i = 0; i < count; i++) s += start + i; /* wraps */
  return s;
}

int main(void) {
  int m1 = v_minus1, zero = v_zero, imax = v_int_max, imin = v_int_min;
  unsigned umax = v_umax, one = v_one;

  /* -1 < 1u is false: -1 converts to UINT_MAX. */
  CHECK(lt_mixed(m1, one) == 0);
  CHECK(lt_mixed(zero, one) == 1);
  CHECK(lt_long(m1, one) == 1);
  CHECK((unsigned)m1 == umax);
  CHECK(umax + one == 0u);
  CHECK(zero - one == umax); /* zero converts to unsigned */
  CHECK((long long)(zero - one) == 4294967295LL);
  CHECK((long long)zero - one == -1LL);

  /* Integer promotions: narrow types are promoted to int before arithmetic. */
  unsigned char uc = v_uc200;
  signed char sc = v_sc_m100;
  unsigned short us = v_us60000;
  short ss = v_s_m30000;
  CHECK(uc + uc == 400);            /* no 8-bit wrap */
  CHECK((unsigned char)(uc + uc) == 144);
  CHECK(sc * 2 == -200);
  CHECK(us * 2 == 120000);          /* int arithmetic, no 16-bit wrap */
  CHECK((unsigned short)(us * 2) == 54464);
  CHECK(~uc == -201);               /* ~ applies to the promoted int */
  CHECK((unsigned char)~uc == 55);
  CHECK(ss - 10000 == -40000);
  CHECK(-sc == 100);
  CHECK((uc > sc) == 1);            /* both promoted to int */
  unsigned char small = (unsigned char)(uc << 1);
  CHECK(small == 144);
  CHECK((uc >> 1) == 100 && (sc >> 1) == -50);  /* implementation-defined: arithmetic */
  CHECK(sizeof(uc + uc) == sizeof(int));

  /* Unsigned narrowing is modulo 2^N. */
  long long big = v_ll_big;
  CHECK((uint32_t)big == 0x23456789u);
  CHECK((uint16_t)big == 0x6789u);
  CHECK((uint8_t)(big >> 8) == 0x67u);
  CHECK((uint8_t)m1 == 255u && (uint16_t)m1 == 65535u);

  /* Division and remainder truncate toward zero. */
  int seven = 7 + zero, three = 3 + zero;
  CHECK(-seven / three == -2 && -seven % three == -1);
  CHECK(seven / -three == -2 && seven % -three == 1);
  CHECK((unsigned)(-seven) / 3u == 1431655763u);
  CHECK(imin % 2 == 0 && imax % 2 == 1);
  CHECK(imin + imax == -1);
  CHECK((unsigned)imin == 2147483648u);
  CHECK(-(long long)imin == 2147483648LL);

  /* Shifts: unsigned shifts do not sign-extend; large counts via 64-bit. */
  CHECK((umax >> 31) == 1u);
  CHECK(((unsigned)imin >> 31) == 1u);
  CHECK(((uint64_t)umax << 32 >> 32) == umax);
  CHECK((one << 31) == 0x80000000u);
  CHECK((1ULL << (31 + one)) == 0x100000000ULL);

  /* Loop counters that wrap: unsigned loop down to zero, and a sum that wraps. */
  unsigned iters = 0, last = 99;
  for (unsigned i = 10u + zero; i-- > 0;) { iters++; last = i; }
  CHECK(iters == 10 && last == 0);
  CHECK(sum_wrapping(umax - 2u, 6u) == 0u - 3u); /* -3-2-1+0+1+2 */
  size_t n = 0;
  for (size_t k = (size_t)seven; k != (size_t)-1; k--) n++;
  CHECK(n == 8);

  /* Mixed-sign comparisons in a search: count elements below a threshold. */
  int vals[] = {-5, -1, 0, 1, 2147483647, -2147483647 - 1, 42};
  unsigned below_signed = 0, below_unsigned = 0;
  for (int i = 0; i < 7; i++) {
    below_signed += vals[i] < seven;
    below_unsigned += (unsigned)vals[i] < (unsigned)seven;
  }
  CHECK(below_signed == 5 && below_unsigned == 2);

  /* Conversions between floating point and integers at the edges. */
  double d = (double)umax;
  CHECK(d == 4294967295.0 && (unsigned)d == umax);
  CHECK((int)-2.9 == -2 && (int)2.9 == 2);
  CHECK((long long)(double)(1LL << 53) == (1LL << 53));
  CHECK((unsigned char)(int)255.5 == 255);

  if (failures) {
    fprintf(stderr, "int_conversions: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
