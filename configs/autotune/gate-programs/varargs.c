/* Variadic functions: sentinel- and count-terminated lists, default argument
 * promotions (char/short/float), va_copy for two passes, a hand-written
 * formatter compared against vsnprintf, and va_list passed to helpers. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "varargs: line %d: %s\n", __LINE__, #c);                 \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static long sum_count(int count, ...) {
  va_list ap;
  va_start(ap, count);
  long total = 0;
  for (int i = 0; i < count; i++) total += va_arg(ap, int);
  va_end(ap);
  return total;
}

static long long sum_until_zero(long long first, ...) {
  va_list ap;
  va_start(ap, first);
  long long total = 0;
  for (long long v = first; v != 0; v = va_arg(ap, long long)) total += v;
  va_end(ap);
  return total;
}

/* Type codes: 'i' int, 'c' char (promoted), 'd' double, 'f' float
 * (promoted), 's' string, 'u' unsigned long, 'p' pointer. */
static double mixed(const char *types, ...) {
  va_list ap;
  va_start(ap, types);
  double total = 0;
  for (const char *t = types; *t; t++) {
    switch (*t) {
    case 'i': total += va_arg(ap, int); break;
    case 'c': total += (char)va_arg(ap, int); break;
    case 'h': total += (short)va_arg(ap, int); break;
    case 'd': total += va_arg(ap, double); break;
    case 'f': total += (float)va_arg(ap, double); break;
    case 's': total += (double)strlen(va_arg(ap, const char *)); break;
    case 'u': total += (double)va_arg(ap, unsigned long); break;
    case 'p': total += *va_arg(ap, int *); break;
    default: total += 1e9; break;
    }
  }
  va_end(ap);
  return total;
}

static int max_of_list(va_list ap, int n) { /* consumes n ints */
  int best = va_arg(ap, int);
  for (int i = 1; i < n; i++) {
    int v = va_arg(ap, int);
    if (v > best) best = v;
  }
  return best;
}

/* Both passes over the same arguments: va_copy lets the second one restart. */
static void min_and_max(int n, int *mn, int *mx, ...) {
  va_list ap, again;
  va_start(ap, mx);
  va_copy(again, ap);
  *mx = max_of_list(ap, n);
  int best = va_arg(again, int);
  for (int i = 1; i < n; i++) {
    int v = va_arg(again, int);
    if (v < best) best = v;
  }
  *mn = best;
  va_end(again);
  va_end(ap);
}

/* A small formatter supporting %d %u %x %s %c %% and %ld; writes into buf. */
static size_t put_uint(char *out, unsigned long v, unsigned base) {
  char tmp[32];
  size_t n = 0;
  do {
    tmp[n++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v);
  for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
  return n;
}

static size_t vformat(char *buf, const char *fmt, va_list ap) {
  size_t len = 0;
  for (const char *p = fmt; *p; p++) {
    if (*p != '%') { buf[len++] = *p; continue; }
    p++;
    int is_long = 0;
    if (*p == 'l') { is_long = 1; p++; }
    switch (*p) {
    case 'd': {
      long v = is_long ? va_arg(ap, long) : va_arg(ap, int);
      unsigned long mag = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
      if (v < 0) buf[len++] = '-';
      len += put_uint(buf + len, mag, 10);
      break;
    }
    case 'u': len += put_uint(buf + len, is_long ? va_arg(ap, unsigned long) : va_arg(ap, unsigned), 10); break;
    case 'x': len += put_uint(buf + len, is_long ? va_arg(ap, unsigned long) : va_arg(ap, unsigned), 16); break;
    case 's': for (const char *s = va_arg(ap, const char *); *s; s++) buf[len++] = *s; break;
    case 'c': buf[len++] = (char)va_arg(ap, int); break;
    case '%': buf[len++] = '%'; break;
    default: buf[len++] = '?'; break;
    }
  }
  buf[len] = 0;
  return len;
}

static int compare_format(const char *fmt, ...) {
  char mine[256], theirs[256];
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  size_t n = vformat(mine, fmt, ap);
  int m = vsnprintf(theirs, sizeof theirs, fmt, ap2);
  va_end(ap2);
  va_end(ap);
  if (m < 0 || (size_t)m != n || strcmp(mine, theirs) != 0) {
    fprintf(stderr, "varargs: format '%s': mine '%s' libc '%s'\n", fmt, mine, theirs);
    return 1;
  }
  return 0;
}

int main(void) {
  CHECK(sum_count(0) == 0);
  CHECK(sum_count(1, 42) == 42);
  CHECK(sum_count(5, 1, -2, 3, -4, 5) == 3);
  CHECK(sum_count(3, 2147483647, 2147483647, 2) == 4294967296L);
  CHECK(sum_until_zero(1LL, 2LL, 3LL, 1LL << 40, -5LL, 0LL) == (1LL << 40) + 1);

  char c = -3;
  short h = -300;
  float f = 0.375f;
  int target = 17;
  double total = mixed("icdhfsup", 10, c, 2.5, h, f, "hello", 4000000000ul, &target);
  CHECK(total == 10 - 3 + 2.5 - 300 + 0.375 + 5 + 4000000000.0 + 17);
  CHECK(mixed("") == 0);

  int mn, mx;
  min_and_max(6, &mn, &mx, 5, -9, 12, 0, 12, -1);
  CHECK(mn == -9 && mx == 12);
  min_and_max(1, &mn, &mx, 7);
  CHECK(mn == 7 && mx == 7);

  failures += compare_format("plain text");
  failures += compare_format("%d|%d|%d", 0, -1, 2147483647);
  failures += compare_format("%d", -2147483647 - 1);
  failures += compare_format("%u %x %lx", 4294967295u, 0xdeadbeefu, 0x123456789abcdefUL);
  failures += compare_format("%ld %lu", -9223372036854775807L - 1, 18446744073709551615UL);
  failures += compare_format("[%s] [%c%c] 100%%", "str", 'o', 'k');
  failures += compare_format("%s%s%s", "", "a", "");

  if (failures) {
    fprintf(stderr, "varargs: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
