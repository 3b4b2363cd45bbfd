/* Indirect calls: operation tables, callbacks with a context pointer, a
 * function returning a function pointer, C-style vtables, recursion through a
 * pointer, and a state machine whose states are functions. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "function_pointers: line %d: %s\n", __LINE__, #c);       \
      failures++;                                                              \
    }                                                                          \
  } while (0)

typedef int64_t (*BinOp)(int64_t, int64_t);
static int64_t op_add(int64_t a, int64_t b) { return a + b; }
static int64_t op_sub(int64_t a, int64_t b) { return a - b; }
static int64_t op_mul(int64_t a, int64_t b) { return a * b; }
static int64_t op_max(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t op_xor(int64_t a, int64_t b) { return a ^ b; }
static const BinOp ops[] = {op_add, op_sub, op_mul, op_max, op_xor};

static BinOp choose(char c) {
  switch (c) {
  case '+': return op_add;
  case '-': return op_sub;
  case '*': return op_mul;
  case 'M': return op_max;
  case '^': return op_xor;
  default: return NULL;
  }
}

static int64_t fold(const int64_t *a, size_t n, int64_t init, BinOp f) {
  for (size_t i = 0; i < n; i++) init = f(init, a[i]);
  return init;
}

typedef void (*Visitor)(void *ctx, int value);
static void for_each(const int *a, size_t n, Visitor v, void *ctx) {
  for (size_t i = 0; i < n; i++) v(ctx, a[i]);
}
struct Stats { long sum; int min, max, count; };
static void collect(void *ctx, int v) {
  struct Stats *s = ctx;
  s->sum += v;
  if (s->count == 0 || v < s->min) s->min = v;
  if (s->count == 0 || v > s->max) s->max = v;
  s->count++;
}
static void histogram(void *ctx, int v) { ((int *)ctx)[(unsigned)v % 4]++; }

/* C-style vtable */
struct Shape;
struct ShapeOps {
  long (*area2)(const struct Shape *); /* twice the area keeps it integral */
  long (*perimeter)(const struct Shape *);
  const char *name;
};
struct Shape { const struct ShapeOps *ops; long a, b, c; };
static long rect_area2(const struct Shape *s) { return 2 * s->a * s->b; }
static long rect_perim(const struct Shape *s) { return 2 * (s->a + s->b); }
static long tri_area2(const struct Shape *s) { return s->a * s->b; } /* right triangle legs a, b */
static long tri_perim(const struct Shape *s) { return s->a + s->b + s->c; }
static long sq_area2(const struct Shape *s) { return 2 * s->a * s->a; }
static long sq_perim(const struct Shape *s) { return 4 * s->a; }
static const struct ShapeOps RECT = {rect_area2, rect_perim, "rect"};
static const struct ShapeOps TRI = {tri_area2, tri_perim, "tri"};
static const struct ShapeOps SQUARE = {sq_area2, sq_perim, "square"};

/* Recursion through a function pointer. */
typedef uint64_t (*Rec)(const void *self, unsigned n);
static uint64_t fact_step(const void *self, unsigned n) {
  Rec again = *(const Rec *)self;
  return n <= 1 ? 1 : n * again(self, n - 1);
}

/* State machine: each state returns the next state (wrapped in a struct
 * because a function cannot return its own type directly). */
struct State;
typedef struct State (*StateFn)(char c, int *acc);
struct State { StateFn fn; };
static struct State st_start(char c, int *acc);
static struct State st_number(char c, int *acc);
static struct State st_skip(char c, int *acc);
static struct State st_start(char c, int *acc) {
  if (c >= '0' && c <= '9') { acc[1] = c - '0'; return (struct State){st_number}; }
  if (c == '#') return (struct State){st_skip};
  (void)acc;
  return (struct State){st_start};
}
static struct State st_number(char c, int *acc) {
  if (c >= '0' && c <= '9') { acc[1] = acc[1] * 10 + (c - '0'); return (struct State){st_number}; }
  acc[0] += acc[1];
  return st_start(c, acc);
}
static struct State st_skip(char c, int *acc) {
  (void)acc;
  return (struct State){c == '\n' ? st_start : st_skip};
}

int main(void) {
  const int64_t vals[] = {3, -7, 12, 5, 0, 9, -2};
  const size_t nv = sizeof vals / sizeof vals[0];
  const int64_t expect[] = {20, -20, 0, 12, 3 ^ -7 ^ 12 ^ 5 ^ 0 ^ 9 ^ -2};
  const int64_t inits[] = {0, 0, 1, INT64_MIN, 0};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    CHECK(fold(vals, nv, inits[i], ops[i]) == expect[i]);
  const int64_t nz[] = {3, -7, 12, 5, 9, -2};
  CHECK(fold(nz, 6, 1, choose('*')) == 22680);
  CHECK(choose('+') == op_add && choose('-') == ops[1] && choose('?') == NULL);
  CHECK(choose('M') != choose('^'));

  int data[50];
  for (int i = 0; i < 50; i++) data[i] = (i * 37) % 101 - 50;
  struct Stats st = {0, 0, 0, 0};
  for_each(data, 50, collect, &st);
  long sum = 0;
  for (int i = 0; i < 50; i++) sum += data[i];
  CHECK(st.count == 50 && st.sum == sum && st.min == -50 && st.max == 50);
  int hist[4] = {0};
  for_each(data, 50, histogram, hist);
  CHECK(hist[0] + hist[1] + hist[2] + hist[3] == 50);

  struct Shape shapes[] = {{&RECT, 3, 4, 0}, {&TRI, 3, 4, 5}, {&SQUARE, 5, 0, 0},
                           {&RECT, 10, 1, 0}, {&TRI, 5, 12, 13}};
  long area2 = 0, perim = 0;
  int squares = 0;
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    area2 += shapes[i].ops->area2(&shapes[i]);
    perim += shapes[i].ops->perimeter(&shapes[i]);
    squares += strcmp(shapes[i].ops->name, "square") == 0;
  }
  CHECK(area2 == 24 + 12 + 50 + 20 + 60);
  CHECK(perim == 14 + 12 + 20 + 22 + 30);
  CHECK(squares == 1);

  Rec self = fact_step;
  CHECK(self(&self, 20) == 2432902008176640000ull);
  CHECK(self(&self, 0) == 1);

  const char *text = "12 apples + 30 pears\n# 1000 ignored\n7";
  int acc[2] = {0, 0};
  struct State s = {st_start};
  for (const char *p = text;; p++) {
    s = s.fn(*p, acc);
    if (!*p) break;
  }
  CHECK(acc[0] == 49);

  if (failures) {
    fprintf(stderr, "function_pointers: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
