// constexpr and inline: tables built at compile time (CRC table, prime
// sieve, factorials, integer sqrt) must equal the same constexpr functions
// evaluated at run time on opaque (volatile) inputs; constexpr classes,
// inline variables, inline functions with a single static local.
#include <array>
#include <cstdint>
#include <cstdio>

static int failures;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      std::fprintf(stderr, "constexpr_inline: line %d: %s\n", __LINE__, #c);           \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

constexpr std::uint32_t crc_entry(std::uint32_t i) {
  std::uint32_t c = i;
  for (int k = 0; k < 8; k++) c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
  return c;
}
constexpr std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; i++) t[i] = crc_entry(i);
  return t;
}
constexpr auto kCrcTable = make_crc_table();

constexpr std::uint32_t crc32(const char *s, std::size_t n) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; i++) c = kCrcTable[(c ^ static_cast<std::uint8_t>(s[i])) & 0xFFu] ^ (c >> 8);
  return ~c;
}
static_assert(crc32("123456789", 9) == 0xCBF43926u, "CRC-32 check value at compile time");

template <std::size_t N> constexpr std::array<bool, N> sieve() {
  std::array<bool, N> is{};
  for (std::size_t i = 2; i < N; i++) is[i] = true;
  for (std::size_t i = 2; i * i < N; i++)
    if (is[i])
      for (std::size_t j = i * i; j < N; j += i) is[j] = false;
  return is;
}
constexpr auto kPrimes = sieve<2000>();
constexpr int count_true(const std::array<bool, 2000> &a) {
  int n = 0;
  for (bool b : a) n += b;
  return n;
}
static_assert(count_true(kPrimes) == 303, "pi(2000)");

constexpr std::uint64_t factorial(unsigned n) { return n <= 1 ? 1 : n * factorial(n - 1); }
constexpr std::uint64_t isqrt(std::uint64_t n) {
  if (n < 2) return n;
  std::uint64_t x = n / 2 + 1, y = (x + n / x) / 2; // x >= sqrt(n); no overflow
  while (y < x) { x = y; y = (x + n / x) / 2; }
  return x;
}
constexpr std::array<std::uint64_t, 21> kFact = [] {
  std::array<std::uint64_t, 21> a{};
  for (unsigned i = 0; i <= 20; i++) a[i] = factorial(i);
  return a;
}();

struct Vec2 {
  std::int64_t x, y;
  constexpr Vec2 operator+(Vec2 o) const { return {x + o.x, y + o.y}; }
  constexpr Vec2 rotate90() const { return {-y, x}; }
  constexpr std::int64_t dot(Vec2 o) const { return x * o.x + y * o.y; }
};
constexpr Vec2 walk(int steps) {
  Vec2 p{0, 0}, dir{1, 0};
  for (int i = 1; i <= steps; i++) {
    for (int k = 0; k < i; k++) p = p + dir;
    dir = dir.rotate90();
  }
  return p;
}
constexpr Vec2 kWalk = walk(10);
static_assert(kWalk.x == 5 && kWalk.y == 6, "square spiral");

inline int next_ticket() { // inline function: one static local program-wide
  static int ticket = 0;
  return ++ticket;
}
inline constexpr double kHalf = 0.5; // C++17 inline variable
inline int shared_counter = 100;

template <typename T> constexpr int kind_of() {
  if constexpr (sizeof(T) == 1) return 1;
  else if constexpr (sizeof(T) <= 4) return 4;
  else return 8;
}

static volatile unsigned v_seed = 12345u;
static volatile unsigned v_twenty = 20u;

int main() {
  // Runtime recomputation vs compile-time tables.
  bool table_ok = true;
  for (std::uint32_t i = 0; i < 256; i++) table_ok &= crc_entry(i ^ (v_seed & 0u)) == kCrcTable[i];
  CHECK(table_ok);
  char msg[] = "123456789";
  msg[0] = static_cast<char>(msg[0] + (v_seed & 0u));
  CHECK(crc32(msg, 9) == 0xCBF43926u);

  auto runtime_primes = sieve<2000>();
  CHECK(runtime_primes == kPrimes && count_true(runtime_primes) == 303);
  unsigned n = v_twenty;
  CHECK(factorial(n) == kFact[20] && kFact[20] == 2432902008176640000ull);
  for (unsigned i = 0; i <= n; i++) CHECK(factorial(i) == kFact[i]);

  constexpr std::uint64_t big = 18446744073709551615ull;
  static_assert(isqrt(big) == 4294967295ull, "isqrt");
  std::uint64_t seed = v_seed;
  for (std::uint64_t v = 0; v < 300; v++) {
    std::uint64_t r = isqrt(v);
    CHECK(r * r <= v && (r + 1) * (r + 1) > v);
  }
  for (int i = 0; i < 2000; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    std::uint64_t v = seed >> (i % 64), r = isqrt(v);
    bool ok = r * r <= v && (r + 1 > 4294967295ull || (r + 1) * (r + 1) > v);
    if (!ok) {
      std::fprintf(stderr, "constexpr_inline: isqrt(%llu) = %llu\n", (unsigned long long)v, (unsigned long long)r);
      failures++;
      break;
    }
  }

  Vec2 w = walk(static_cast<int>(n / 2));
  CHECK(w.x == kWalk.x && w.y == kWalk.y && w.dot(w.rotate90()) == 0);

  CHECK(next_ticket() == 1 && next_ticket() == 2 && next_ticket() == 3);
  shared_counter += 5;
  CHECK(shared_counter == 105 && kHalf * 4 == 2.0);
  static_assert(kind_of<char>() == 1 && kind_of<int>() == 4 && kind_of<double>() == 8, "if constexpr");

  if (failures) {
    std::fprintf(stderr, "constexpr_inline: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
