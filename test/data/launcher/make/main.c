/* Self-checking: exits 0 when every result is right. */
#include <stdio.h>

int stats_sum(const int *values, int count);
int stats_max(const int *values, int count);
int table_sum(int count);

int main(void) {
  const int values[] = {3, -7, 2000, 12, 5};
  int failures = 0;
  failures += stats_sum(values, 5) != 1013;
  failures += stats_max(values, 5) != 1000;
  failures += table_sum(10) != 129;
  printf("%d failures\n", failures);
  return failures != 0;
}
