/* Recursion and mutual recursion: the inliner must not loop. */
static int is_even(unsigned n);
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }

unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int parity(unsigned n) { return is_even(n) + 2 * is_odd(n); }
