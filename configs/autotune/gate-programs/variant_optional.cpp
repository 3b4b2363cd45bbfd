// C++17 vocabulary types: std::variant with std::visit (overload set),
// get_if / holds_alternative / bad_variant_access, std::optional results,
// std::string_view parsing without copies, tuples with structured bindings
// and std::apply, std::any; an RPN calculator built from variant tokens.
#include <any>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <variant>
#include <vector>

static int failures;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      std::fprintf(stderr, "variant_optional: line %d: %s\n", __LINE__, #c);           \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

template <class... Ts> struct Overload : Ts... { using Ts::operator()...; };
template <class... Ts> Overload(Ts...) -> Overload<Ts...>;

struct Op { char sym; };
using Token = std::variant<std::int64_t, Op, std::string>; // number, operator, variable

static std::optional<std::int64_t> parse_int(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool neg = s.front() == '-';
  if (neg) s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  std::int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return neg ? -v : v;
}

static std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> out;
  while (!text.empty()) {
    std::size_t sp = text.find(' ');
    std::string_view word = text.substr(0, sp);
    text.remove_prefix(sp == std::string_view::npos ? text.size() : sp + 1);
    if (word.empty()) continue;
    if (auto n = parse_int(word)) out.emplace_back(*n);
    else if (word.size() == 1 && std::string_view("+-*/").find(word[0]) != std::string_view::npos) out.emplace_back(Op{word[0]});
    else out.emplace_back(std::string(word));
  }
  return out;
}

static std::optional<std::int64_t> eval_rpn(const std::vector<Token> &toks, const std::map<std::string, std::int64_t> &env) {
  std::vector<std::int64_t> st;
  for (const Token &t : toks) {
    bool ok = std::visit(Overload{
                             [&](std::int64_t v) { st.push_back(v); return true; },
                             [&](const std::string &name) {
                               auto it = env.find(name);
                               if (it == env.end()) return false;
                               st.push_back(it->second);
                               return true;
                             },
                             [&](Op op) {
                               if (st.size() < 2) return false;
                               std::int64_t b = st.back(); st.pop_back();
                               std::int64_t a = st.back(); st.pop_back();
                               switch (op.sym) {
                               case '+': st.push_back(a + b); return true;
                               case '-': st.push_back(a - b); return true;
                               case '*': st.push_back(a * b); return true;
                               case '/': if (b == 0) return false; st.push_back(a / b); return true;
                               }
                               return false;
                             }},
                         t);
    if (!ok) return std::nullopt;
  }
  if (st.size() != 1) return std::nullopt;
  return st.back();
}

static std::tuple<int, int, int> divmod3(int a, int b) { return {a / b, a % b, a / b * b}; }
static int sum3(int a, int b, int c) { return a + b + c; }

int main() {
  auto toks = tokenize("3 4 + x * -2 /");
  CHECK(toks.size() == 7 && std::holds_alternative<std::int64_t>(toks[0]) && std::holds_alternative<Op>(toks[2]) &&
        std::holds_alternative<std::string>(toks[3]) && std::get<std::int64_t>(toks[5]) == -2);
  std::map<std::string, std::int64_t> env{{"x", 10}, {"y", -3}};
  CHECK(eval_rpn(toks, env) == std::optional<std::int64_t>(-35));
  CHECK(!eval_rpn(tokenize("1 +"), env).has_value());
  CHECK(!eval_rpn(tokenize("1 z +"), env));
  CHECK(eval_rpn(tokenize("8 0 /"), env) == std::nullopt);
  CHECK(eval_rpn(tokenize("  y   y *  x -  "), env).value_or(0) == -1);
  CHECK(eval_rpn(tokenize(""), env).value_or(42) == 42);

  Token t = std::int64_t{5};
  CHECK(std::get_if<Op>(&t) == nullptr && *std::get_if<std::int64_t>(&t) == 5 && t.index() == 0);
  try {
    (void)std::get<std::string>(t);
    CHECK(false);
  } catch (const std::bad_variant_access &) {
  }
  t = std::string("name");
  CHECK(t.index() == 2 && std::get<2>(t) == "name");
  int visits = 0;
  for (const Token &tok : toks)
    visits += std::visit([](const auto &v) -> int {
      using T = std::decay_t<decltype(v)>;
      if constexpr (std::is_same_v<T, std::int64_t>) return 1;
      else if constexpr (std::is_same_v<T, Op>) return 10;
      else return 100;
    }, tok);
  CHECK(visits == 3 * 1 + 3 * 10 + 100);

  std::optional<std::string> maybe;
  CHECK(!maybe && maybe.value_or("none") == "none");
  maybe.emplace("value");
  CHECK(maybe && maybe->size() == 5 && *maybe == "value");
  maybe.reset();
  try {
    (void)maybe.value();
    CHECK(false);
  } catch (const std::bad_optional_access &) {
  }
  CHECK(parse_int("-9223372036854775807") == std::optional<std::int64_t>(-9223372036854775807LL));
  CHECK(!parse_int("12a") && !parse_int("-") && parse_int("007") == std::optional<std::int64_t>(7));

  std::string owner = "key=value; other=thing";
  std::string_view view = owner;
  std::string_view key = view.substr(0, view.find('='));
  std::string_view val = view.substr(view.find('=') + 1, view.find(';') - view.find('=') - 1);
  CHECK(key == "key" && val == "value" && val.data() == owner.data() + 4); // no copies
  view.remove_prefix(view.find(' ') + 1);
  CHECK(view == "other=thing" && view.compare("other") > 0 && view.rfind('t') == 6);

  auto [q, r, back] = divmod3(47, 5);
  CHECK(q == 9 && r == 2 && back == 45);
  auto args = std::make_tuple(1, 20, 300);
  CHECK(std::apply(sum3, args) == 321 && std::get<1>(args) == 20 && std::tuple_size_v<decltype(args)> == 3);
  std::map<std::string, int> m{{"a", 1}, {"b", 2}};
  int total = 0;
  for (const auto &[k, v] : m) total += v * static_cast<int>(k.size());
  CHECK(total == 3);

  std::vector<std::any> bag{1, 2.5, std::string("s"), 'c'};
  int ints = 0, others = 0;
  for (const auto &a : bag) {
    if (a.type() == typeid(int)) ints += std::any_cast<int>(a);
    else others++;
  }
  CHECK(ints == 1 && others == 3 && std::any_cast<std::string>(bag[2]) == "s");
  CHECK(std::any_cast<double>(&bag[0]) == nullptr);

  if (failures) {
    std::fprintf(stderr, "variant_optional: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
