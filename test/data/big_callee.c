/* One large function called from many places: inlining it everywhere (what
 * "always" does) copies its body into each caller and grows the code. */
int work(int *buffer, int n, int seed) {
  int acc = seed;
  for (int i = 0; i < n; ++i) {
    acc = acc * 31 + buffer[i];
    if (acc & 1) buffer[i] ^= acc;
    else buffer[i] += acc >> 3;
    if (i % 7 == 3) acc ^= buffer[(i * 5) % n];
    switch (acc & 3) {
      case 0: buffer[i] -= 17; break;
      case 1: buffer[i] *= 3; break;
      case 2: buffer[i] = ~buffer[i]; break;
      default: buffer[i] += i; break;
    }
  }
  return acc;
}

int use1(int *b, int n) { return work(b, n, 1) + 1; }
int use2(int *b, int n) { return work(b, n, 2) * 2; }
int use3(int *b, int n) { return work(b, n, 3) - 3; }
int use4(int *b, int n) { return work(b, n, 4) ^ 4; }
int use5(int *b, int n) { return work(b, n, 5) | 5; }
int use6(int *b, int n) { return work(b, n, 6) & 6; }
