// An inline function only this object uses, called once and too large for
// -Oz's inliner: inlining it leaves no copy anywhere, so the linked program
// keeps fewer bytes (no call, no out-of-line frame, no unwind entry).
#include "big.h"

inline int middle(int x) {
  int acc = x;
  for (int i = 0; i < x; ++i) acc = (acc & 1) ? acc * 3 + i : acc >> 1;
  return acc ^ (x << 2);
}

int fc(int x) { return middle(x) * 2; }
