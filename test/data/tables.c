/* Only data: no code at all (.text is 0, which is a valid result). */
const int primes[8] = {2, 3, 5, 7, 11, 13, 17, 19};
int counters[16] = {1};
char scratch[256];
const char *const names[3] = {"alpha", "beta", "gamma"};
