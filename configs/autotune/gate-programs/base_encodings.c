/* Base64, base32 and hex encoders/decoders: RFC 4648 test vectors, encode ->
 * decode round trips for every length 0..300 of pseudo-random data, and
 * rejection of bad characters, bad padding and bad lengths. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char B32[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

static size_t b64_encode(const uint8_t *in, size_t n, char *out) {
  size_t o = 0, i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
    out[o++] = B64[v >> 18]; out[o++] = B64[v >> 12 & 63];
    out[o++] = B64[v >> 6 & 63]; out[o++] = B64[v & 63];
  }
  if (n - i == 1) {
    uint32_t v = (uint32_t)in[i] << 16;
    out[o++] = B64[v >> 18]; out[o++] = B64[v >> 12 & 63]; out[o++] = '='; out[o++] = '=';
  } else if (n - i == 2) {
    uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
    out[o++] = B64[v >> 18]; out[o++] = B64[v >> 12 & 63]; out[o++] = B64[v >> 6 & 63]; out[o++] = '=';
  }
  out[o] = 0;
  return o;
}

static int8_t rev64[256];
static int8_t rev32[256];

/* Returns decoded length or -1. */
static long b64_decode(const char *s, uint8_t *out) {
  size_t n = strlen(s);
  if (n % 4) return -1;
  long o = 0;
  for (size_t i = 0; i < n; i += 4) {
    int pad = (s[i + 3] == '=') + (s[i + 2] == '=');
    if (pad && i + 4 != n) return -1;
    if (pad == 1 && s[i + 2] == '=') return -1; /* "x=y=" style */
    uint32_t v = 0;
    for (int k = 0; k < 4 - pad; k++) {
      int8_t d = rev64[(uint8_t)s[i + k]];
      if (d < 0) return -1;
      v = v << 6 | (uint32_t)d;
    }
    v <<= 6 * pad;
    if (pad == 2 && (v & 0xFFFF)) return -1;  /* non-canonical trailing bits */
    if (pad == 1 && (v & 0xFF)) return -1;
    out[o++] = (uint8_t)(v >> 16);
    if (pad < 2) out[o++] = (uint8_t)(v >> 8);
    if (pad < 1) out[o++] = (uint8_t)v;
  }
  return o;
}

static size_t b32_encode(const uint8_t *in, size_t n, char *out) {
  size_t o = 0;
  uint64_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; i++) {
    acc = acc << 8 | in[i];
    bits += 8;
    while (bits >= 5) { bits -= 5; out[o++] = B32[acc >> bits & 31]; }
  }
  if (bits) out[o++] = B32[acc << (5 - bits) & 31];
  while (o % 8) out[o++] = '=';
  out[o] = 0;
  return o;
}

static long b32_decode(const char *s, uint8_t *out) {
  size_t n = strlen(s);
  if (n % 8) return -1;
  while (n && s[n - 1] == '=') n--;
  static const int valid_tail[8] = {1, 0, 1, 0, 1, 1, 0, 1}; /* chars in last group */
  if (!valid_tail[n % 8]) return -1;
  uint64_t acc = 0;
  int bits = 0;
  long o = 0;
  for (size_t i = 0; i < n; i++) {
    int8_t d = rev32[(uint8_t)s[i]];
    if (d < 0) return -1;
    acc = acc << 5 | (uint64_t)d;
    bits += 5;
    if (bits >= 8) { bits -= 8; out[o++] = (uint8_t)(acc >> bits); }
  }
  if (acc & ((1u << bits) - 1)) return -1;
  return o;
}

static void hex_encode(const uint8_t *in, size_t n, char *out) {
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = "0123456789abcdef"[in[i] >> 4];
    out[2 * i + 1] = "0123456789abcdef"[in[i] & 15];
  }
  out[2 * n] = 0;
}
static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
static long hex_decode(const char *s, uint8_t *out) {
  size_t n = strlen(s);
  if (n % 2) return -1;
  for (size_t i = 0; i < n; i += 2) {
    int hi = hexval(s[i]), lo = hexval(s[i + 1]);
    if (hi < 0 || lo < 0) return -1;
    out[i / 2] = (uint8_t)(hi << 4 | lo);
  }
  return (long)(n / 2);
}

