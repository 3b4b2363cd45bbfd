/* Self-checking: exits 0 when every result is right. */
#include <stdio.h>

int stats_sum(const int *values, int count);
int stats_max(const int *values, int count);
unsigned stats_hash(const char *text);
int shapes_total(int count);

#ifndef GREETING
#define GREETING "hello"
#endif

int main(void) {
  const int values[] = {3, -7, 2000, 12, 5};
  int failures = 0;
  failures += stats_sum(values, 5) != 1013;
  failures += stats_max(values, 5) != 1000;
  failures += stats_hash("mlgo") != 0xaa8510aau;
  failures += shapes_total(4) != 1 + 8 + 27 + 64;
  printf("%s: %d failures\n", GREETING, failures);
  return failures != 0;
}
