// String constants the frontend names (.str, .str.1, ...) and ones LLVM's
// optimizer creates (printf("...\n") becomes puts("..."), a new "str"
// global): the optimizer's names continue the frontend's numbering, so an
// object written from this module read back from bitcode has clang's own
// private names only if that numbering is carried over.
#include <stdio.h>

static const char *const kNames[] = {"zero", "one", "two", "three", "four", "five", "six", "seven"};

const char *name_of(unsigned n) { return n < 8 ? kNames[n] : "many"; }

void report(int value) {
  printf("starting\n");
  printf("value is %d\n", value);
  printf("name is %s\n", name_of((unsigned)value));
  printf("done\n");
  printf("really done\n");
}
