/* Dynamic memory: a growable array (realloc doubling and shrinking), a string
 * builder, a fixed-size pool allocator with an intrusive free list, and many
 * live malloc blocks with fill patterns verified before being freed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "dynamic_memory: line %d: %s\n", __LINE__, #c);          \
      failures++;                                                              \
    }                                                                          \
  } while (0)

typedef struct { long *items; size_t len, cap; unsigned reallocs; } Vec;
static int vec_push(Vec *v, long x) {
  if (v->len == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 4;
    long *p = realloc(v->items, cap * sizeof *p);
    if (!p) return 0;
    v->items = p;
    v->cap = cap;
    v->reallocs++;
  }
  v->items[v->len++] = x;
  return 1;
}
static void vec_shrink(Vec *v) {
  if (v->len == 0) { free(v->items); v->items = NULL; v->cap = 0; return; }
  long *p = realloc(v->items, v->len * sizeof *p);
  if (p) { v->items = p; v->cap = v->len; }
}

typedef struct { char *buf; size_t len, cap; } Sb;
static void sb_append(Sb *sb, const char *s, size_t n) {
  if (sb->len + n + 1 > sb->cap) {
    size_t cap = sb->cap ? sb->cap : 8;
    while (cap < sb->len + n + 1) cap += cap / 2 + 1;
    char *p = realloc(sb->buf, cap);
    if (!p) abort();
    sb->buf = p;
    sb->cap = cap;
  }
  memcpy(sb->buf + sb->len, s, n);
  sb->len += n;
  sb->buf[sb->len] = '\0';
}
static void sb_append_uint(Sb *sb, unsigned long v) {
  char tmp[24];
  int n = 0;
  do { tmp[sizeof tmp - 1 - n++] = (char)('0' + v % 10); v /= 10; } while (v);
  sb_append(sb, tmp + sizeof tmp - n, (size_t)n);
}

/* Pool of fixed-size blocks carved from one malloc'd slab. */
typedef union Block { union Block *next; struct { int32_t id; int32_t payload[7]; } obj; } Block;
typedef struct { Block *slab, *free_list; size_t n, in_use; } Pool;
static void pool_init(Pool *p, size_t n) {
  p->slab = malloc(n * sizeof(Block));
  p->n = n;
  p->in_use = 0;
  p->free_list = NULL;
  for (size_t i = n; i-- > 0;) { p->slab[i].next = p->free_list; p->free_list = &p->slab[i]; }
}
static Block *pool_alloc(Pool *p) {
  Block *b = p->free_list;
  if (b) { p->free_list = b->next; p->in_use++; }
  return b;
}
static void pool_free(Pool *p, Block *b) { b->next = p->free_list; p->free_list = b; p->in_use--; }

int main(void) {
  Vec v = {NULL, 0, 0, 0};
  for (long i = 0; i < 10000; i++) CHECK(vec_push(&v, i * i - 5000));
  CHECK(v.len == 10000 && v.cap == 16384 && v.reallocs == 13);
  long sum = 0;
  for (size_t i = 0; i < v.len; i++) sum += v.items[i];
  CHECK(sum == 333283335000L - 50000000L);
  v.len = 1234;
  vec_shrink(&v);
  CHECK(v.cap == 1234 && v.items[1233] == 1233L * 1233 - 5000);
  v.len = 0;
  vec_shrink(&v);
  CHECK(v.items == NULL);

  Sb sb = {NULL, 0, 0};
  for (unsigned long i = 0; i < 500; i++) {
    sb_append_uint(&sb, i * 7919);
    sb_append(&sb, i % 10 == 9 ? "\n" : ",", 1);
  }
  CHECK(sb.len == strlen(sb.buf));
  unsigned long parsed = 0, count = 0;
  for (char *p = sb.buf; *p;) {
    char *end;
    unsigned long x = strtoul(p, &end, 10);
    CHECK(end > p && x == count * 7919);
    parsed += x;
    count++;
    p = end + 1;
  }
  CHECK(count == 500 && parsed == 7919UL * 499 * 500 / 2);
  free(sb.buf);

  Pool pool;
  pool_init(&pool, 64);
  Block *live[64];
  int nlive = 0;
  uint32_t s = 42u;
  for (int step = 0; step < 5000; step++) {
    s = s * 1103515245u + 12345u;
    if (((s >> 16) & 1) && nlive < 64) {
      Block *b = pool_alloc(&pool);
      CHECK(b != NULL);
      b->obj.id = step;
      for (int k = 0; k < 7; k++) b->obj.payload[k] = step * 7 + k;
      live[nlive++] = b;
    } else if (nlive > 0) {
      int idx = (int)((s >> 8) % (unsigned)nlive);
      Block *b = live[idx];
      int ok = 1;
      for (int k = 0; k < 7; k++) ok &= b->obj.payload[k] == b->obj.id * 7 + k;
      CHECK(ok);
      live[idx] = live[--nlive];
      pool_free(&pool, b);
    }
    if (nlive == 64) CHECK(pool_alloc(&pool) == NULL);
  }
  CHECK(pool.in_use == (size_t)nlive);
  free(pool.slab);

  /* Many heap blocks of varied sizes, each with a distinct pattern. */
  enum { NB = 300 };
  unsigned char *blocks[NB];
  size_t sizes[NB];
  for (int i = 0; i < NB; i++) {
    sizes[i] = (size_t)(i * 37 % 257) + 1;
    blocks[i] = i % 3 ? malloc(sizes[i]) : calloc(sizes[i], 1);
    if (i % 3 == 0) {
      int zero = 1;
      for (size_t k = 0; k < sizes[i]; k++) zero &= blocks[i][k] == 0;
      CHECK(zero);
    }
    memset(blocks[i], i & 0xff, sizes[i]);
  }
  for (int i = 0; i < NB; i += 2) { /* grow every other block, contents preserved */
    unsigned char *p = realloc(blocks[i], sizes[i] * 3);
    CHECK(p != NULL);
    if (!p) continue;
    int same = 1;
    for (size_t k = 0; k < sizes[i]; k++) same &= p[k] == (i & 0xff);
    CHECK(same);
    memset(p + sizes[i], 0xEE, sizes[i] * 2);
    blocks[i] = p;
    sizes[i] *= 3;
  }
  for (int i = 0; i < NB; i++) {
    int ok = 1;
    size_t orig = i % 2 ? sizes[i] : sizes[i] / 3;
    for (size_t k = 0; k < sizes[i]; k++) ok &= blocks[i][k] == (k < orig ? (i & 0xff) : 0xEE);
    if (!ok) { fprintf(stderr, "dynamic_memory: block %d corrupted\n", i); failures++; }
    free(blocks[i]);
  }
  void *p = realloc(NULL, 16); /* behaves like malloc */
  CHECK(p != NULL);
  free(p);
  free(NULL);

  if (failures) {
    fprintf(stderr, "dynamic_memory: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
