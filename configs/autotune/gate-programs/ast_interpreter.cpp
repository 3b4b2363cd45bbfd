// A tree-walking interpreter for a tiny imperative language: tokenizer,
// recursive-descent parser building a unique_ptr AST of virtual nodes, an
// AST constant-folding pass, and evaluation of programs (primes, gcd,
// Collatz, Fibonacci) whose results must match native C++ loops.
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

static int failures;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      std::fprintf(stderr, "ast_interpreter: line %d: %s\n", __LINE__, #c);            \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

using Env = std::map<std::string, std::int64_t>;

struct Expr {
  virtual ~Expr() = default;
  virtual std::int64_t eval(Env &env) const = 0;
  virtual bool is_const() const { return false; }
};
using ExprP = std::unique_ptr<Expr>;
struct Num : Expr {
  std::int64_t v;
  explicit Num(std::int64_t x) : v(x) {}
  std::int64_t eval(Env &) const override { return v; }
  bool is_const() const override { return true; }
};
struct Var : Expr {
  std::string name;
  explicit Var(std::string n) : name(std::move(n)) {}
  std::int64_t eval(Env &env) const override {
    auto it = env.find(name);
    if (it == env.end()) throw std::runtime_error("undefined variable " + name);
    return it->second;
  }
};
struct Bin : Expr {
  char op;
  ExprP l, r;
  Bin(char o, ExprP a, ExprP b) : op(o), l(std::move(a)), r(std::move(b)) {}
  static std::int64_t apply(char op, std::int64_t a, std::int64_t b) {
    switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': if (!b) throw std::runtime_error("division by zero"); return a / b;
    case '%': if (!b) throw std::runtime_error("division by zero"); return a % b;
    case '<': return a < b;
    case '>': return a > b;
    case '=': return a == b;
    case '!': return a != b;
    case '&': return a && b;
    }
    throw std::logic_error("bad operator");
  }
  std::int64_t eval(Env &env) const override {
    if (op == '&') return l->eval(env) && r->eval(env); // short circuit
    return apply(op, l->eval(env), r->eval(env));
  }
};

struct Stmt {
  virtual ~Stmt() = default;
  virtual void exec(Env &env, std::vector<std::int64_t> &out) const = 0;
};
using StmtP = std::unique_ptr<Stmt>;
struct Assign : Stmt {
  std::string name; ExprP e;
  Assign(std::string n, ExprP x) : name(std::move(n)), e(std::move(x)) {}
  void exec(Env &env, std::vector<std::int64_t> &) const override { env[name] = e->eval(env); }
};
struct Print : Stmt {
  ExprP e;
  explicit Print(ExprP x) : e(std::move(x)) {}
  void exec(Env &env, std::vector<std::int64_t> &out) const override { out.push_back(e->eval(env)); }
};
struct Block : Stmt {
  std::vector<StmtP> body;
  void exec(Env &env, std::vector<std::int64_t> &out) const override { for (const auto &s : body) s->exec(env, out); }
};
struct While : Stmt {
  ExprP cond; StmtP body;
  While(ExprP c, StmtP b) : cond(std::move(c)), body(std::move(b)) {}
  void exec(Env &env, std::vector<std::int64_t> &out) const override {
    long guard = 0;
    while (cond->eval(env)) {
      if (++guard > 100000) throw std::runtime_error("loop limit");
      body->exec(env, out);
    }
  }
};
struct If : Stmt {
  ExprP cond; StmtP then_s, else_s;
  If(ExprP c, StmtP t, StmtP e) : cond(std::move(c)), then_s(std::move(t)), else_s(std::move(e)) {}
  void exec(Env &env, std::vector<std::int64_t> &out) const override {
    if (cond->eval(env)) then_s->exec(env, out);
    else if (else_s) else_s->exec(env, out);
  }
};

