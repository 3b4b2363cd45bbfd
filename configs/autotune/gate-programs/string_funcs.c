/* String handling: hand-written strlen/strcmp/strchr/strrchr/strspn and three
 * substring searches (naive, KMP, Horspool) against libc on generated
 * strings; in-place reversal, strtok, integer <-> text round trips via strtol. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "string_funcs: line %d: %s\n", __LINE__, #c);            \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static size_t my_strlen(const char *s) { const char *p = s; while (*p) p++; return (size_t)(p - s); }
static int my_strcmp(const char *a, const char *b) {
  while (*a && *a == *b) { a++; b++; }
  return (unsigned char)*a - (unsigned char)*b;
}
static const char *my_strchr(const char *s, int c) {
  for (;; s++) {
    if (*s == (char)c) return s;
    if (!*s) return NULL;
  }
}
static const char *my_strrchr(const char *s, int c) {
  const char *last = NULL;
  for (;; s++) {
    if (*s == (char)c) last = s;
    if (!*s) return last;
  }
}
static size_t my_strspn(const char *s, const char *accept) {
  size_t n = 0;
  while (s[n] && my_strchr(accept, s[n])) n++;
  return n;
}
static const char *naive_find(const char *h, const char *n) {
  size_t hl = my_strlen(h), nl = my_strlen(n);
  for (size_t i = 0; i + nl <= hl; i++) {
    size_t j = 0;
    while (j < nl && h[i + j] == n[j]) j++;
    if (j == nl) return h + i;
  }
  return NULL;
}
static const char *kmp_find(const char *h, const char *n) {
  size_t nl = strlen(n);
  if (nl == 0) return h;
  int fail[64];
  fail[0] = -1;
  for (size_t i = 1; i < nl; i++) {
    int f = fail[i - 1];
    while (f >= 0 && n[f + 1] != n[i]) f = fail[f];
    fail[i] = n[f + 1] == n[i] ? f + 1 : -1;
  }
  int q = -1;
  for (size_t i = 0; h[i]; i++) {
    while (q >= 0 && n[q + 1] != h[i]) q = fail[q];
    if (n[q + 1] == h[i]) q++;
    if ((size_t)(q + 1) == nl) return h + i + 1 - nl;
  }
  return NULL;
}
static const char *horspool_find(const char *h, const char *n) {
  size_t hl = strlen(h), nl = strlen(n);
  if (nl == 0) return h;
  size_t shift[256];
  for (int c = 0; c < 256; c++) shift[c] = nl;
  for (size_t i = 0; i + 1 < nl; i++) shift[(unsigned char)n[i]] = nl - 1 - i;
  for (size_t pos = 0; pos + nl <= hl; pos += shift[(unsigned char)h[pos + nl - 1]]) {
    size_t j = nl;
    while (j > 0 && h[pos + j - 1] == n[j - 1]) j--;
    if (j == 0) return h + pos;
  }
  return NULL;
}
static void reverse(char *s) {
  size_t n = strlen(s);
  for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) { char t = s[i]; s[i] = s[j]; s[j] = t; }
}
static int is_palindrome(const char *s) { /* ignoring case and non-letters */
  const char *e = s + strlen(s);
  while (s < e) {
    if (!isalpha((unsigned char)*s)) { s++; continue; }
    if (!isalpha((unsigned char)e[-1])) { e--; continue; }
    if (tolower((unsigned char)*s) != tolower((unsigned char)e[-1])) return 0;
    s++; e--;
  }
  return 1;
}
static int sign(int x) { return (x > 0) - (x < 0); }

int main(void) {
  uint32_t st = 2024u;
  char hay[600], needle[12], a[40], b[40];
  for (int round = 0; round < 300; round++) {
    size_t hl = 100 + round % 400, nl = 1 + round % 9;
    for (size_t i = 0; i < hl; i++) { st = st * 1103515245u + 12345u; hay[i] = (char)('a' + (st >> 16) % 3); }
    hay[hl] = 0;
    if (round % 2) memcpy(needle, hay + (round * 7) % (hl - nl), nl); /* surely present */
    else for (size_t i = 0; i < nl; i++) { st = st * 1103515245u + 12345u; needle[i] = (char)('a' + (st >> 16) % 3); }
    needle[nl] = 0;
    const char *want = strstr(hay, needle);
    if (naive_find(hay, needle) != want || kmp_find(hay, needle) != want || horspool_find(hay, needle) != want) {
      fprintf(stderr, "string_funcs: search round %d\n", round);
      failures++;
    }
    CHECK(my_strlen(hay) == hl);
    int c = 'a' + round % 4;
    CHECK(my_strchr(hay, c) == strchr(hay, c) && my_strrchr(hay, c) == strrchr(hay, c));
    CHECK(my_strspn(hay, "ab") == strspn(hay, "ab"));
    memcpy(a, hay, 30); a[30] = 0;
    memcpy(b, hay + round % 5, 30); b[30] = 0;
    CHECK(sign(my_strcmp(a, b)) == sign(strcmp(a, b)));
  }
  CHECK(kmp_find("abc", "") == naive_find("abc", "") && horspool_find("", "a") == NULL);
  const char *abc = "abc";
  CHECK(my_strchr(abc, '\0') == abc + 3 && strchr(abc, '\0') == abc + 3 && my_strchr(abc, 'd') == NULL);
  CHECK(sign(my_strcmp("a\xff", "a\x01")) == 1 && sign(strcmp("a\xff", "a\x01")) == 1);

  char text[] = "Hello, World";
  reverse(text);
  CHECK(strcmp(text, "dlroW ,olleH") == 0);
  char one[] = "x", empty[] = "";
  reverse(one); reverse(empty);
  CHECK(one[0] == 'x' && empty[0] == 0);
  CHECK(is_palindrome("A man, a plan, a canal: Panama") && !is_palindrome("palindrome") && is_palindrome(""));

  char csv[] = "alpha,,beta;gamma, delta;;epsilon";
  const char *expect_tok[] = {"alpha", "beta", "gamma", " delta", "epsilon"};
  int ntok = 0;
  for (char *t = strtok(csv, ",;"); t; t = strtok(NULL, ",;")) {
    CHECK(ntok < 5 && strcmp(t, expect_tok[ntok]) == 0);
    ntok++;
  }
  CHECK(ntok == 5);

  /* Integer <-> text round trips in several bases. */
  char buf[80];
  long samples[] = {0, 1, -1, 42, -2147483647L - 1, 2147483647L, LONG_MAX, LONG_MIN, 123456789012L};
  for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
    snprintf(buf, sizeof buf, "%ld", samples[i]);
    char *end;
    errno = 0;
    long back = strtol(buf, &end, 10);
    CHECK(back == samples[i] && *end == 0 && errno == 0);
    snprintf(buf, sizeof buf, "%lx", (unsigned long)samples[i]);
    CHECK(strtoul(buf, &end, 16) == (unsigned long)samples[i] && *end == 0);
  }
  char *end;
  errno = 0;
  CHECK(strtol("99999999999999999999", &end, 10) == LONG_MAX && errno == ERANGE);
  CHECK(strtol("  -0x1f zz", &end, 0) == -31 && strcmp(end, " zz") == 0);
  CHECK(strtol("0755", &end, 0) == 493 && strtol("z", &end, 36) == 35 && strtol("abc", &end, 10) == 0);
  CHECK(atoi("  +17abc") == 17 && strtod("2.5e3x", &end) == 2500.0 && *end == 'x');
  if (failures) {
    fprintf(stderr, "string_funcs: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
