/* Checks a streaming SHA-256 against the FIPS 180-2 test vectors and against
 * itself when the same message is fed in chunks of every size from 1 to 130
 * bytes (exercises rotations, big-endian packing and block-boundary logic). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  uint32_t h[8];
  uint8_t buf[64];
  size_t used;
  uint64_t total;
} Sha256;

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void sha_block(Sha256 *s, const uint8_t *p) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
           (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
  uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
                  ((e & f) ^ (~e & g)) + K[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) +
                  ((a & b) ^ (a & c) ^ (b & c));
    h = g; g = f; f = e; e = d + t1;
    d = c; c = b; b = a; a = t1 + t2;
  }
  s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
  s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

static void sha_init(Sha256 *s) {
  static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                 0xa54ff53a, 0x510e527f, 0x9b05688c,
                                 0x1f83d9ab, 0x5be0cd19};
  memcpy(s->h, iv, sizeof iv);
  s->used = 0;
  s->total = 0;
}

static void sha_update(Sha256 *s, const uint8_t *p, size_t n) {
  s->total += n;
  if (s->used) {
    size_t take = 64 - s->used < n ? 64 - s->used : n;
    memcpy(s->buf + s->used, p, take);
    s->used += take; p += take; n -= take;
    if (s->used == 64) { sha_block(s, s->buf); s->used = 0; }
  }
  while (n >= 64) { sha_block(s, p); p += 64; n -= 64; }
  if (n) { memcpy(s->buf, p, n); s->used = n; }
}

static void sha_final(Sha256 *s, char hex[65]) {
  uint64_t bits = s->total * 8;
  uint8_t pad = 0x80, zero = 0, len[8];
  sha_update(s, &pad, 1);
  while (s->used != 56) sha_update(s, &zero, 1);
  for (int i = 0; i < 8; i++) len[i] = (uint8_t)(bits >> (56 - 8 * i));
  sha_update(s, len, 8);
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 32; i++) {
    uint8_t byte = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));
    hex[2 * i] = digits[byte >> 4];
    hex[2 * i + 1] = digits[byte & 15];
  }
  hex[64] = 0;
}

static void sha_oneshot(const void *p, size_t n, char hex[65]) {
  Sha256 s;
  sha_init(&s);
  sha_update(&s, p, n);
  sha_final(&s, hex);
}

static int failures;
static void expect(const char *what, const char *got, const char *want) {
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "sha256: %s: got %s want %s\n", what, got, want);
    failures++;
  }
}

int main(void) {
  char hex[65];
  sha_oneshot("", 0, hex);
  expect("empty", hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  sha_oneshot("abc", 3, hex);
  expect("abc", hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  sha_oneshot(m448, strlen(m448), hex);
  expect("448-bit", hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");

  static uint8_t as[1000];
  memset(as, 'a', sizeof as);
  sha_oneshot(as, sizeof as, hex);
  expect("1000 x a", hex, "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");

  static uint8_t seq[768];
  for (size_t i = 0; i < sizeof seq; i++) seq[i] = (uint8_t)i;
  const char *want = "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363";
  for (size_t chunk = 1; chunk <= 130; chunk++) {
    Sha256 s;
    sha_init(&s);
    for (size_t off = 0; off < sizeof seq; off += chunk)
      sha_update(&s, seq + off, off + chunk <= sizeof seq ? chunk : sizeof seq - off);
    sha_final(&s, hex);
    if (strcmp(hex, want) != 0) {
      fprintf(stderr, "sha256: chunk size %zu gives %s\n", chunk, hex);
      failures++;
    }
  }
  /* Lengths around the padding boundary must all differ from each other. */
  char prev[65] = "";
  for (size_t n = 50; n < 70; n++) {
    sha_oneshot(as, n, hex);
    if (strcmp(hex, prev) == 0) { fprintf(stderr, "sha256: collision at %zu\n", n); failures++; }
    memcpy(prev, hex, sizeof prev);
  }
  if (failures) {
    fprintf(stderr, "sha256: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
