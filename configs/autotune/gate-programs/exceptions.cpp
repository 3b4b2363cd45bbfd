// Exceptions: throw/catch across several frames, catch by base class,
// rethrow with `throw;`, nested try blocks, exceptions from constructors
// (partially built objects are cleaned up), stack unwinding order of
// destructors, std::exception_ptr, noexcept queries, function-try-blocks.
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

static int failures;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      std::fprintf(stderr, "exceptions: line %d: %s\n", __LINE__, #c);                 \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

static std::string log_;

struct Guard {
  char id;
  explicit Guard(char c) : id(c) { log_ += '+'; log_ += c; }
  ~Guard() { log_ += '-'; log_ += id; }
};

struct ParseError : std::runtime_error {
  int position;
  ParseError(const std::string &what, int pos) : std::runtime_error(what), position(pos) {}
};
struct DepthError : ParseError {
  using ParseError::ParseError;
};

static int parse_digit(const char *s, int pos) {
  Guard g('d');
  if (s[pos] < '0' || s[pos] > '9') throw ParseError("not a digit", pos);
  return s[pos] - '0';
}
static int parse_number(const char *s, int pos, int depth) {
  Guard g('n');
  if (depth > 3) throw DepthError("too deep", pos);
  if (s[pos] == '(') return parse_number(s, pos + 1, depth + 1);
  int hi = parse_digit(s, pos); // separate statements: operand order of + is unspecified
  int lo = parse_digit(s, pos + 1);
  return hi * 10 + lo;
}

static int classify(const char *s) {
  try {
    return parse_number(s, 0, 0);
  } catch (const DepthError &e) { // more derived first
    return -100 - e.position;
  } catch (const ParseError &e) {
    return -e.position - 1;
  }
}

struct Member {
  int *counter;
  explicit Member(int *c) : counter(c) { ++*counter; }
  ~Member() { --*counter; }
};
struct Fragile {
  Member a, b;
  std::unique_ptr<int> owned;
  Fragile(int *live, bool fail) : a(live), b(live), owned(new int(5)) {
    if (fail) throw std::invalid_argument("fragile");
  }
};

static int rethrow_count;
static void level3(int kind) {
  switch (kind) {
  case 0: throw 42;
  case 1: throw std::string("text");
  case 2: throw std::out_of_range("range");
  case 3: throw 2.5;
  default: break;
  }
}
static void level2(int kind) {
  Guard g('2');
  try {
    level3(kind);
  } catch (...) {
    rethrow_count++;
    throw; // rethrow the same object
  }
}
static int level1(int kind) {
  try {
    level2(kind);
  } catch (int v) {
    return v;
  } catch (const std::string &s) {
    return static_cast<int>(s.size());
  } catch (const std::logic_error &e) { // out_of_range derives from logic_error
    return 1000 + static_cast<int>(std::string(e.what()).size());
  } catch (...) {
    return -1;
  }
  return 0;
}

static int func_try(int x) try {
  if (x < 0) throw std::domain_error("negative");
  return x * 2;
} catch (const std::domain_error &) {
  return -2;
}

static void may_throw() { throw std::runtime_error("x"); }
static void never_throws() noexcept {}

int main() {
  log_.clear();
  CHECK(classify("42") == 42 && log_ == "+n+d-d+d-d-n");
  log_.clear();
  CHECK(classify("4x") == -2 && log_ == "+n+d-d+d-d-n");
  log_.clear();
  CHECK(classify("((((12") == -104 && log_ == "+n+n+n+n+n-n-n-n-n-n");
  log_.clear();
  CHECK(classify("(((12") == 12);

  int live = 0;
  try {
    Fragile f(&live, true);
    CHECK(false);
  } catch (const std::invalid_argument &e) {
    CHECK(std::string(e.what()) == "fragile");
  }
  CHECK(live == 0); // both fully built members were destroyed
  {
    Fragile ok(&live, false);
    CHECK(live == 2 && *ok.owned == 5);
  }
  CHECK(live == 0);

  log_.clear();
  CHECK(level1(0) == 42 && level1(1) == 4 && level1(2) == 1005 && level1(3) == -1 && level1(9) == 0);
  CHECK(rethrow_count == 4 && log_ == "+2-2+2-2+2-2+2-2+2-2");

  CHECK(func_try(21) == 42 && func_try(-1) == -2);

  std::exception_ptr saved;
  try {
    may_throw();
  } catch (...) {
    saved = std::current_exception();
  }
  CHECK(saved != nullptr);
  try {
    std::rethrow_exception(saved);
  } catch (const std::runtime_error &e) {
    CHECK(std::string(e.what()) == "x");
  }

  static_assert(noexcept(never_throws()), "noexcept");
  never_throws();
  static_assert(!noexcept(may_throw()), "may throw");

  // Exceptions thrown inside a loop, container state stays consistent.
  std::vector<int> kept;
  int caught = 0;
  for (int i = 0; i < 100; i++) {
    try {
      if (i % 7 == 3) throw i;
      kept.push_back(i);
    } catch (int v) {
      caught += v;
    }
  }
  CHECK(kept.size() == 86 && caught == 3 + 10 + 17 + 24 + 31 + 38 + 45 + 52 + 59 + 66 + 73 + 80 + 87 + 94);

  // vector::at throws out_of_range; nested handler translates the exception.
  int translated = 0;
  try {
    try {
      (void)kept.at(1000);
    } catch (const std::out_of_range &) {
      throw std::runtime_error("translated");
    }
  } catch (const std::runtime_error &e) {
    translated = std::string(e.what()) == "translated";
  }
  CHECK(translated);

  if (failures) {
    std::fprintf(stderr, "exceptions: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
