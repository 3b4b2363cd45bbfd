// Move semantics: counted copies/moves of a resource-owning class, vector
// reallocation moving only noexcept-movable types, moved-from states, returns
// that never copy, perfect forwarding keeping value categories, rvalue/lvalue
// overloads, emplace vs push, swap through moves, and move-only types.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

static int failures;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      std::fprintf(stderr, "move_semantics: line %d: %s\n", __LINE__, #c);             \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

struct Counts { int ctor = 0, copy = 0, move = 0, copy_assign = 0, move_assign = 0, dtor = 0; };
static Counts counts;

// Owns a heap buffer; NoexceptMove selects whether vector may move it.
template <bool NoexceptMove> class Buffer {
  char *data_;
  std::size_t size_;
public:
  explicit Buffer(const char *s) : data_(new char[std::strlen(s) + 1]), size_(std::strlen(s)) {
    std::memcpy(data_, s, size_ + 1);
    counts.ctor++;
  }
  Buffer(const Buffer &o) : data_(new char[o.size_ + 1]), size_(o.size_) {
    std::memcpy(data_, o.data_, size_ + 1);
    counts.copy++;
  }
  Buffer(Buffer &&o) noexcept(NoexceptMove) : data_(o.data_), size_(o.size_) {
    o.data_ = nullptr;
    o.size_ = 0;
    counts.move++;
  }
  Buffer &operator=(const Buffer &o) {
    if (this != &o) {
      char *n = new char[o.size_ + 1];
      std::memcpy(n, o.data_, o.size_ + 1);
      delete[] data_;
      data_ = n;
      size_ = o.size_;
    }
    counts.copy_assign++;
    return *this;
  }
  Buffer &operator=(Buffer &&o) noexcept {
    if (this != &o) {
      delete[] data_;
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    counts.move_assign++;
    return *this;
  }
  ~Buffer() { delete[] data_; counts.dtor++; }
  std::size_t size() const { return size_; }
  bool empty() const { return data_ == nullptr; }
  std::string str() const { return data_ ? std::string(data_) : std::string(); }
};
using Fast = Buffer<true>;
using Slow = Buffer<false>;

static Fast make_named(const char *s) {
  Fast local(s);
  return local; // NRVO or move, never a copy
}
static Fast make_either(bool first) {
  Fast a("first"), b("second");
  if (first) return a; // two candidates: NRVO impossible, implicit move
  return b;
}

static int category(const std::string &) { return 1; }
static int category(std::string &&) { return 2; }
template <typename T> int forward_category(T &&x) { return category(std::forward<T>(x)); }
template <typename T> int plain_category(T &&x) { return category(x); } // named rvalue ref is an lvalue

template <typename T> void my_swap(T &a, T &b) {
  T tmp(std::move(a));
  a = std::move(b);
  b = std::move(tmp);
}

int main() {
  counts = {};
  {
    std::vector<Fast> v;
    v.reserve(4);
    for (int i = 0; i < 4; i++) v.emplace_back("abc");
    CHECK(counts.ctor == 4 && counts.copy == 0 && counts.move == 0);
    v.emplace_back("grow"); // reallocation relocates 4 elements by move
    CHECK(counts.move == 4 && counts.copy == 0);
  }
  CHECK(counts.dtor == 5 + 4); // 5 live + 4 moved-from husks
  counts = {};
  {
    std::vector<Slow> v;
    v.reserve(4);
    for (int i = 0; i < 4; i++) v.emplace_back("abc");
    v.emplace_back("grow"); // move may throw: strong guarantee requires copies
    CHECK(counts.copy == 4 && counts.move == 0);
  }

  counts = {};
  Fast a = make_named("named");
  CHECK(a.str() == "named" && counts.copy == 0 && counts.move <= 1);
  counts = {};
  Fast b = make_either(false);
  CHECK(b.str() == "second" && counts.copy == 0 && counts.move == 1);

  counts = {};
  Fast c(std::move(a));
  CHECK(a.empty() && a.size() == 0 && c.str() == "named" && counts.move == 1);
  a = c;             // copy assignment into a moved-from object
  CHECK(a.str() == "named" && c.str() == "named" && counts.copy_assign == 1);
  a = Fast("temp");  // move assignment from a temporary
  CHECK(a.str() == "temp" && counts.move_assign == 1);

  counts = {};
  my_swap(a, b);
  CHECK(a.str() == "second" && b.str() == "temp" && counts.copy == 0 && counts.copy_assign == 0 &&
        counts.move == 1 && counts.move_assign == 2);

  std::vector<Fast> pushed;
  pushed.reserve(3);
  counts = {};
  Fast lv("lvalue");
  pushed.push_back(lv);             // copy
  pushed.push_back(std::move(lv));  // move
  pushed.push_back(Fast("prvalue")); // construct + move
  CHECK(counts.copy == 1 && counts.move == 2 && counts.ctor == 2 && lv.empty());

  std::string s = "text";
  CHECK(forward_category(s) == 1 && forward_category(std::string("t")) == 2 && forward_category(std::move(s)) == 2);
  CHECK(plain_category(std::string("t")) == 1);
  CHECK(s == "text"); // std::move alone moves nothing

  std::string long_str(100, 'x');
  std::string stolen = std::move(long_str);
  CHECK(stolen.size() == 100 && long_str.empty()); // libstdc++ leaves heap strings empty

  std::vector<int> big(1000, 7);
  const int *storage = big.data();
  std::vector<int> taken = std::move(big);
  CHECK(taken.data() == storage && big.empty() && taken.size() == 1000); // buffer transferred

  std::vector<std::unique_ptr<int>> owners;
  for (int i = 0; i < 10; i++) owners.push_back(std::make_unique<int>(i));
  std::unique_ptr<int> last = std::move(owners.back());
  owners.pop_back();
  int sum = 0;
  for (auto &p : owners) sum += *p;
  CHECK(*last == 9 && sum == 36 && owners.size() == 9);

  if (failures) {
    std::fprintf(stderr, "move_semantics: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
