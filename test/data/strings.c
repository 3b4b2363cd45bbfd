/* Library calls and string constants (.rodata). */
#include <stdio.h>
#include <string.h>

static const char *pick(int i) {
  static const char *const words[] = {"zero", "one", "two", "three", "four"};
  return words[i % 5];
}

int format_all(char *out, int n) {
  int used = 0;
  for (int i = 0; i < n && used < 200; ++i) used += snprintf(out + used, 256 - used, "%s,", pick(i));
  return used;
}

size_t longest(void) {
  size_t best = 0;
  for (int i = 0; i < 5; ++i) {
    size_t len = strlen(pick(i));
    if (len > best) best = len;
  }
  return best;
}
