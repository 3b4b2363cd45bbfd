/* The callee side of the ThinLTO test program (see main.c): small functions
 * the backend imports into main.c's module and may inline there. */
static int table[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};

int scale(int x) { return x * 3 + 1; }

int clamp(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

unsigned checksum(const char *text) {
  unsigned hash = 2166136261u;
  while (*text) hash = (hash ^ (unsigned char)*text++) * 16777619u;
  return hash;
}

int lookup(int i) { return table[i & 15]; }

int accumulate(const int *values, int count) {
  int sum = 0;
  for (int i = 0; i < count; ++i) sum += values[i] * (i + 1);
  return sum;
}
