#include "big.h"

int fb(int x) { return big(x + 2) - 1; }
