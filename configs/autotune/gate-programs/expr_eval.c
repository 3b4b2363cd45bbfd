/* Integer expression evaluator: a tokenizer, a mutually recursive descent
 * parser, and a shunting-yard translation to RPN evaluated on a stack; both
 * must give the values computed by Python, and reject malformed input. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef enum { T_NUM, T_VAR, T_OP, T_LP, T_RP, T_END, T_BAD } TokKind;
typedef struct { TokKind kind; int64_t value; char op; } Token;

static const int64_t vars[26] = {['a' - 'a'] = 7, ['b' - 'a'] = 3, ['c' - 'a'] = 10,
                                 ['x' - 'a'] = 12, ['y' - 'a'] = 5};

static int tokenize(const char *s, Token *out, int max) {
  int n = 0;
  while (n < max - 1) {
    while (*s == ' ') s++;
    Token t = {T_END, 0, 0};
    if (!*s) { out[n++] = t; return n; }
    if (isdigit((unsigned char)*s)) {
      t.kind = T_NUM;
      while (isdigit((unsigned char)*s)) t.value = t.value * 10 + (*s++ - '0');
    } else if (*s >= 'a' && *s <= 'z') {
      t.kind = T_VAR; t.value = vars[*s - 'a']; s++;
    } else if (strchr("+-*/%^", *s)) {
      t.kind = T_OP; t.op = *s++;
    } else if (*s == '(') { t.kind = T_LP; s++; }
    else if (*s == ')') { t.kind = T_RP; s++; }
    else { t.kind = T_BAD; s++; }
    out[n++] = t;
  }
  return -1;
}

static int64_t ipow(int64_t b, int64_t e, int *err) {
  if (e < 0) { *err = 1; return 0; }
  int64_t r = 1;
  while (e--) r *= b;
  return r;
}
static int64_t apply(char op, int64_t a, int64_t b, int *err) {
  switch (op) {
  case '+': return a + b;
  case '-': return a - b;
  case '*': return a * b;
  case '/': if (b == 0) { *err = 1; return 0; } return a / b;
  case '%': if (b == 0) { *err = 1; return 0; } return a % b;
  case '^': return ipow(a, b, err);
  }
  *err = 1;
  return 0;
}

/* ---- recursive descent ---- */
static const Token *tk;
static int perr;
static int64_t p_expr(void);
static int64_t p_unary(void);
static int64_t p_primary(void) {
  if (tk->kind == T_NUM || tk->kind == T_VAR) return (tk++)->value;
  if (tk->kind == T_LP) {
    tk++;
    int64_t v = p_expr();
    if (tk->kind != T_RP) { perr = 1; return 0; }
    tk++;
    return v;
  }
  perr = 1;
  return 0;
}
static int64_t p_power(void) {
  int64_t base = p_primary();
  if (tk->kind == T_OP && tk->op == '^') {
    tk++;
    int64_t e = p_unary(); /* right associative */
    return ipow(base, e, &perr);
  }
  return base;
}
static int64_t p_unary(void) {
  if (tk->kind == T_OP && tk->op == '-') { tk++; return -p_unary(); }
  return p_power();
}
static int64_t p_term(void) {
  int64_t v = p_unary();
  while (tk->kind == T_OP && (tk->op == '*' || tk->op == '/' || tk->op == '%')) {
    char op = (tk++)->op;
    v = apply(op, v, p_unary(), &perr);
  }
  return v;
}
static int64_t p_expr(void) {
  int64_t v = p_term();
  while (tk->kind == T_OP && (tk->op == '+' || tk->op == '-')) {
    char op = (tk++)->op;
    v = apply(op, v, p_term(), &perr);
  }
  return v;
}
static int eval_rd(const char *s, int64_t *out) {
  Token toks[128];
  if (tokenize(s, toks, 128) < 0) return 1;
  tk = toks;
  perr = 0;
  *out = p_expr();
  return perr || tk->kind != T_END;
}

