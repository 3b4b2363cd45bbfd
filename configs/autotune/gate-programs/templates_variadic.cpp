// Templates: class and function templates, variadic packs with fold
// expressions, recursive instantiation, partial and full specialization,
// SFINAE / if constexpr dispatch, CRTP and template template parameters.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

static int failures;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      std::fprintf(stderr, "templates_variadic: line %d: %s\n", __LINE__, #c);         \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

template <typename... Ts> auto sum(Ts... xs) { return (xs + ... + 0); }
template <typename... Ts> bool all_positive(Ts... xs) { return ((xs > 0) && ...); }
template <typename... Ts> constexpr std::size_t count_args(Ts...) { return sizeof...(Ts); }
template <typename F, typename... Ts> void for_each_arg(F f, Ts &&...xs) { (f(std::forward<Ts>(xs)), ...); }

// Recursive variadic: interleave values into a string with separators.
inline void join_into(std::string &) {}
template <typename T, typename... Rest> void join_into(std::string &out, const T &first, const Rest &...rest) {
  if (!out.empty()) out += ',';
  if constexpr (std::is_arithmetic_v<T>) out += std::to_string(first);
  else out += first;
  join_into(out, rest...);
}

// Compile-time recursion with a class template and specialization.
template <unsigned N> struct Fib { static constexpr std::uint64_t value = Fib<N - 1>::value + Fib<N - 2>::value; };
template <> struct Fib<0> { static constexpr std::uint64_t value = 0; };
template <> struct Fib<1> { static constexpr std::uint64_t value = 1; };

// Partial specialization on pointer types.
template <typename T> struct Describe { static int code() { return 1; } };
template <typename T> struct Describe<T *> { static int code() { return 10 + Describe<T>::code(); } };
template <> struct Describe<char> { static int code() { return 100; } };

// SFINAE: pick an overload depending on whether T has size().
template <typename T> auto length_of(const T &t, int) -> decltype(t.size(), std::size_t()) { return t.size(); }
template <typename T> std::size_t length_of(const T &, long) { return 1; }
template <typename T> std::size_t length(const T &t) { return length_of(t, 0); }

// A fixed-capacity vector template with a non-type parameter.
template <typename T, std::size_t Cap> class SmallVec {
  T data_[Cap];
  std::size_t n_ = 0;
public:
  bool push(const T &v) { if (n_ == Cap) return false; data_[n_++] = v; return true; }
  std::size_t size() const { return n_; }
  T &operator[](std::size_t i) { return data_[i]; }
  template <typename F> auto map(F f) const {
    SmallVec<decltype(f(std::declval<T>())), Cap> out;
    for (std::size_t i = 0; i < n_; i++) out.push(f(data_[i]));
    return out;
  }
};

// CRTP: static polymorphism with a counter in the base.
template <typename Derived> struct Shape {
  long area() const { return static_cast<const Derived *>(this)->area_impl(); }
  long twice() const { return 2 * area(); }
};
struct Rect : Shape<Rect> { long w, h; Rect(long a, long b) : w(a), h(b) {} long area_impl() const { return w * h; } };
struct Square : Shape<Square> { long s; explicit Square(long a) : s(a) {} long area_impl() const { return s * s; } };
template <typename S> long total_area(const S &s) { return s.area(); }
template <typename... S> long total_area(const S &...s) { return (s.area() + ...); }

// Template template parameter.
template <template <typename, typename> class Container, typename T> Container<T, std::allocator<T>> make_seq(T first, int n) {
  Container<T, std::allocator<T>> c;
  for (int i = 0; i < n; i++) c.push_back(first + static_cast<T>(i));
  return c;
}

template <typename T> constexpr T gcd_t(T a, T b) { return b == 0 ? a : gcd_t(b, a % b); }
template <typename T, typename U> auto max_of(T a, U b) -> std::common_type_t<T, U> { return a > b ? a : b; }

int main() {
  CHECK(sum() == 0 && sum(1, 2, 3) == 6 && sum(1.5, 2.25) == 3.75);
  CHECK(sum(std::int64_t{1} << 40, 1) == (std::int64_t{1} << 40) + 1);
  CHECK(all_positive(1, 2.5, 3L) && !all_positive(1, -2, 3) && all_positive());
  static_assert(count_args(1, 'a', "b", 2.0) == 4, "count");
  int total = 0;
  for_each_arg([&](auto x) { total += static_cast<int>(x) * 2; }, 1, 2.9, 'A', 10L);
  CHECK(total == 2 + 4 + 130 + 20);

  std::string joined;
  join_into(joined, 42, "abc", std::string("xy"), -7);
  CHECK(joined == "42,abc,xy,-7");

  static_assert(Fib<50>::value == 12586269025ull, "fib");
  CHECK(Fib<90>::value == 2880067194370816120ull);

  CHECK(Describe<int>::code() == 1 && Describe<int **>::code() == 21 && Describe<char *>::code() == 110);

  std::vector<int> v{1, 2, 3};
  CHECK(length(v) == 3 && length(std::string("hello")) == 5 && length(3.14) == 1);

  SmallVec<int, 4> sv;
  for (int i = 1; i <= 5; i++) CHECK(sv.push(i * i) == (i <= 4));
  auto halves = sv.map([](int x) { return x / 2.0; });
  CHECK(halves.size() == 4 && halves[3] == 8.0 && halves[0] == 0.5);
  auto strs = sv.map([](int x) { return std::to_string(x); });
  CHECK(strs[2] == "9");

  Rect r(3, 4);
  Square s(5);
  CHECK(r.area() == 12 && s.twice() == 50 && total_area(r) == 12 && total_area(r, s, Square(2)) == 41);

  auto seq = make_seq<std::vector>(10, 5);
  CHECK(seq.size() == 5 && seq.back() == 14);
  auto dseq = make_seq<std::vector>(0.5, 3);
  CHECK(dseq[2] == 2.5);

  static_assert(gcd_t(1071, 462) == 21, "gcd");
  CHECK(gcd_t<std::uint64_t>(1ull << 60, 6ull << 50) == 2ull << 50);
  auto m = max_of(3, 2.5);
  static_assert(std::is_same_v<decltype(m), double>, "common type");
  CHECK(m == 3.0 && max_of('a', 98) == 98);

  if (failures) {
    std::fprintf(stderr, "templates_variadic: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
