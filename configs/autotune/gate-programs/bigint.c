/* Big-integer arithmetic on 32-bit limbs (structs passed by value): 100!,
 * Fibonacci(1000) two ways, 2^1000, 3^200, long division, and decimal
 * round trips, checked against values computed independently in Python. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define LIMBS 48
typedef struct {
  uint32_t d[LIMBS]; /* little-endian limbs */
  int n;             /* used limbs; 0 means zero; d[n-1] != 0 */
} Big;

static int failures;
static void fail(const char *what) {
  fprintf(stderr, "bigint: %s\n", what);
  failures++;
}

static Big norm(Big a) {
  while (a.n > 0 && a.d[a.n - 1] == 0) a.n--;
  return a;
}
static Big from_u32(uint32_t v) {
  Big r;
  memset(&r, 0, sizeof r);
  r.d[0] = v;
  r.n = 1;
  return norm(r);
}
static int cmp(Big a, Big b) {
  if (a.n != b.n) return a.n < b.n ? -1 : 1;
  for (int i = a.n - 1; i >= 0; i--)
    if (a.d[i] != b.d[i]) return a.d[i] < b.d[i] ? -1 : 1;
  return 0;
}
static Big add(Big a, Big b) {
  Big r;
  memset(&r, 0, sizeof r);
  uint64_t carry = 0;
  int n = a.n > b.n ? a.n : b.n;
  for (int i = 0; i < n; i++) {
    uint64_t s = carry + (i < a.n ? a.d[i] : 0) + (i < b.n ? b.d[i] : 0);
    r.d[i] = (uint32_t)s;
    carry = s >> 32;
  }
  if (carry) { if (n >= LIMBS) { fail("add overflow"); return r; } r.d[n++] = (uint32_t)carry; }
  r.n = n;
  return norm(r);
}
static Big sub(Big a, Big b) { /* requires a >= b */
  Big r = a;
  uint32_t borrow = 0;
  for (int i = 0; i < a.n; i++) {
    uint32_t bi = i < b.n ? b.d[i] : 0;
    uint32_t t = a.d[i] - bi - borrow;
    borrow = (a.d[i] < bi) || (a.d[i] - bi < borrow);
    r.d[i] = t;
  }
  if (borrow) fail("sub underflow");
  return norm(r);
}
static Big mul(Big a, Big b) {
  Big r;
  memset(&r, 0, sizeof r);
  if (a.n + b.n > LIMBS) { fail("mul overflow"); return r; }
  for (int i = 0; i < a.n; i++) {
    uint64_t carry = 0;
    for (int j = 0; j < b.n; j++) {
      uint64_t t = (uint64_t)a.d[i] * b.d[j] + r.d[i + j] + carry;
      r.d[i + j] = (uint32_t)t;
      carry = t >> 32;
    }
    r.d[i + b.n] = (uint32_t)carry;
  }
  r.n = a.n + b.n;
  return norm(r);
}
static Big mul_small(Big a, uint32_t m) { return mul(a, from_u32(m)); }
static Big divmod_small(Big a, uint32_t m, uint32_t *rem) {
  uint64_t r = 0;
  for (int i = a.n - 1; i >= 0; i--) {
    uint64_t cur = (r << 32) | a.d[i];
    a.d[i] = (uint32_t)(cur / m);
    r = cur % m;
  }
  *rem = (uint32_t)r;
  return norm(a);
}
static Big shl1(Big a) {
  uint32_t carry = 0;
  for (int i = 0; i < a.n; i++) {
    uint32_t next = a.d[i] >> 31;
    a.d[i] = (a.d[i] << 1) | carry;
    carry = next;
  }
  if (carry) {
    if (a.n >= LIMBS) { fail("shl1 overflow"); return a; }
    a.d[a.n++] = carry;
  }
  return a;
}
static int bits(Big a) {
  if (a.n == 0) return 0;
  int b = 32 * (a.n - 1);
  for (uint32_t top = a.d[a.n - 1]; top; top >>= 1) b++;
  return b;
}
static Big divmod(Big a, Big b, Big *rem) { /* binary long division */
  Big q = from_u32(0), r = from_u32(0);
  for (int i = bits(a) - 1; i >= 0; i--) {
    r = shl1(r);
    if (a.d[i / 32] >> (i % 32) & 1u) {
      if (r.n == 0) r.n = 1;
      r.d[0] |= 1u;
    }
    q = shl1(q);
    if (cmp(r, b) >= 0) {
      r = sub(r, b);
      if (q.n == 0) q.n = 1;
      q.d[0] |= 1u;
    }
  }
  *rem = r;
  return q;
}
static Big power(Big base, unsigned e) {
  Big r = from_u32(1);
  while (e) {
    if (e & 1u) r = mul(r, base);
    e >>= 1;
    if (e) base = mul(base, base);
  }
  return r;
}
static void to_dec(Big a, char *out) {
  char tmp[LIMBS * 10 + 2];
  int len = 0;
  if (a.n == 0) tmp[len++] = '0';
  while (a.n > 0) {
    uint32_t r;
    a = divmod_small(a, 1000000000u, &r);
    for (int k = 0; k < 9; k++) {
      tmp[len++] = (char)('0' + r % 10);
      r /= 10;
      if (a.n == 0 && r == 0) break;
    }
  }
  for (int i = 0; i < len; i++) out[i] = tmp[len - 1 - i];
  out[len] = 0;
}
static Big from_dec(const char *s) {
  Big r = from_u32(0);
  for (; *s; s++) r = add(mul_small(r, 10), from_u32((uint32_t)(*s - '0')));
  return r;
}
static int digit_sum(const char *s) {
  int t = 0;
  while (*s) t += *s++ - '0';
  return t;
}
static void expect_dec(const char *what, Big v, const char *want) {
  char buf[LIMBS * 10 + 2];
  to_dec(v, buf);
  if (strcmp(buf, want) != 0) {
    fprintf(stderr, "bigint: %s = %s, want %s\n", what, buf, want);
    failures++;
  }
  if (cmp(from_dec(buf), v) != 0) fail("decimal round trip");
}

