/* Many small static helpers: the default heuristic inlines them, so never
 * inlining leaves calls and prologues behind and makes the code larger. */
static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static int square(int x) { return x * x; }
static int mix(int a, int b) { return (a << 3) ^ (b >> 2); }
static unsigned rotl(unsigned x, int r) { return (x << r) | (x >> (32 - r)); }

int score(const int *values, int n) {
  int total = 0;
  for (int i = 0; i < n; ++i) total += clamp(square(values[i]), 0, 1000);
  return total;
}

unsigned hash(const unsigned char *data, int n) {
  unsigned h = 2166136261u;
  for (int i = 0; i < n; ++i) h = rotl(h ^ data[i], 5) * 16777619u;
  return h;
}

int blend(int a, int b, int c) { return mix(mix(a, b), mix(b, c)) + clamp(a - c, -8, 8); }
