// C++: templates, virtual calls and inline member functions, where inlining
// decisions matter most.
#include <vector>

namespace {
struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
};
struct Rect : Shape {
  double w, h;
  Rect(double w, double h) : w(w), h(h) {}
  double area() const override { return w * h; }
};
struct Square : Rect {
  explicit Square(double s) : Rect(s, s) {}
};
template <typename T> T sum(const std::vector<T> &values) {
  T total{};
  for (const T &v : values) total += v;
  return total;
}
}  // namespace

double total_area(int n) {
  std::vector<double> areas;
  for (int i = 0; i < n; ++i) {
    Rect r(i, i + 1);
    Square s(i);
    areas.push_back(r.area() + s.area());
  }
  return sum(areas);
}

int total_count(const std::vector<int> &values) { return sum(values); }