static Big fib_pair(unsigned n, Big *next) { /* fast doubling: F(n), F(n+1) */
  if (n == 0) { *next = from_u32(1); return from_u32(0); }
  Big b;
  Big a = fib_pair(n / 2, &b);
  Big c = mul(a, sub(add(b, b), a));   /* F(2k) */
  Big d = add(mul(a, a), mul(b, b));   /* F(2k+1) */
  if (n % 2) { *next = add(c, d); return d; }
  *next = d;
  return c;
}

static const char FACT100[] =
    "93326215443944152681699238856266700490715968264381621468592963895217599993229915608941"
    "463976156518286253697920827223758251185210916864000000000000000000000000";
static const char FIB1000[] =
    "43466557686937456435688527675040625802564660517371780402481729089536555417949051890403"
    "879840079255169295922593080322634775209689623239873322471161642996440906533187938298969"
    "649928516003704476137795166849228875";

int main(void) {
  char buf[LIMBS * 10 + 2];
  Big f = from_u32(1);
  for (uint32_t i = 2; i <= 100; i++) f = mul_small(f, i);
  expect_dec("100!", f, FACT100);
  to_dec(f, buf);
  if (digit_sum(buf) != 648) fail("digit sum of 100!");

  Big lo = from_u32(1), hi = from_u32(1);
  for (uint32_t i = 2; i <= 50; i++) lo = mul_small(lo, i);
  for (uint32_t i = 51; i <= 100; i++) hi = mul_small(hi, i);
  if (cmp(mul(lo, hi), f) != 0 || cmp(mul(hi, lo), f) != 0) fail("split factorial");

  Big a = from_u32(0), b = from_u32(1);
  for (int i = 0; i < 1000; i++) { Big t = add(a, b); a = b; b = t; }
  expect_dec("fib(1000)", a, FIB1000);
  Big nx;
  Big fd = fib_pair(1000, &nx);
  if (cmp(fd, a) != 0 || cmp(nx, b) != 0) fail("fast-doubling Fibonacci");

  Big two = from_u32(1);
  for (int i = 0; i < 1000; i++) two = shl1(two);
  to_dec(two, buf);
  if (digit_sum(buf) != 1366 || strlen(buf) != 302) fail("2^1000");
  if (cmp(two, power(from_u32(2), 1000)) != 0) fail("2^1000 by power");
  if (bits(two) != 1001) fail("bit length of 2^1000");

  expect_dec("3^200", power(from_u32(3), 200),
             "26561398887587476933878132203577962682923345265339449597457496173909249090130218299438"
             "4699044001");

  Big f300 = from_u32(0), g = from_u32(1);
  for (int i = 0; i < 300; i++) { Big t = add(f300, g); f300 = g; g = t; }
  expect_dec("fib(300)", f300, "222232244629420445529739893461909967206666939096499764990979600");
  Big r;
  Big q = divmod(f, f300, &r);
  expect_dec("100! / fib(300)", q,
             "419949029446958414672772756944178182561636087767713477012470194458562973397548809670"
             "504064124785");
  expect_dec("100! % fib(300)", r, "98625946785712659480450833498195094713680050131684506210614000");
  if (cmp(add(mul(q, f300), r), f) != 0 || cmp(r, f300) >= 0) fail("division identity");

  uint32_t rem;
  Big back = divmod_small(f, 97u, &rem);
  if (rem != 0 || cmp(mul_small(back, 97u), f) != 0) fail("divide 100! by 97");
  divmod_small(f, 101u, &rem);
  if (rem != 100u) fail("Wilson: 100! mod 101 should be 100");
  expect_dec("zero", sub(f, f), "0");

  if (failures) {
    fprintf(stderr, "bigint: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
