// Operator overloading: an exact Rational type (arithmetic, comparisons,
// compound assignment, unary minus), Gaussian integers, a 2x2 matrix with
// operator* and power, prefix/postfix ++, operator[] / operator() on a grid,
// explicit operator bool, and a stream-like operator<< into a string sink.
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

static int failures;
#define CHECK(...) /* variadic: arguments may contain braced lists */                \
  do {                                                                                 \
    if (!(__VA_ARGS__)) {                                                              \
      std::fprintf(stderr, "operator_overloading: line %d: %s\n", __LINE__, #__VA_ARGS__); \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

class Rational {
  std::int64_t n_, d_;
  void normalize() {
    if (d_ < 0) { n_ = -n_; d_ = -d_; }
    std::int64_t g = std::gcd(n_ < 0 ? -n_ : n_, d_);
    if (g > 1) { n_ /= g; d_ /= g; }
  }
public:
  Rational(std::int64_t n = 0, std::int64_t d = 1) : n_(n), d_(d) { normalize(); }
  std::int64_t num() const { return n_; }
  std::int64_t den() const { return d_; }
  Rational &operator+=(const Rational &o) { n_ = n_ * o.d_ + o.n_ * d_; d_ *= o.d_; normalize(); return *this; }
  Rational &operator-=(const Rational &o) { return *this += -o; }
  Rational &operator*=(const Rational &o) { n_ *= o.n_; d_ *= o.d_; normalize(); return *this; }
  Rational &operator/=(const Rational &o) { n_ *= o.d_; d_ *= o.n_; normalize(); return *this; }
  Rational operator-() const { return Rational(-n_, d_); }
  friend Rational operator+(Rational a, const Rational &b) { return a += b; }
  friend Rational operator-(Rational a, const Rational &b) { return a -= b; }
  friend Rational operator*(Rational a, const Rational &b) { return a *= b; }
  friend Rational operator/(Rational a, const Rational &b) { return a /= b; }
  friend bool operator==(const Rational &a, const Rational &b) { return a.n_ == b.n_ && a.d_ == b.d_; }
  friend bool operator!=(const Rational &a, const Rational &b) { return !(a == b); }
  friend bool operator<(const Rational &a, const Rational &b) { return a.n_ * b.d_ < b.n_ * a.d_; }
  friend bool operator>(const Rational &a, const Rational &b) { return b < a; }
  friend bool operator<=(const Rational &a, const Rational &b) { return !(b < a); }
  explicit operator bool() const { return n_ != 0; }
  explicit operator double() const { return static_cast<double>(n_) / static_cast<double>(d_); }
};

struct Gauss { // Gaussian integer a + bi
  std::int64_t re, im;
  friend Gauss operator*(Gauss x, Gauss y) { return {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re}; }
  friend Gauss operator+(Gauss x, Gauss y) { return {x.re + y.re, x.im + y.im}; }
  friend bool operator==(Gauss x, Gauss y) { return x.re == y.re && x.im == y.im; }
  std::int64_t norm() const { return re * re + im * im; }
};

struct Mat2 {
  std::uint64_t a, b, c, d;
  friend Mat2 operator*(const Mat2 &x, const Mat2 &y) {
    return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
  }
  friend Mat2 operator^(Mat2 base, unsigned e) { // exponentiation
    Mat2 r{1, 0, 0, 1};
    for (; e; e >>= 1, base = base * base)
      if (e & 1u) r = r * base;
    return r;
  }
};

class Counter {
  int value_ = 0;
public:
  Counter &operator++() { ++value_; return *this; }
  Counter operator++(int) { Counter old = *this; ++value_; return old; }
  Counter &operator--() { --value_; return *this; }
  int value() const { return value_; }
};

class Grid {
  int w_, h_;
  std::vector<int> cells_;
public:
  Grid(int w, int h) : w_(w), h_(h), cells_(static_cast<std::size_t>(w * h)) {}
  int &operator()(int x, int y) { return cells_[static_cast<std::size_t>(y * w_ + x)]; }
  int *operator[](int y) { return &cells_[static_cast<std::size_t>(y * w_)]; }
  int width() const { return w_; }
  int height() const { return h_; }
};

struct Sink {
  std::string text;
  Sink &operator<<(const char *s) { text += s; return *this; }
  Sink &operator<<(std::int64_t v) { text += std::to_string(v); return *this; }
  Sink &operator<<(const Rational &r) { return *this << r.num() << "/" << r.den(); }
};

int main() {
  Rational h;
  for (int k = 1; k <= 10; k++) h += Rational(1, k);
  CHECK(h == Rational(7381, 2520));
  Rational telescoping;
  for (int k = 1; k <= 50; k++) telescoping += Rational(1, k) - Rational(1, k + 1);
  CHECK(telescoping == Rational(50, 51));
  Rational x(3, -4);
  CHECK(x.num() == -3 && x.den() == 4 && -x == Rational(6, 8));
  CHECK(x * Rational(-4, 3) == Rational(1) && x / x == Rational(1) && !Rational(0, 5) && static_cast<bool>(x));
  CHECK(Rational(1, 3) < Rational(1, 2) && Rational(-1, 2) < Rational(-1, 3) && Rational(2, 4) <= Rational(1, 2));
  CHECK(static_cast<double>(Rational(1, 4)) == 0.25 && Rational(5, 1) > Rational(49, 10));
  Rational prod(1);
  for (int k = 2; k <= 20; k++) prod *= Rational(k * k - 1, k * k); // product telescopes to (n+1)/(2n)
  CHECK(prod == Rational(21, 40));

  Gauss one_plus_i{1, 1}, p{1, 0};
  for (int i = 0; i < 8; i++) p = p * one_plus_i;
  CHECK(p == Gauss{16, 0});
  Gauss u{3, 4}, w{1, -2};
  CHECK((u * w).norm() == u.norm() * w.norm() && u + w == Gauss{4, 2});

  Mat2 fib{1, 1, 1, 0};
  Mat2 f90 = fib ^ 90;
  CHECK(f90.b == 2880067194370816120ull && (fib ^ 0).a == 1 && (fib ^ 1).b == 1);

  Counter c;
  Counter old = c++;
  ++c;
  ++++c;
  --c;
  CHECK(old.value() == 0 && c.value() == 3 && (c++).value() == 3 && c.value() == 4);

  Grid g(7, 5);
  for (int y = 0; y < g.height(); y++)
    for (int x2 = 0; x2 < g.width(); x2++) g(x2, y) = x2 * 10 + y;
  CHECK(g[3][6] == 63 && g(0, 4) == 4);
  g[2][2] = -1;
  CHECK(g(2, 2) == -1);

  Sink sink;
  sink << "h=" << h << ", p=" << prod << ", n=" << static_cast<std::int64_t>(-5);
  CHECK(sink.text == "h=7381/2520, p=21/40, n=-5");

  if (failures) {
    std::fprintf(stderr, "operator_overloading: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
