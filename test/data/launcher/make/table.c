static const int primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29};
static int nth(int i) { return primes[i % 10]; }
int table_sum(int count) {
  int sum = 0;
  for (int i = 0; i < count; ++i) sum += nth(i);
  return sum;
}
