/* Volatile: an emulated device register block accessed through a volatile
 * pointer, polling loops, and the same arithmetic evaluated on literal
 * constants (foldable) and on volatile-read values (run time) must agree. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "volatile_fold: line %d: %s\n", __LINE__, #c);           \
      failures++;                                                              \
    }                                                                          \
  } while (0)

typedef struct {
  uint32_t ctrl;
  uint32_t status;
  uint32_t data;
  uint32_t count;
} Regs;

static Regs device;
static volatile Regs *const dev = &device;

/* "Hardware" step: acts on the register block as a device would. */
static void device_tick(void) {
  if (dev->ctrl & 1u) {
    dev->data = dev->data * 1103515245u + 12345u;
    dev->count = dev->count + 1;
    if (dev->count % 8 == 0) dev->status = dev->status | 2u;
  }
}

static inline int32_t sdiv(int32_t a, int32_t b) { return a / b; }
static inline int32_t srem(int32_t a, int32_t b) { return a % b; }
static inline uint32_t udiv(uint32_t a, uint32_t b) { return a / b; }
static inline uint32_t rotl(uint32_t x, unsigned r) { return (x << (r & 31)) | (x >> ((32 - r) & 31)); }
static inline uint32_t bswap(uint32_t x) {
  return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}
static inline uint64_t mulhi(uint64_t a, uint64_t b) {
  uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
  uint64_t t = ah * bl + ((al * bl) >> 32);
  uint64_t w1 = (uint32_t)t + al * bh;
  return ah * bh + (t >> 32) + (w1 >> 32);
}
static inline int32_t sat_add(int32_t a, int32_t b) {
  if (b > 0 && a > INT32_MAX - b) return INT32_MAX;
  if (b < 0 && a < INT32_MIN - b) return INT32_MIN;
  return a + b;
}
static inline int64_t ashr(int64_t v, unsigned s) { /* arithmetic shift, portable */
  return v >= 0 ? (int64_t)((uint64_t)v >> s) : -1 - (int64_t)((uint64_t)(-1 - v) >> s);
}

static volatile int32_t vA[] = {-7, 7, -2147483647 - 1, 2147483647, 0, -1, 1000000007, -123456789};
static volatile int32_t vB[] = {2, -2, 3, -3, 5, 1, 65536, -10};
static volatile uint32_t vU[] = {0u, 1u, 0x80000000u, 0xffffffffu, 0x12345678u, 0xdeadbeefu};
static volatile uint64_t vW[] = {0xffffffffffffffffull, 0x123456789abcdef0ull, 3ull, 0x8000000000000000ull};

int main(void) {
  /* Device emulation: enable, poll until the status bit appears. */
  dev->ctrl = 1u;
  dev->data = 1u;
  int polls = 0;
  while (!(dev->status & 2u)) {
    device_tick();
    polls++;
  }
  CHECK(polls == 8 && dev->count == 8);
  uint32_t d = 1u;
  for (int i = 0; i < 8; i++) d = d * 1103515245u + 12345u;
  CHECK(dev->data == d);
  dev->ctrl = 0u;
  for (int i = 0; i < 100; i++) device_tick();
  CHECK(dev->count == 8);

  /* Volatile loop counter: every increment must happen. */
  volatile unsigned spin = 0;
  for (unsigned i = 0; i < 10000; i++) spin = spin + 1;
  CHECK(spin == 10000);

  /* Constant-folded versus run-time evaluation. */
#define SAME_I(fn, a, b, ia, ib) CHECK(fn(a, b) == fn(vA[ia], vB[ib]))
  SAME_I(sdiv, -7, 2, 0, 0);
  SAME_I(sdiv, 7, -2, 1, 1);
  SAME_I(sdiv, -2147483647 - 1, 3, 2, 2);
  SAME_I(sdiv, 2147483647, -3, 3, 3);
  SAME_I(sdiv, 1000000007, 65536, 6, 6);
  SAME_I(srem, -7, 2, 0, 0);
  SAME_I(srem, 7, -2, 1, 1);
  SAME_I(srem, -2147483647 - 1, 3, 2, 2);
  SAME_I(srem, -123456789, -10, 7, 7);
  SAME_I(sat_add, 2147483647, 5, 3, 4);
  SAME_I(sat_add, -2147483647 - 1, -10, 2, 7);
  SAME_I(sat_add, -1, 1, 5, 5);
  CHECK(sdiv(vA[0], vB[0]) == -3 && srem(vA[0], vB[0]) == -1);
  CHECK(sdiv(vA[2], vB[5]) == INT32_MIN);

#define SAME_U(expr_c, expr_v) CHECK((expr_c) == (expr_v))
  SAME_U(udiv(0xffffffffu, 0x12345678u), udiv(vU[3], vU[4]));
  SAME_U(udiv(0xdeadbeefu, 1u), udiv(vU[5], vU[1]));
  SAME_U(rotl(0x12345678u, 0), rotl(vU[4], (unsigned)vU[0]));
  SAME_U(rotl(0x80000000u, 1), rotl(vU[2], (unsigned)vU[1]));
  SAME_U(rotl(0xdeadbeefu, 13), rotl(vU[5], 13u));
  SAME_U(bswap(0x12345678u), bswap(vU[4]));
  CHECK(bswap(vU[4]) == 0x78563412u);
  SAME_U(mulhi(0xffffffffffffffffull, 0xffffffffffffffffull), mulhi(vW[0], vW[0]));
  CHECK(mulhi(vW[0], vW[0]) == 0xfffffffffffffffeull);
  SAME_U(mulhi(0x123456789abcdef0ull, 3ull), mulhi(vW[1], vW[2]));
  CHECK(mulhi(vW[3], vW[2]) == 1ull);
  CHECK(ashr(-(int64_t)vW[2], 1) == -2 && ashr((int64_t)vW[2], 1) == 1);
  CHECK(ashr(INT64_MIN, 63) == -1 && ashr(-1, 40) == -1);

  /* Unsigned wrap-around in a volatile-bounded loop. */
  uint32_t acc = vU[3];
  unsigned iters = 0;
  for (uint32_t i = vU[3] - 5u; i != vU[0] + 3u; i++) {
    acc += i;
    iters++;
  }
  /* i runs 0xfffffffa .. 0xffffffff, 0, 1, 2 -> 9 iterations */
  CHECK(iters == 9);
  CHECK(acc == 0xffffffffu + 0xfffffffau + 0xfffffffbu + 0xfffffffcu + 0xfffffffdu +
                   0xfffffffeu + 0xffffffffu + 0u + 1u + 2u);

  if (failures) {
    fprintf(stderr, "volatile_fold: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
