/* Switch statements in the shapes compilers lower differently: dense (jump
 * or lookup table), sparse (decision tree), fall-through chains, Duff's
 * device, switches with holes and defaults; checked against table lookups. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;

static int dense(int x) { /* becomes a lookup table */
  switch (x) {
  case 0: return 17;
  case 1: return -4;
  case 2: return 99;
  case 3: return 0;
  case 4: return 12345;
  case 5: return -77;
  case 6: return 8;
  case 7: return 1 << 20;
  case 8: return 3;
  case 9: return -1;
  default: return 555;
  }
}
static const int dense_ref[10] = {17, -4, 99, 0, 12345, -77, 8, 1 << 20, 3, -1};

static const char *sparse(unsigned x) {
  switch (x) {
  case 1: return "one";
  case 10: return "ten";
  case 100: return "hundred";
  case 1000: return "thousand";
  case 65535: return "u16max";
  case 1000000: return "million";
  case 0x80000000u: return "bit31";
  case 0xffffffffu: return "umax";
  default: return "other";
  }
}

static int fallthrough(int x) { /* accumulates every case from x down */
  int r = 0;
  switch (x) {
  case 5: r += 16; /* fall through */
  case 4: r += 8;  /* fall through */
  case 3: r += 4;  /* fall through */
  case 2: r += 2;  /* fall through */
  case 1: r += 1; break;
  case -1: r = -1; break;
  default: r = 100;
  }
  return r;
}

static int holes(int x) { /* a table with holes, negative cases */
  switch (x) {
  case -3: return 'a';
  case -2: return 'b';
  case 0: return 'c';
  case 1: return 'd';
  case 4: return 'e';
  case 5: return 'e';
  case 6: return 'f';
  case 9: return 'g';
  }
  return '?';
}
static int holes_ref(int x) {
  static const struct { int k, v; } t[] = {{-3, 'a'}, {-2, 'b'}, {0, 'c'}, {1, 'd'},
                                           {4, 'e'}, {5, 'e'}, {6, 'f'}, {9, 'g'}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (t[i].k == x) return t[i].v;
  return '?';
}

enum CharClass { C_SPACE, C_DIGIT, C_UPPER, C_LOWER, C_PUNCT, C_OTHER };
static enum CharClass classify(unsigned char c) {
  switch (c) {
  case ' ': case '\t': case '\n': case '\r': case '\v': case '\f': return C_SPACE;
  case '0': case '1': case '2': case '3': case '4':
  case '5': case '6': case '7': case '8': case '9': return C_DIGIT;
  default:
    if (c >= 'A' && c <= 'Z') return C_UPPER;
    if (c >= 'a' && c <= 'z') return C_LOWER;
    if (c >= 33 && c <= 126) return C_PUNCT;
    return C_OTHER;
  }
}

static void duff_copy(uint8_t *to, const uint8_t *from, int count) {
  if (count <= 0) return;
  int n = (count + 7) / 8;
  switch (count % 8) {
  case 0: do { *to++ = *from++; /* fall through */
  case 7:      *to++ = *from++; /* fall through */
  case 6:      *to++ = *from++; /* fall through */
  case 5:      *to++ = *from++; /* fall through */
  case 4:      *to++ = *from++; /* fall through */
  case 3:      *to++ = *from++; /* fall through */
  case 2:      *to++ = *from++; /* fall through */
  case 1:      *to++ = *from++;
          } while (--n > 0);
  }
}

/* A switch inside a loop implementing a tiny state machine: counts words,
 * numbers and quoted strings. */
static void scan(const char *s, int *words, int *numbers, int *strings) {
  enum { OUT, WORD, NUM, STR, ESC } st = OUT;
  *words = *numbers = *strings = 0;
  for (;; s++) {
    char c = *s;
    switch (st) {
    case OUT:
      if (c == '"') st = STR;
      else if (c >= '0' && c <= '9') { st = NUM; ++*numbers; }
      else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) { st = WORD; ++*words; }
      break;
    case WORD:
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) { st = OUT; s--; continue; }
      break;
    case NUM:
      if (!(c >= '0' && c <= '9')) { st = OUT; s--; continue; }
      break;
    case STR:
      if (c == '\\') st = ESC;
      else if (c == '"') { st = OUT; ++*strings; }
      break;
    case ESC:
      st = STR;
      break;
    }
    if (c == '\0') break;
  }
}

int main(void) {
  for (int x = -5; x < 15; x++) {
    int want = x >= 0 && x < 10 ? dense_ref[x] : 555;
    if (dense(x) != want) { fprintf(stderr, "switch: dense(%d)\n", x); failures++; }
    if (holes(x) != holes_ref(x)) { fprintf(stderr, "switch: holes(%d)\n", x); failures++; }
  }
  static const struct { unsigned x; const char *name; } sp[] = {
      {0, "other"}, {1, "one"}, {10, "ten"}, {11, "other"}, {100, "hundred"}, {1000, "thousand"},
      {65535, "u16max"}, {65536, "other"}, {1000000, "million"}, {0x80000000u, "bit31"},
      {0x7fffffffu, "other"}, {0xffffffffu, "umax"}, {0xfffffffeu, "other"}};
  for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++)
    if (strcmp(sparse(sp[i].x), sp[i].name) != 0) { fprintf(stderr, "switch: sparse(%u)\n", sp[i].x); failures++; }

  static const int ft[] = {100, -1, 100, 1, 3, 7, 15, 31, 100};
  for (int x = -2; x <= 6; x++)
    if (fallthrough(x) != ft[x + 2]) { fprintf(stderr, "switch: fallthrough(%d)\n", x); failures++; }

  int counts[6] = {0};
  for (int c = 0; c < 256; c++) counts[classify((unsigned char)c)]++;
  if (counts[C_SPACE] != 6 || counts[C_DIGIT] != 10 || counts[C_UPPER] != 26 || counts[C_LOWER] != 26 ||
      counts[C_PUNCT] != 32 || counts[C_OTHER] != 156) {
    fprintf(stderr, "switch: classify counts\n");
    failures++;
  }

  uint8_t src[100], dst[112], ref[112];
  for (int i = 0; i < 100; i++) src[i] = (uint8_t)(i * 7 + 1);
  for (int len = 0; len <= 100; len++) {
    memset(dst, 0xAA, sizeof dst);
    memset(ref, 0xAA, sizeof ref);
    duff_copy(dst + 3, src, len);
    memcpy(ref + 3, src, (size_t)len);
    if (memcmp(dst, ref, sizeof dst) != 0) { fprintf(stderr, "switch: duff length %d\n", len); failures++; }
  }

  int w, n, s;
  scan("say \"hi \\\"there\\\"\" 42 times, then 7x \"\" end", &w, &n, &s);
  if (w != 5 || n != 2 || s != 2) /* say times then x end */ { fprintf(stderr, "switch: scan %d %d %d\n", w, n, s); failures++; }
  return failures ? 1 : 0;
}
