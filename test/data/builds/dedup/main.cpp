#include <cstdio>

#include "big.h"

int main() {
  const int value = fa(5) + fb(6) + fc(7);
  std::printf("%d\n", value);
  return value == fa(5) + fb(6) + fc(7) ? 0 : 1;
}
