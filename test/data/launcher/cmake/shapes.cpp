// C++ with templates and inline functions: compiled into the object, kept
// once by the linker.
#include <vector>

namespace {
template <typename T> T square(T x) { return x * x; }
struct Rectangle {
  int width, height;
  int area() const { return width * height; }
};
}  // namespace

extern "C" int shapes_total(int count) {
  std::vector<Rectangle> shapes;
  for (int i = 1; i <= count; ++i) shapes.push_back({i, square(i)});
  int total = 0;
  for (const Rectangle &shape : shapes) total += shape.area();
  return total;
}
