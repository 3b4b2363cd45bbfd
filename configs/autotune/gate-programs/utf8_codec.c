/* UTF-8: an encoder and two decoders (a byte-class/state-table DFA and a
 * branchy reference) round-trip every 7th scalar value plus all boundaries,
 * and must reject overlongs, surrogates, truncation and values > U+10FFFF. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int encode(uint32_t cp, uint8_t *out) {
  if (cp < 0x80) { out[0] = (uint8_t)cp; return 1; }
  if (cp < 0x800) { out[0] = (uint8_t)(0xC0 | cp >> 6); out[1] = (uint8_t)(0x80 | (cp & 0x3F)); return 2; }
  if (cp < 0x10000) {
    if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
    out[0] = (uint8_t)(0xE0 | cp >> 12); out[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp & 0x3F));
    return 3;
  }
  if (cp < 0x110000) {
    out[0] = (uint8_t)(0xF0 | cp >> 18); out[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F)); out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
  }
  return 0;
}

/* Reference decoder: returns bytes consumed (>0) or 0 on error. */
static int decode_ref(const uint8_t *s, size_t n, uint32_t *cp) {
  if (n == 0) return 0;
  uint8_t b = s[0];
  int len;
  uint32_t min;
  if (b < 0x80) { *cp = b; return 1; }
  else if ((b & 0xE0) == 0xC0) { len = 2; *cp = b & 0x1F; min = 0x80; }
  else if ((b & 0xF0) == 0xE0) { len = 3; *cp = b & 0x0F; min = 0x800; }
  else if ((b & 0xF8) == 0xF0) { len = 4; *cp = b & 0x07; min = 0x10000; }
  else return 0;
  if (n < (size_t)len) return 0;
  for (int i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    *cp = *cp << 6 | (s[i] & 0x3F);
  }
  if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) return 0;
  return len;
}

/* DFA decoder: byte classes and a transition table (states: 0 accept,
 * 1 reject, 2.. expecting continuation bytes with range restrictions). */
enum { ACC = 0, REJ = 1, C1 = 2, C2 = 3, C3 = 4, E0 = 5, ED = 6, F0 = 7, F4 = 8, NSTATES = 9 };
enum { K_ASCII, K_C80_8F, K_C90_9F, K_CA0_BF, K_LEAD2, K_E0, K_E1_EC_EE_EF, K_ED, K_F0, K_F1_F3, K_F4, K_BAD, NCLASSES };

static uint8_t byte_class(uint8_t b) {
  if (b < 0x80) return K_ASCII;
  if (b < 0x90) return K_C80_8F;
  if (b < 0xA0) return K_C90_9F;
  if (b < 0xC0) return K_CA0_BF;
  if (b < 0xC2) return K_BAD; /* C0, C1: always overlong */
  if (b < 0xE0) return K_LEAD2;
  if (b == 0xE0) return K_E0;
  if (b == 0xED) return K_ED;
  if (b < 0xF0) return K_E1_EC_EE_EF;
  if (b == 0xF0) return K_F0;
  if (b < 0xF4) return K_F1_F3;
  if (b == 0xF4) return K_F4;
  return K_BAD;
}

static uint8_t table[NSTATES][NCLASSES];

static void build_table(void) {
  memset(table, REJ, sizeof table);
  table[ACC][K_ASCII] = ACC;
  table[ACC][K_LEAD2] = C1;
  table[ACC][K_E0] = E0;
  table[ACC][K_E1_EC_EE_EF] = C2;
  table[ACC][K_ED] = ED;
  table[ACC][K_F0] = F0;
  table[ACC][K_F1_F3] = C3;
  table[ACC][K_F4] = F4;
  for (int k = K_C80_8F; k <= K_CA0_BF; k++) {
    table[C1][k] = ACC;
    table[C2][k] = C1;
    table[C3][k] = C2;
  }
  table[E0][K_CA0_BF] = C1;                          /* E0 A0..BF */
  table[ED][K_C80_8F] = C1; table[ED][K_C90_9F] = C1; /* ED 80..9F */
  table[F0][K_C90_9F] = C2; table[F0][K_CA0_BF] = C2; /* F0 90..BF */
  table[F4][K_C80_8F] = C2;                          /* F4 80..8F */
}

