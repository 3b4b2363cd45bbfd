// Calls big() once: inlining it drops this object's copy of big(), but b.o
// still needs one, so the linked program holds big() twice.
#include "big.h"

int fa(int x) { return big(x) + 1; }
