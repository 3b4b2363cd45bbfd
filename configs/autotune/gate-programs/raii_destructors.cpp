// RAII and object lifetime: construction/destruction order of bases, members
// and arrays; temporaries and lifetime extension; destructors on break,
// continue, early return and exceptions; scope guards, unique_ptr deleters;
// a static local destroyed at exit, checked from an atexit handler.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

static int failures;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      std::fprintf(stderr, "raii_destructors: line %d: %s\n", __LINE__, #c);           \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

static std::string log_;

struct Tracer {
  std::string name;
  explicit Tracer(std::string n) : name(std::move(n)) { log_ += "<" + name; }
  Tracer(const Tracer &o) : name(o.name + "'") { log_ += "<" + name; }
  ~Tracer() { log_ += ">" + name; }
};

struct Base {
  Tracer t{"base"};
  Base() { log_ += "|B"; }
  virtual ~Base() { log_ += "|~B"; }
};
struct Composite : Base {
  Tracer first{"m1"};
  Tracer second{"m2"};
  Composite() { log_ += "|C"; }
  ~Composite() override { log_ += "|~C"; }
};

template <typename F> class ScopeGuard {
  F f_;
  bool active_ = true;
public:
  explicit ScopeGuard(F f) : f_(std::move(f)) {}
  ScopeGuard(ScopeGuard &&o) noexcept : f_(std::move(o.f_)), active_(o.active_) { o.active_ = false; }
  ~ScopeGuard() { if (active_) f_(); }
  void dismiss() { active_ = false; }
};
template <typename F> ScopeGuard<F> on_exit(F f) { return ScopeGuard<F>(std::move(f)); }

static Tracer make(const char *n) { return Tracer(n); } // guaranteed elision in C++17

static int early_return(int x) {
  Tracer a("a");
  if (x > 0) {
    Tracer b("b");
    return x;
  }
  Tracer c("c");
  return -x;
}

static void throws_midway() {
  Tracer a("x");
  Tracer b("y");
  throw std::runtime_error("boom");
}

static const char *expected_at_exit = ">static";
static void check_at_exit() {
  // Runs after the static local below was destroyed (registered earlier).
  if (log_ != expected_at_exit) {
    std::fprintf(stderr, "raii_destructors: at exit the log is '%s'\n", log_.c_str());
    std::_Exit(1);
  }
}

int main() {
  std::atexit(check_at_exit);
  {
    Composite c;
    CHECK(log_ == "<base|B<m1<m2|C");
  }
  CHECK(log_ == "<base|B<m1<m2|C|~C>m2>m1|~B>base");
  log_.clear();
  {
    std::unique_ptr<Base> p(new Composite);
    log_.clear();
  } // deleted through Base*: virtual destructor
  CHECK(log_ == "|~C>m2>m1|~B>base");
  log_.clear();

  {
    Tracer arr[3] = {Tracer("0"), Tracer("1"), Tracer("2")};
    CHECK(log_ == "<0<1<2");
  }
  CHECK(log_ == "<0<1<2>2>1>0");
  log_.clear();

  // Temporaries die at the end of the full expression...
  std::size_t len = Tracer("tmp").name.size();
  CHECK(len == 3 && log_ == "<tmp>tmp");
  log_.clear();
  {
    // ...unless bound to a const reference.
    const Tracer &extended = Tracer("ext");
    log_ += "!";
    CHECK(extended.name == "ext" && log_ == "<ext!");
  }
  CHECK(log_ == "<ext!>ext");
  log_.clear();

  {
    Tracer t = make("made");
    Tracer copy = t;
    CHECK(log_ == "<made<made'");
  }
  CHECK(log_ == "<made<made'>made'>made");
  log_.clear();

  CHECK(early_return(5) == 5 && log_ == "<a<b>b>a");
  log_.clear();
  CHECK(early_return(-5) == 5 && log_ == "<a<c>c>a");
  log_.clear();

  for (int i = 0; i < 4; i++) {
    Tracer loop(std::to_string(i));
    if (i == 1) continue;
    if (i == 3) break;
    log_ += ".";
  }
  CHECK(log_ == "<0.>0<1>1<2.>2<3>3");
  log_.clear();

  try {
    Tracer outer("o");
    throws_midway();
  } catch (const std::exception &) {
    log_ += "!";
  }
  CHECK(log_ == "<o<x<y>y>x>o!");
  log_.clear();

  int counter = 0;
  {
    auto g1 = on_exit([&] { counter += 1; });
    auto g2 = on_exit([&] { counter *= 10; });
    auto g3 = on_exit([&] { counter += 100; });
    g3.dismiss();
  } // g2 runs before g1: (0 * 10) + 1
  CHECK(counter == 1);

  int freed = 0;
  {
    struct Deleter {
      int *sum;
      void operator()(int *p) const { *sum += *p; delete p; }
    };
    Deleter deleter{&freed};
    std::unique_ptr<int, Deleter> a(new int(7), deleter), b(new int(30), deleter);
    a.reset(new int(100)); // frees 7
    CHECK(freed == 7);
    b = std::move(a);      // frees 30, b owns 100
    CHECK(freed == 37 && !a);
  }
  CHECK(freed == 137);

  log_.clear();
  static Tracer forever("static"); // destroyed after main returns
  log_.clear();

  if (failures) {
    std::fprintf(stderr, "raii_destructors: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