class Parser {
  std::vector<std::string> toks_;
  std::size_t pos_ = 0;
  const std::string &peek() const { static const std::string end; return pos_ < toks_.size() ? toks_[pos_] : end; }
  std::string next() { if (pos_ >= toks_.size()) throw std::runtime_error("unexpected end"); return toks_[pos_++]; }
  void expect(const std::string &t) { if (next() != t) throw std::runtime_error("expected " + t); }
  static int prec(const std::string &op) {
    if (op == "&&") return 1;
    if (op == "==" || op == "!=" || op == "<" || op == ">") return 2;
    if (op == "+" || op == "-") return 3;
    if (op == "*" || op == "/" || op == "%") return 4;
    return 0;
  }
  ExprP primary() {
    std::string t = next();
    if (t == "(") { ExprP e = expr(1); expect(")"); return e; }
    if (t == "-") return std::make_unique<Bin>('-', std::make_unique<Num>(0), primary());
    if (t[0] >= '0' && t[0] <= '9') return std::make_unique<Num>(std::stoll(t));
    if ((t[0] >= 'a' && t[0] <= 'z') || t[0] == '_') return std::make_unique<Var>(t);
    throw std::runtime_error("unexpected token " + t);
  }
  ExprP expr(int min_prec) { // precedence climbing, left associative
    ExprP lhs = primary();
    for (;;) {
      std::string op = peek();
      int p = prec(op);
      if (p == 0 || p < min_prec) return lhs;
      next();
      ExprP rhs = expr(p + 1);
      char code = op == "==" ? '=' : op == "!=" ? '!' : op == "&&" ? '&' : op[0];
      lhs = std::make_unique<Bin>(code, std::move(lhs), std::move(rhs));
    }
  }
  StmtP statement() {
    if (peek() == "{") {
      next();
      auto b = std::make_unique<Block>();
      while (peek() != "}") b->body.push_back(statement());
      next();
      return b;
    }
    if (peek() == "while") { next(); ExprP c = expr(1); return std::make_unique<While>(std::move(c), statement()); }
    if (peek() == "if") {
      next();
      ExprP c = expr(1);
      StmtP t = statement(), e;
      if (peek() == "else") { next(); e = statement(); }
      return std::make_unique<If>(std::move(c), std::move(t), std::move(e));
    }
    if (peek() == "print") { next(); ExprP e = expr(1); expect(";"); return std::make_unique<Print>(std::move(e)); }
    std::string name = next();
    expect("=");
    ExprP e = expr(1);
    expect(";");
    return std::make_unique<Assign>(name, std::move(e));
  }
public:
  explicit Parser(const std::string &src) {
    for (std::size_t i = 0; i < src.size();) {
      char c = src[i];
      if (c == ' ' || c == '\n') { i++; continue; }
      std::size_t j = i + 1;
      if ((c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9')) {
        while (j < src.size() && ((src[j] >= 'a' && src[j] <= 'z') || src[j] == '_' || (src[j] >= '0' && src[j] <= '9'))) j++;
      } else if ((c == '=' || c == '!' || c == '&') && j < src.size() && (src[j] == '=' || src[j] == '&')) {
        j++;
      }
      toks_.push_back(src.substr(i, j - i));
      i = j;
    }
  }
  StmtP program() {
    auto b = std::make_unique<Block>();
    while (pos_ < toks_.size()) b->body.push_back(statement());
    return b;
  }
};

// Folds constant subtrees of an expression in place; returns the number folded.
static int fold(ExprP &e) {
  auto *b = dynamic_cast<Bin *>(e.get());
  if (!b) return 0;
  int n = fold(b->l) + fold(b->r);
  if (b->l->is_const() && b->r->is_const() && b->op != '/' && b->op != '%') {
    Env none;
    e = std::make_unique<Num>(b->eval(none));
    return n + 1;
  }
  return n;
}

static std::vector<std::int64_t> run(const std::string &src, Env &env) {
  std::vector<std::int64_t> out;
  Parser p(src);
  p.program()->exec(env, out);
  return out;
}

int main() {
  const std::string primes_src =
      "n = 2; count = 0; sum = 0;\n"
      "while n < 300 { d = 2; prime = 1;\n"
      "  while d * d < n + 1 && prime { if n % d == 0 { prime = 0; } d = d + 1; }\n"
      "  if prime { count = count + 1; sum = sum + n; }\n"
      "  n = n + 1; }\n"
      "print count; print sum;";
  Env env;
  auto out = run(primes_src, env);
  int count = 0, sum = 0;
  for (int n = 2; n < 300; n++) {
    bool prime = true;
    for (int d = 2; d * d <= n; d++) if (n % d == 0) { prime = false; break; }
    if (prime) { count++; sum += n; }
  }
  CHECK(out.size() == 2 && out[0] == count && out[1] == sum && count == 62);

  const std::string gcd_src =
      "a = 1071; b = 462; while b != 0 { t = a % b; a = b; b = t; } print a;\n"
      "x = 27; steps = 0; while x != 1 { if x % 2 == 0 { x = x / 2; } else { x = 3 * x + 1; } steps = steps + 1; }\n"
      "print steps;\n"
      "f0 = 0; f1 = 1; i = 0; while i < 60 { t = f0 + f1; f0 = f1; f1 = t; i = i + 1; } print f0;\n"
      "print (2 + 3) * 4 - 10 / 3 % 2 - -7;";
  Env env2;
  out = run(gcd_src, env2);
  CHECK(out.size() == 4 && out[0] == 21 && out[1] == 111 && out[2] == 1548008755920LL);
  CHECK(out[3] == (2 + 3) * 4 - 10 / 3 % 2 - -7);
  CHECK(env2["a"] == 21 && env2["i"] == 60);

  // Constant folding must preserve values.
  Parser p("print (1 + 2) * (3 + 4) - x * (10 - 2 * 3);");
  auto prog = p.program();
  auto *blk = static_cast<Block *>(prog.get());
  auto *pr = static_cast<Print *>(blk->body[0].get());
  Env e3{{"x", 5}};
  std::vector<std::int64_t> before, after;
  prog->exec(e3, before);
  int folded = fold(pr->e);
  prog->exec(e3, after);
  CHECK(folded == 5 && before == after && after[0] == 21 - 20);

  // Errors surface as exceptions through many interpreter frames.
  int errors = 0;
  for (const char *bad : {"print 1 / 0;", "print y;", "x = ;", "while 1 { }", "print (1 + 2;"}) {
    Env e;
    try {
      run(bad, e);
    } catch (const std::runtime_error &) {
      errors++;
    }
  }
  CHECK(errors == 5);

  if (failures) {
    std::fprintf(stderr, "ast_interpreter: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