static int decode_dfa(const uint8_t *s, size_t n, uint32_t *cp) {
  uint8_t state = ACC;
  uint32_t v = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t k = byte_class(s[i]);
    v = state == ACC ? (uint32_t)(s[i] & (0xFFu >> (k == K_ASCII ? 1 : k == K_LEAD2 ? 3 : k <= K_ED ? 4 : 5)))
                     : v << 6 | (s[i] & 0x3Fu);
    state = table[state][k];
    if (state == REJ) return 0;
    if (state == ACC) { *cp = v; return (int)i + 1; }
  }
  return 0;
}

int main(void) {
  int failures = 0;
  build_table();
  uint8_t buf[4];
  unsigned long checked = 0;
  for (uint32_t cp = 0; cp < 0x110000; cp += (cp < 0x900 || (cp > 0xD700 && cp < 0xE100) ||
                                               (cp > 0xFF00 && cp < 0x10100) || cp > 0x10FF00) ? 1 : 7) {
    int len = encode(cp, buf);
    int surrogate = cp >= 0xD800 && cp <= 0xDFFF;
    if (surrogate) { if (len != 0) failures++; continue; }
    int want = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    uint32_t a = 0xFFFFFFFF, b = 0xFFFFFFFF;
    int la = decode_ref(buf, (size_t)len, &a), lb = decode_dfa(buf, (size_t)len, &b);
    if (len != want || la != len || lb != len || a != cp || b != cp) {
      if (failures++ < 5) fprintf(stderr, "utf8: U+%04X: len %d ref %d/%X dfa %d/%X\n", (unsigned)cp, len, la, (unsigned)a, lb, (unsigned)b);
    }
    /* Every proper prefix of a multi-byte sequence is incomplete. */
    for (int cut = 1; cut < len; cut++)
      if (decode_ref(buf, (size_t)cut, &a) || decode_dfa(buf, (size_t)cut, &b)) failures++;
    checked++;
  }
  if (checked != 161928) { fprintf(stderr, "utf8: %lu code points checked\n", checked); failures++; }
  if (encode(0x110000, buf) != 0) failures++;

  static const struct { uint8_t bytes[5]; int n; } invalid[] = {
      {{0xC0, 0x80}, 2},             /* overlong NUL */
      {{0xC1, 0xBF}, 2},             /* overlong */
      {{0xE0, 0x80, 0x80}, 3},       /* overlong */
      {{0xE0, 0x9F, 0xBF}, 3},       /* overlong U+07FF */
      {{0xED, 0xA0, 0x80}, 3},       /* surrogate D800 */
      {{0xED, 0xBF, 0xBF}, 3},       /* surrogate DFFF */
      {{0xF0, 0x8F, 0xBF, 0xBF}, 4}, /* overlong U+FFFF */
      {{0xF4, 0x90, 0x80, 0x80}, 4}, /* U+110000 */
      {{0xF5, 0x80, 0x80, 0x80}, 4}, /* lead > F4 */
      {{0xFF}, 1},
      {{0x80}, 1},                   /* lone continuation */
      {{0xC3, 0x28}, 2},             /* bad continuation */
      {{0xE2, 0x82, 0x28}, 3},
      {{0xF0, 0x9F, 0x98, 0x41}, 4},
  };
  for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
    uint32_t cp;
    int r1 = decode_ref(invalid[i].bytes, (size_t)invalid[i].n, &cp);
    int r2 = decode_dfa(invalid[i].bytes, (size_t)invalid[i].n, &cp);
    if (r1 || r2) { fprintf(stderr, "utf8: invalid sequence %zu accepted (%d, %d)\n", i, r1, r2); failures++; }
  }
  /* Decode a mixed string and count code points. */
  const uint8_t *text = (const uint8_t *)"A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z";
  size_t n = strlen((const char *)text), pos = 0;
  uint32_t cps[8], expect[] = {0x41, 0xE9, 0x20AC, 0x1F600, 0x7A};
  int count = 0;
  while (pos < n && count < 8) {
    int l = decode_dfa(text + pos, n - pos, &cps[count]);
    if (l <= 0) break;
    pos += (size_t)l;
    count++;
  }
  if (count != 5 || memcmp(cps, expect, sizeof expect) != 0) { fprintf(stderr, "utf8: mixed string\n"); failures++; }
  return failures ? 1 : 0;
}
