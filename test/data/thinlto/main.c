/* The caller side of the ThinLTO test program: every callee lives in
 * helper.c, so any inlining here happens only after ThinLTO imports them. */
int scale(int x);
int clamp(int x, int lo, int hi);
unsigned checksum(const char *text);
int lookup(int i);
int accumulate(const int *values, int count);

int main(int argc, char **argv) {
  int values[4] = {argc, scale(argc), lookup(argc), clamp(argc, 1, 3)};
  int total = accumulate(values, 4);
  for (int i = 0; i < argc; ++i) total += (int)checksum(argv[i]);
  return clamp(scale(total), 0, 100);
}
