/* Checks an MD5 implementation (little-endian packing, per-round switch on
 * the round number, rotation table) against the RFC 1321 test suite and
 * against itself on a message fed in uneven pieces. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  uint32_t a, b, c, d;
  uint8_t buf[64];
  uint32_t used;
  uint64_t len;
} Md5;

static const uint8_t R[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                              5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                              4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                              6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

static const uint32_t T[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
    0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
    0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
    0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
    0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
    0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
    0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
    0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
    0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

static uint32_t rotl(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }

static void md5_block(Md5 *m, const uint8_t *p) {
  uint32_t x[16];
  for (int i = 0; i < 16; i++)
    x[i] = p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
           (uint32_t)p[4 * i + 3] << 24;
  uint32_t a = m->a, b = m->b, c = m->c, d = m->d;
  for (unsigned i = 0; i < 64; i++) {
    uint32_t f;
    unsigned g;
    switch (i / 16) {
    case 0: f = (b & c) | (~b & d); g = i; break;
    case 1: f = (d & b) | (~d & c); g = (5 * i + 1) % 16; break;
    case 2: f = b ^ c ^ d; g = (3 * i + 5) % 16; break;
    default: f = c ^ (b | ~d); g = (7 * i) % 16; break;
    }
    uint32_t tmp = d;
    d = c;
    c = b;
    b = b + rotl(a + f + T[i] + x[g], R[i]);
    a = tmp;
  }
  m->a += a; m->b += b; m->c += c; m->d += d;
}

static void md5_init(Md5 *m) {
  m->a = 0x67452301; m->b = 0xefcdab89; m->c = 0x98badcfe; m->d = 0x10325476;
  m->used = 0; m->len = 0;
}

static void md5_update(Md5 *m, const void *data, size_t n) {
  const uint8_t *p = data;
  m->len += n;
  while (n > 0) {
    m->buf[m->used++] = *p++;
    n--;
    if (m->used == 64) { md5_block(m, m->buf); m->used = 0; }
  }
}

static void md5_hex(Md5 *m, char out[33]) {
  uint64_t bits = m->len * 8;
  uint8_t b = 0x80;
  md5_update(m, &b, 1);
  b = 0;
  while (m->used != 56) md5_update(m, &b, 1);
  uint8_t tail[8];
  for (int i = 0; i < 8; i++) tail[i] = (uint8_t)(bits >> (8 * i));
  md5_update(m, tail, 8);
  uint32_t words[4] = {m->a, m->b, m->c, m->d};
  for (int i = 0; i < 16; i++)
    sprintf(out + 2 * i, "%02x", (unsigned)(words[i / 4] >> (8 * (i % 4))) & 0xffu);
}

static int failures;

static void check(const void *msg, size_t n, const char *want) {
  Md5 m;
  char got[33];
  md5_init(&m);
  md5_update(&m, msg, n);
  md5_hex(&m, got);
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "md5: length %zu: got %s want %s\n", n, got, want);
    failures++;
  }
}

int main(void) {
  static const struct { const char *msg, *digest; } vec[] = {
      {"", "d41d8cd98f00b204e9800998ecf8427e"},
      {"a", "0cc175b9c0f1b6a831c399e269772661"},
      {"abc", "900150983cd24fb0d6963f7d28e17f72"},
      {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
      {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
      {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
       "57edf4a22be3c955ac49da2e2107b67a"},
  };
  for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++)
    check(vec[i].msg, strlen(vec[i].msg), vec[i].digest);

  uint8_t seq[768];
  for (int i = 0; i < 768; i++) seq[i] = (uint8_t)i;
  check(seq, sizeof seq, "e6899eaaf06fd702f3ed3f988eb19362");
  /* Feed the same message in growing pieces 1, 2, 3, ... bytes. */
  Md5 m;
  md5_init(&m);
  size_t off = 0;
  for (size_t piece = 1; off < sizeof seq; piece++) {
    size_t n = piece < sizeof seq - off ? piece : sizeof seq - off;
    md5_update(&m, seq + off, n);
    off += n;
  }
  char got[33];
  md5_hex(&m, got);
  if (strcmp(got, "e6899eaaf06fd702f3ed3f988eb19362") != 0) {
    fprintf(stderr, "md5: piecewise digest %s\n", got);
    failures++;
  }
  if (failures) {
    fprintf(stderr, "md5: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
