/* Structs and unions: copies by assignment, by value and by return (small and
 * large), nested and array members, tagged unions, union type punning,
 * bit-fields (signed and unsigned), flexible array members, compound literals. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "struct_union: line %d: %s\n", __LINE__, #c);            \
      failures++;                                                              \
    }                                                                          \
  } while (0)

typedef struct { int16_t x, y; } Pt;                 /* fits in a register */
typedef struct { Pt lo, hi; char tag[5]; } Box;      /* padding, nested */
typedef struct { double m[4][4]; int id; } Big;      /* passed in memory */

static Pt pt_add(Pt a, Pt b) { return (Pt){(int16_t)(a.x + b.x), (int16_t)(a.y + b.y)}; }
static Box box_grow(Box b, int d) {
  b.lo.x = (int16_t)(b.lo.x - d); b.lo.y = (int16_t)(b.lo.y - d);
  b.hi.x = (int16_t)(b.hi.x + d); b.hi.y = (int16_t)(b.hi.y + d);
  b.tag[0] = 'G';
  return b;
}
static Big big_transpose(Big b) {
  Big r = b;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) r.m[i][j] = b.m[j][i];
  r.id = -b.id;
  return r;
}
static double big_trace_byval(Big b) {
  double t = 0;
  for (int i = 0; i < 4; i++) t += b.m[i][i];
  b.m[0][0] = 1e9; /* modifies the callee's copy only */
  return t;
}

typedef enum { K_INT, K_DBL, K_STR, K_PAIR } Kind;
typedef struct Value {
  Kind kind;
  union {
    int64_t i;
    double d;
    const char *s;
    struct { int32_t a, b; } pair; /* anonymous-union member struct */
  };
} Value;
static double value_weight(Value v) {
  switch (v.kind) {
  case K_INT: return (double)v.i;
  case K_DBL: return v.d;
  case K_STR: return (double)strlen(v.s);
  case K_PAIR: return (double)v.pair.a * v.pair.b;
  }
  return -1;
}

union Pun { float f; uint32_t u; uint8_t bytes[4]; };
union Pun64 { double d; uint64_t u; };

struct Flags {
  unsigned ready : 1;
  unsigned mode : 3;
  signed int delta : 5;   /* -16..15 */
  unsigned big : 20;
  unsigned : 0;           /* force alignment to the next unit */
  unsigned after : 7;
};

typedef struct { size_t len; int data[]; } IntVec;

int main(void) {
  Pt a = {30000, -5}, b = {2767, 10};
  Pt c = pt_add(a, b);
  CHECK(c.x == 32767 && c.y == 5);

  Box bx = {{1, 2}, {3, 4}, "box"};
  Box copy = bx;                      /* struct assignment */
  Box grown = box_grow(bx, 10);
  CHECK(bx.lo.x == 1 && bx.tag[0] == 'b' && grown.lo.x == -9 && grown.hi.y == 14);
  CHECK(strcmp(grown.tag, "Gox") == 0);
  CHECK(copy.lo.x == bx.lo.x && copy.hi.y == bx.hi.y && memcmp(copy.tag, bx.tag, 5) == 0);
  Box arr[3] = {bx, grown, {{0, 0}, {0, 0}, ""}};
  Box arr2[3];
  memcpy(arr2, arr, sizeof arr);
  arr[1].lo.x = 99;
  CHECK(arr2[1].lo.x == -9 && arr[1].lo.x == 99);

  Big m;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) m.m[i][j] = i * 4 + j + 0.5;
  m.id = 7;
  Big t = big_transpose(m);
  CHECK(t.m[1][2] == m.m[2][1] && t.m[3][0] == 3.5 && t.id == -7 && m.id == 7);
  CHECK(big_trace_byval(m) == 0.5 + 5.5 + 10.5 + 15.5 && m.m[0][0] == 0.5);
  Big tt = big_transpose(big_transpose(m));
  CHECK(memcmp(tt.m, m.m, sizeof m.m) == 0 && tt.id == 7);

  Value vals[] = {{.kind = K_INT, .i = -40}, {.kind = K_DBL, .d = 2.25},
                  {.kind = K_STR, .s = "hello"}, {.kind = K_PAIR, .pair = {6, -7}}};
  double w = 0;
  for (int i = 0; i < 4; i++) w += value_weight(vals[i]);
  CHECK(w == -40 + 2.25 + 5 - 42);
  Value v2 = vals[3];
  vals[3].pair.a = 0;
  CHECK(v2.pair.a == 6 && value_weight(v2) == -42);

  union Pun p;
  p.f = 1.0f;
  CHECK(p.u == 0x3f800000u);
  p.f = -2.5f;
  CHECK(p.u == 0xc0200000u);
  p.u = 0x7f800000u;
  CHECK(p.f > 3.0e38f && p.f == p.f + 1.0f); /* +infinity */
  p.u = 0x01020304u;
  CHECK(p.bytes[0] == 4 && p.bytes[3] == 1); /* x86-64 and AArch64 are little-endian */
  union Pun64 q;
  q.d = 0.1;
  CHECK(q.u == 0x3fb999999999999aull);
  q.u += 1;
  CHECK(q.d > 0.1 && q.d - 0.1 < 2e-17); /* one ulp is 2^-56 */

  struct Flags f = {0};
  f.ready = 1; f.mode = 5; f.delta = -9; f.big = 0xABCDE; f.after = 127;
  f.mode = (unsigned)(f.mode + 4) & 7u; /* 9 wraps to 1 within 3 bits */
  CHECK(f.ready == 1 && f.mode == 1 && f.delta == -9 && f.big == 0xABCDE && f.after == 127);
  f.delta = (signed int)(f.delta * 2 + 30); /* 12 */
  CHECK(f.delta == 12);
  f.big = (f.big + 0xFFFFF) & 0xFFFFFu;
  CHECK(f.big == 0xABCDD);

  IntVec *vec = malloc(sizeof *vec + 10 * sizeof(int));
  vec->len = 10;
  for (size_t i = 0; i < vec->len; i++) vec->data[i] = (int)(i * i);
  IntVec *bigger = realloc(vec, sizeof *vec + 20 * sizeof(int));
  if (bigger) {
    vec = bigger;
    for (size_t i = 10; i < 20; i++) vec->data[i] = -(int)i;
    vec->len = 20;
  }
  long s = 0;
  for (size_t i = 0; i < vec->len; i++) s += vec->data[i];
  CHECK(vec->len == 20 && s == 285 - 145);
  free(vec);

  const Pt *cl = (const Pt[]){{1, 2}, {3, 4}, {5, 6}};
  CHECK(cl[2].y == 6 && pt_add(cl[0], cl[1]).x == 4);
  CHECK(offsetof(Box, hi) == 2 * sizeof(int16_t) && sizeof(Pt) == 4);

  if (failures) {
    fprintf(stderr, "struct_union: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
