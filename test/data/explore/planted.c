/* A module built for the exploration tests: count_bits() is one intrinsic
   call in the IR, which the inliner's size model finds cheap, but without a
   popcnt instruction it expands to a dozen bit-twiddling instructions at
   every call site it is inlined into. The default heuristic inlines it
   everywhere; declining those call sites (flips of the default) is smaller. */
int count_bits(unsigned value) { return __builtin_popcount(value); }

int parity_sum(const unsigned *values, int count) {
  int sum = 0;
  for (int i = 0; i < count; ++i) sum += count_bits(values[i]) & 1;
  return sum;
}
int weight(unsigned a, unsigned b) { return count_bits(a) + count_bits(b); }
int distance(unsigned a, unsigned b) { return count_bits(a ^ b); }
int masked(unsigned a, unsigned mask) { return count_bits(a & mask) * 3; }
