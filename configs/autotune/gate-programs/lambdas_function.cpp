// Lambdas and std::function: captures by value and by reference, mutable
// state, init-captures with move-only types, generic lambdas, closures stored
// in containers, recursion through std::function, composition and currying,
// and std::function holding function pointers and functors.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

static int failures;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      std::fprintf(stderr, "lambdas_function: line %d: %s\n", __LINE__, #c);           \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

static int triple(int x) { return 3 * x; }
struct Affine {
  int a, b;
  int operator()(int x) const { return a * x + b; }
};

template <typename F, typename G> auto compose(F f, G g) {
  return [=](auto x) { return f(g(x)); };
}
static std::function<int(int)> adder(int n) { return [n](int x) { return x + n; }; }
static auto curry3 = [](int a) { return [a](int b) { return [a, b](int c) { return a * 100 + b * 10 + c; }; }; };

int main() {
  int base = 10;
  auto by_value = [base](int x) { return x + base; };
  auto by_ref = [&base](int x) { return x + base; };
  base = 20;
  CHECK(by_value(1) == 11 && by_ref(1) == 21);

  auto counter = [n = 0]() mutable { return ++n; };
  counter();
  counter();
  auto snapshot = counter; // copies the closure state
  CHECK(counter() == 3 && snapshot() == 3 && counter() == 4);

  auto owned = std::make_unique<int>(41);
  auto take = [p = std::move(owned)]() { return *p + 1; };
  CHECK(!owned && take() == 42);

  auto generic_add = [](auto a, auto b) { return a + b; };
  CHECK(generic_add(2, 3) == 5 && generic_add(std::string("ab"), std::string("cd")) == "abcd" &&
        generic_add(0.5, 0.25) == 0.75);

  std::vector<std::function<int(int)>> pipeline{triple, Affine{2, 1}, adder(5), [](int x) { return x * x; }};
  int x = 2;
  for (auto &f : pipeline) x = f(x);
  CHECK(x == ((2 * 3) * 2 + 1 + 5) * ((2 * 3) * 2 + 1 + 5));
  std::function<int(int)> empty;
  CHECK(!empty && static_cast<bool>(pipeline[0]));
  try {
    empty(1);
    CHECK(false);
  } catch (const std::bad_function_call &) {
  }

  std::function<long(int)> fact = [&fact](int n) -> long { return n <= 1 ? 1 : n * fact(n - 1); };
  CHECK(fact(15) == 1307674368000L);
  std::function<int(int, int)> ackermann = [&](int m, int n) -> int {
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
  };
  CHECK(ackermann(2, 3) == 9 && ackermann(3, 2) == 29);

  auto inc_then_double = compose([](int v) { return v * 2; }, [](int v) { return v + 1; });
  auto double_then_inc = compose([](int v) { return v + 1; }, [](int v) { return v * 2; });
  CHECK(inc_then_double(5) == 12 && double_then_inc(5) == 11);
  CHECK(curry3(1)(2)(3) == 123 && curry3(9)(0)(9) == 909);

  // Closures capturing loop variables by value each keep their own copy.
  std::vector<std::function<int()>> makers;
  for (int i = 0; i < 5; i++) makers.push_back([i] { return i * i; });
  int total = 0;
  for (auto &m : makers) total += m();
  CHECK(total == 0 + 1 + 4 + 9 + 16);

  // Algorithms with stateful lambdas.
  std::vector<int> v(20);
  std::iota(v.begin(), v.end(), -10);
  int evens = 0;
  std::for_each(v.begin(), v.end(), [&evens](int e) { evens += e % 2 == 0; });
  auto firstPos = std::find_if(v.begin(), v.end(), [](int e) { return e > 0; });
  std::sort(v.begin(), v.end(), [](int p, int q) { return std::abs(p) != std::abs(q) ? std::abs(p) < std::abs(q) : p < q; });
  CHECK(evens == 10 && firstPos != v.end() && v[0] == 0 && v[1] == -1 && v[2] == 1 && v[19] == -10);

  // Dispatch table of named operations.
  std::map<std::string, std::function<double(double, double)>> ops{
      {"add", std::plus<double>()}, {"sub", [](double a, double b) { return a - b; }},
      {"mul", std::multiplies<double>()}, {"pow2", [](double a, double b) { double r = 1; for (int i = 0; i < static_cast<int>(b); i++) r *= a; return r; }}};
  CHECK(ops["add"](1.5, 2.25) == 3.75 && ops["sub"](1, 3) == -2 && ops["mul"](1.5, 4) == 6 && ops["pow2"](2, 10) == 1024);

  // Capturing `this` in a member function.
  struct Accumulator {
    int sum = 0;
    std::function<void(int)> adder() { return [this](int v) { sum += v; }; }
  } acc;
  auto f = acc.adder();
  for (int i = 1; i <= 10; i++) f(i);
  CHECK(acc.sum == 55);

  if (failures) {
    std::fprintf(stderr, "lambdas_function: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