int main(void) {
  int failures = 0;
  memset(rev64, -1, sizeof rev64);
  memset(rev32, -1, sizeof rev32);
  for (int i = 0; i < 64; i++) rev64[(uint8_t)B64[i]] = (int8_t)i;
  for (int i = 0; i < 32; i++) rev32[(uint8_t)B32[i]] = (int8_t)i;

  static const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  static const char *b64[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  static const char *b32[] = {"", "MY======", "MZXQ====", "MZXW6===", "MZXW6YQ=", "MZXW6YTB",
                              "MZXW6YTBOI======"};
  char enc[1024];
  uint8_t dec[512];
  for (int i = 0; i < 7; i++) {
    size_t n = strlen(plain[i]);
    b64_encode((const uint8_t *)plain[i], n, enc);
    if (strcmp(enc, b64[i]) != 0) { fprintf(stderr, "base64(%s) = %s\n", plain[i], enc); failures++; }
    b32_encode((const uint8_t *)plain[i], n, enc);
    if (strcmp(enc, b32[i]) != 0) { fprintf(stderr, "base32(%s) = %s\n", plain[i], enc); failures++; }
    if (b64_decode(b64[i], dec) != (long)n || memcmp(dec, plain[i], n) != 0) failures++;
    if (b32_decode(b32[i], dec) != (long)n || memcmp(dec, plain[i], n) != 0) failures++;
  }
  hex_encode((const uint8_t *)"\x00\x7f\x80\xff", 4, enc);
  if (strcmp(enc, "007f80ff") != 0) failures++;
  if (hex_decode("DeadBEEF", dec) != 4 || dec[0] != 0xde || dec[3] != 0xef) failures++;

  static uint8_t data[300];
  uint32_t x = 0xC0FFEEu;
  for (size_t i = 0; i < sizeof data; i++) { x = x * 747796405u + 2891336453u; data[i] = (uint8_t)(x >> 24); }
  for (size_t n = 0; n <= sizeof data; n++) {
    size_t l64 = b64_encode(data, n, enc);
    if (l64 != (n + 2) / 3 * 4 || b64_decode(enc, dec) != (long)n || memcmp(dec, data, n) != 0) {
      fprintf(stderr, "base64 round trip failed at length %zu\n", n); failures++;
    }
    size_t l32 = b32_encode(data, n, enc);
    if (l32 != (n + 4) / 5 * 8 || b32_decode(enc, dec) != (long)n || memcmp(dec, data, n) != 0) {
      fprintf(stderr, "base32 round trip failed at length %zu\n", n); failures++;
    }
    hex_encode(data, n, enc);
    if (hex_decode(enc, dec) != (long)n || memcmp(dec, data, n) != 0) {
      fprintf(stderr, "hex round trip failed at length %zu\n", n); failures++;
    }
  }
  static const char *bad64[] = {"Zg=", "Z===", "Zm9v!A==", "Zg==Zg==", "Zh==", "Zm9=", "=Zg=", "Zm=v"};
  for (size_t i = 0; i < sizeof bad64 / sizeof bad64[0]; i++)
    if (b64_decode(bad64[i], dec) >= 0) { fprintf(stderr, "base64 accepted %s\n", bad64[i]); failures++; }
  static const char *bad32[] = {"MY=====", "M=======", "MZXW1===", "MZ======", "mzxw6==="};
  for (size_t i = 0; i < sizeof bad32 / sizeof bad32[0]; i++)
    if (b32_decode(bad32[i], dec) >= 0) { fprintf(stderr, "base32 accepted %s\n", bad32[i]); failures++; }
  if (hex_decode("abc", dec) >= 0 || hex_decode("zz", dec) >= 0) failures++;
  if (failures) {
    fprintf(stderr, "base_encodings: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
