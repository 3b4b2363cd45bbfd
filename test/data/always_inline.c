// Helpers the programmer marked always_inline: clang inlines them at every
// optimization level, so a pass list mlgo runs in place of clang's pipeline
// must too, even one with no inliner of its own.
static inline __attribute__((always_inline)) unsigned mix(unsigned x, unsigned k) {
  x ^= x >> 16;
  x *= 0x7feb352dU + k;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

static inline __attribute__((always_inline)) unsigned fold(const unsigned *values, int n, unsigned seed) {
  unsigned h = seed;
  for (int i = 0; i < n; ++i) h = mix(h ^ values[i], (unsigned)i) + mix(values[i], seed);
  return h;
}

unsigned hash_all(const unsigned *values, int n) {
  return fold(values, n, 1) ^ fold(values, n, 2) ^ mix(n, 3) ^ mix(n, 4) ^ mix(n, 5) ^ mix(n, 6);
}

unsigned hash_pair(unsigned a, unsigned b) { return mix(a, 7) + mix(b, 8) + mix(a ^ b, 9) + mix(a + b, 10); }
