/* Checks CRC-32, CRC-32C, CRC-16/CCITT, Adler-32 and FNV-1a against published
 * test vectors, table-driven vs bitwise CRC on pseudo-random data, and
 * incremental (chunked) CRC updates against the one-shot result. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "crc_hash: check failed at line %d: %s\n", __LINE__,    \
              #c);                                                             \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static uint32_t crc32_table[256];
static uint32_t crc32c_table[256];

static void make_table(uint32_t *t, uint32_t poly) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++)
      c = (c & 1u) ? (c >> 1) ^ poly : c >> 1;
    t[i] = c;
  }
}

static uint32_t crc_bitwise(uint32_t poly, uint32_t crc, const uint8_t *p,
                            size_t n) {
  crc = ~crc;
  while (n--) {
    crc ^= *p++;
    for (int k = 0; k < 8; k++)
      crc = (crc >> 1) ^ (poly & (0u - (crc & 1u)));
  }
  return ~crc;
}

static uint32_t crc_table(const uint32_t *t, uint32_t crc, const uint8_t *p,
                          size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; i++)
    crc = t[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

static uint16_t crc16_ccitt(const uint8_t *p, size_t n) {
  uint16_t crc = 0xffff;
  for (size_t i = 0; i < n; i++) {
    crc ^= (uint16_t)(p[i] << 8);
    for (int k = 0; k < 8; k++)
      crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u)
                            : (uint16_t)(crc << 1);
  }
  return crc;
}

static uint32_t adler32(const uint8_t *p, size_t n) {
  uint32_t a = 1, b = 0;
  for (size_t i = 0; i < n; i++) {
    a = (a + p[i]) % 65521u;
    b = (b + a) % 65521u;
  }
  return (b << 16) | a;
}

static uint32_t fnv1a32(const char *s) {
  uint32_t h = 0x811c9dc5u;
  for (; *s; s++) {
    h ^= (uint8_t)*s;
    h *= 0x01000193u;
  }
  return h;
}

static uint64_t fnv1a64(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) {
    h ^= (uint8_t)*s;
    h *= 0x100000001b3ull;
  }
  return h;
}

static uint8_t data[4096];

int main(void) {
  make_table(crc32_table, 0xEDB88320u);
  make_table(crc32c_table, 0x82F63B78u);

  const uint8_t *digits = (const uint8_t *)"123456789";
  const char *fox = "The quick brown fox jumps over the lazy dog";

  CHECK(crc_bitwise(0xEDB88320u, 0, digits, 9) == 0xCBF43926u);
  CHECK(crc_table(crc32_table, 0, digits, 9) == 0xCBF43926u);
  CHECK(crc_table(crc32_table, 0, (const uint8_t *)fox, strlen(fox)) ==
        0x414FA339u);
  CHECK(crc_bitwise(0x82F63B78u, 0, digits, 9) == 0xE3069283u);
  CHECK(crc_table(crc32c_table, 0, digits, 9) == 0xE3069283u);
  CHECK(crc_table(crc32_table, 0, digits, 0) == 0u);
  CHECK(crc16_ccitt(digits, 9) == 0x29B1u);
  CHECK(adler32((const uint8_t *)"Wikipedia", 9) == 0x11E60398u);
  CHECK(adler32(digits, 0) == 1u);
  CHECK(fnv1a32("") == 0x811c9dc5u);
  CHECK(fnv1a32("foobar") == 0xbf9cf968u);
  CHECK(fnv1a64("foobar") == 0x85944171f73967e8ull);

  uint32_t x = 2463534242u;
  for (size_t i = 0; i < sizeof data; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    data[i] = (uint8_t)(x >> 11);
  }
  uint32_t whole = crc_table(crc32_table, 0, data, sizeof data);
  CHECK(whole == 0xc9566ad0u);
  CHECK(crc_bitwise(0xEDB88320u, 0, data, sizeof data) == whole);
  CHECK(crc_table(crc32c_table, 0, data, sizeof data) == 0x1bbaa631u);
  CHECK(adler32(data, sizeof data) == 0xeb68e941u);
  uint32_t part = crc_table(crc32_table, 0, data, 1000);
  CHECK(part == 0x8232d12au);
  CHECK(crc_table(crc32_table, part, data + 1000, sizeof data - 1000) == whole);
  /* Every split point gives the same result as the one-shot CRC. */
  for (size_t cut = 0; cut <= 64; cut++) {
    uint32_t a = crc_bitwise(0xEDB88320u, 0, data, cut);
    uint32_t b = crc_bitwise(0xEDB88320u, a, data + cut, 64 - cut);
    CHECK(b == crc_table(crc32_table, 0, data, 64));
  }
  /* CRC detects any single-bit flip. */
  for (int bit = 0; bit < 256; bit++) {
    data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    CHECK(crc_table(crc32_table, 0, data, sizeof data) != whole);
    data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
  }
  CHECK(crc_table(crc32_table, 0, data, sizeof data) == whole);

  if (failures) {
    fprintf(stderr, "crc_hash: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
