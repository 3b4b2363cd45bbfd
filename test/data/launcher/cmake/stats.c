/* Small helpers the inliner decides about: called from several places. */
static int clamp(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

int stats_sum(const int *values, int count) {
  int sum = 0;
  for (int i = 0; i < count; ++i) sum += clamp(values[i], -1000, 1000);
  return sum;
}

int stats_max(const int *values, int count) {
  int best = values[0];
  for (int i = 1; i < count; ++i)
    if (clamp(values[i], -1000, 1000) > best) best = clamp(values[i], -1000, 1000);
  return best;
}

unsigned stats_hash(const char *text) {
  unsigned hash = 2166136261u;
  while (*text) hash = (hash ^ (unsigned char)*text++) * 16777619u;
  return hash;
}
