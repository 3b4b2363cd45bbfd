// An inline function too large for -Oz to inline: every object that calls it
// has its own out-of-line copy (a COMDAT section), and the linker keeps one.
#pragma once

inline int big(int x) {
  int acc = x;
  for (int i = 0; i < x; ++i) {
    acc = acc * 31 + i;
    if (acc & 1) acc ^= i << 3;
    else acc += i >> 1;
    switch (acc & 3) {
      case 0: acc -= 17; break;
      case 1: acc *= 3; break;
      case 2: acc = ~acc; break;
      default: acc += i; break;
    }
  }
  return acc;
}

int fa(int x);
int fb(int x);
int fc(int x);
