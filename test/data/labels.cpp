// The C++ twin of labels.c: literals the frontend names, and puts() strings
// the optimizer creates after them.
#include <cstdio>

namespace {
const char *const kColours[] = {"red", "green", "blue", "cyan", "magenta", "yellow"};
}

struct Palette {
  int size() const { return 6; }
  const char *colour(int i) const { return i >= 0 && i < size() ? kColours[i] : "none"; }
};

void show(int i) {
  Palette palette;
  std::printf("palette\n");
  std::printf("colour %d is %s\n", i, palette.colour(i));
  std::printf("end of palette\n");
}