/* ---- shunting-yard to RPN, unary minus as 'n' ---- */
static int prec(char op) {
  switch (op) {
  case '+': case '-': return 1;
  case '*': case '/': case '%': return 2;
  case 'n': return 3;
  case '^': return 4;
  }
  return 0;
}
static int eval_rpn(const char *s, int64_t *out) {
  Token toks[128], rpn[128];
  char ops[128];
  int nops = 0, nrpn = 0, ntok = tokenize(s, toks, 128);
  if (ntok < 0) return 1;
  int expect_operand = 1;
  for (int i = 0; toks[i].kind != T_END; i++) {
    Token t = toks[i];
    switch (t.kind) {
    case T_NUM: case T_VAR:
      if (!expect_operand) return 1;
      rpn[nrpn++] = t; expect_operand = 0; break;
    case T_LP:
      if (!expect_operand) return 1;
      ops[nops++] = '('; break;
    case T_RP:
      if (expect_operand) return 1;
      while (nops > 0 && ops[nops - 1] != '(') rpn[nrpn++] = (Token){T_OP, 0, ops[--nops]};
      if (nops == 0) return 1;
      nops--; break;
    case T_OP:
      if (expect_operand) {
        if (t.op != '-') return 1;
        ops[nops++] = 'n'; break;
      }
      while (nops > 0 && ops[nops - 1] != '(' &&
             (prec(ops[nops - 1]) > prec(t.op) || (prec(ops[nops - 1]) == prec(t.op) && t.op != '^')))
        rpn[nrpn++] = (Token){T_OP, 0, ops[--nops]};
      ops[nops++] = t.op; expect_operand = 1; break;
    default:
      return 1;
    }
  }
  if (expect_operand) return 1;
  while (nops > 0) {
    if (ops[nops - 1] == '(') return 1;
    rpn[nrpn++] = (Token){T_OP, 0, ops[--nops]};
  }
  int64_t st[128];
  int sp = 0, err = 0;
  for (int i = 0; i < nrpn; i++) {
    if (rpn[i].kind != T_OP) { st[sp++] = rpn[i].value; continue; }
    if (rpn[i].op == 'n') { if (sp < 1) return 1; st[sp - 1] = -st[sp - 1]; continue; }
    if (sp < 2) return 1;
    int64_t b = st[--sp], a = st[--sp];
    st[sp++] = apply(rpn[i].op, a, b, &err);
  }
  if (sp != 1 || err) return 1;
  *out = st[0];
  return 0;
}

static const struct { const char *text; int64_t value; } good[] = {
    {"1+2*3", 7},           {"(1+2)*3", 9},          {"2^3^2", 512},
    {"-2^2", -4},           {"100/7*7+100%7", 100},  {"a*b+c", 31},
    {"(a+b)*(c-x)/2", -10}, {"x*x-4*a*c+1000", 864}, {"2^10-1", 1023},
    {"-(-(3))", 3},         {"((((((1))))))+0", 1},  {"a%b*c", 10},
    {"1-2-3-4", -8},        {"b^a%c", 7},            {"y*(y+1)*(2*y+1)/6", 55},
    {"-a*-b", 21},          {"a - -b", 10},          {"65536*65536/65536", 65536},
    {"99999*99999%1000007", 730008}, {"2^62/2^61", 2}, {"(x-c)^y*a/(b+1)", 56},
    {"-7/2", -3},           {"-7%2", -1},            {"7/-2", -3},
};
static const char *bad[] = {"", "1+", "(1", "1)", "*2", "1 2", "4/0", "5%(3-3)", "2^-1", "3 $ 4", "()"};

int main(void) {
  int failures = 0;
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    int64_t v1 = 0, v2 = 0;
    int e1 = eval_rd(good[i].text, &v1), e2 = eval_rpn(good[i].text, &v2);
    if (e1 || e2 || v1 != good[i].value || v2 != good[i].value) {
      fprintf(stderr, "expr_eval: %s: rd=%lld(%d) rpn=%lld(%d) want %lld\n", good[i].text,
              (long long)v1, e1, (long long)v2, e2, (long long)good[i].value);
      failures++;
    }
  }
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int64_t v;
    if (!eval_rd(bad[i], &v) || !eval_rpn(bad[i], &v)) {
      fprintf(stderr, "expr_eval: '%s' was accepted\n", bad[i]);
      failures++;
    }
  }
  return failures ? 1 : 0;
}
