/* Valid C whose inline assembly only fails in the backend: the driver must
 * report a compile error for this module and go on. */
int bad(int x) {
  __asm__ volatile("not_an_instruction %0" : "+r"(x));
  return x;
}
