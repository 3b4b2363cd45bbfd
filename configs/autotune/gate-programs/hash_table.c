/* Two hash tables: open addressing (linear probing, tombstones, growth by
 * rehash) with integer keys and separate chaining with malloc'd string keys;
 * a random insert/update/delete workload is checked against a plain array. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "hash_table: line %d: %s\n", __LINE__, #c);              \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static uint32_t rng_state = 12345u;
static uint32_t rng(void) {
  rng_state = rng_state * 1664525u + 1013904223u;
  return rng_state >> 8;
}

/* ---- open addressing ---- */
enum { EMPTY = 0, FULL = 1, DELETED = 2 };
typedef struct {
  uint32_t *keys;
  int32_t *vals;
  uint8_t *state;
  size_t cap, size, used; /* used = size + tombstones */
} OTable;

static size_t hash_u32(uint32_t k) {
  k ^= k >> 16; k *= 0x7feb352du; k ^= k >> 15; k *= 0x846ca68bu; k ^= k >> 16;
  return k;
}

static void ot_init(OTable *t, size_t cap) {
  t->cap = cap;
  t->size = t->used = 0;
  t->keys = calloc(cap, sizeof *t->keys);
  t->vals = calloc(cap, sizeof *t->vals);
  t->state = calloc(cap, 1);
}
static void ot_free(OTable *t) { free(t->keys); free(t->vals); free(t->state); }

static void ot_put(OTable *t, uint32_t k, int32_t v);
static void ot_grow(OTable *t) {
  OTable n;
  ot_init(&n, t->size * 4 > t->cap ? t->cap * 2 : t->cap);
  for (size_t i = 0; i < t->cap; i++)
    if (t->state[i] == FULL) ot_put(&n, t->keys[i], t->vals[i]);
  ot_free(t);
  *t = n;
}
static void ot_put(OTable *t, uint32_t k, int32_t v) {
  if ((t->used + 1) * 4 > t->cap * 3) ot_grow(t);
  size_t mask = t->cap - 1, i = hash_u32(k) & mask, tomb = (size_t)-1;
  for (;; i = (i + 1) & mask) {
    if (t->state[i] == EMPTY) break;
    if (t->state[i] == DELETED) { if (tomb == (size_t)-1) tomb = i; continue; }
    if (t->keys[i] == k) { t->vals[i] = v; return; }
  }
  if (tomb != (size_t)-1) i = tomb; else t->used++;
  t->state[i] = FULL; t->keys[i] = k; t->vals[i] = v; t->size++;
}
static int32_t *ot_get(OTable *t, uint32_t k) {
  size_t mask = t->cap - 1;
  for (size_t i = hash_u32(k) & mask, n = 0; n < t->cap; i = (i + 1) & mask, n++) {
    if (t->state[i] == EMPTY) return NULL;
    if (t->state[i] == FULL && t->keys[i] == k) return &t->vals[i];
  }
  return NULL;
}
static int ot_del(OTable *t, uint32_t k) {
  int32_t *p = ot_get(t, k);
  if (!p) return 0;
  size_t i = (size_t)(p - t->vals);
  t->state[i] = DELETED;
  t->size--;
  return 1;
}

/* ---- chaining with string keys ---- */
typedef struct Node { struct Node *next; int count; char key[]; } Node;
typedef struct { Node **buckets; size_t nbuckets, size; } CTable;

static uint32_t hash_str(const char *s) {
  uint32_t h = 2166136261u;
  while (*s) { h ^= (uint8_t)*s++; h *= 16777619u; }
  return h;
}
static void ct_add(CTable *t, const char *key) {
  Node **slot = &t->buckets[hash_str(key) % t->nbuckets];
  for (Node *n = *slot; n; n = n->next)
    if (strcmp(n->key, key) == 0) { n->count++; return; }
  size_t len = strlen(key) + 1;
  Node *n = malloc(sizeof *n + len);
  memcpy(n->key, key, len);
  n->count = 1;
  n->next = *slot;
  *slot = n;
  t->size++;
}
static int ct_remove(CTable *t, const char *key) {
  for (Node **p = &t->buckets[hash_str(key) % t->nbuckets]; *p; p = &(*p)->next) {
    if (strcmp((*p)->key, key) == 0) {
      Node *dead = *p;
      *p = dead->next;
      free(dead);
      t->size--;
      return 1;
    }
  }
  return 0;
}
static int ct_count(const CTable *t, const char *key) {
  for (Node *n = t->buckets[hash_str(key) % t->nbuckets]; n; n = n->next)
    if (strcmp(n->key, key) == 0) return n->count;
  return 0;
}

#define KEYSPACE 600
int main(void) {
  OTable t;
  ot_init(&t, 8);
  static int32_t ref[KEYSPACE];
  static uint8_t present[KEYSPACE];
  for (int step = 0; step < 20000; step++) {
    uint32_t r = rng();
    uint32_t key = r % KEYSPACE * 2654435761u; /* spread, includes 0 */
    uint32_t idx = r % KEYSPACE;
    switch ((r >> 12) % 4) {
    case 0: case 1:
      ot_put(&t, key, (int32_t)step);
      ref[idx] = (int32_t)step; present[idx] = 1;
      break;
    case 2:
      CHECK(ot_del(&t, key) == present[idx]);
      present[idx] = 0;
      break;
    default: {
      int32_t *v = ot_get(&t, key);
      CHECK((v != NULL) == present[idx]);
      if (v && present[idx]) CHECK(*v == ref[idx]);
    }
    }
  }
  size_t live = 0;
  for (int i = 0; i < KEYSPACE; i++) {
    live += present[i];
    int32_t *v = ot_get(&t, (uint32_t)i * 2654435761u);
    CHECK((v != NULL) == present[i]);
    if (v && present[i]) CHECK(*v == ref[i]);
  }
  CHECK(live == t.size);
  CHECK((t.cap & (t.cap - 1)) == 0 && t.used * 4 <= t.cap * 3);
  ot_free(&t);

  CTable c = {calloc(31, sizeof(Node *)), 31, 0};
  const char *text =
      "it was the best of times it was the worst of times it was the age of "
      "wisdom it was the age of foolishness it was the epoch of belief it was "
      "the epoch of incredulity";
  char word[32];
  size_t w = 0, words = 0;
  for (const char *p = text;; p++) {
    if (*p == ' ' || *p == '\0') {
      if (w) { word[w] = 0; ct_add(&c, word); words++; w = 0; }
      if (!*p) break;
    } else if (w < sizeof word - 1) {
      word[w++] = *p;
    }
  }
  CHECK(words == 36);
  CHECK(ct_count(&c, "it") == 6 && ct_count(&c, "was") == 6 && ct_count(&c, "the") == 6);
  CHECK(ct_count(&c, "of") == 6 && ct_count(&c, "times") == 2 && ct_count(&c, "age") == 2);
  CHECK(ct_count(&c, "epoch") == 2 && ct_count(&c, "wisdom") == 1 && ct_count(&c, "zebra") == 0);
  CHECK(c.size == 13);
  CHECK(ct_remove(&c, "the") == 1 && ct_remove(&c, "the") == 0 && ct_count(&c, "the") == 0);
  CHECK(c.size == 12);
  int total = 0;
  for (size_t b = 0; b < c.nbuckets; b++)
    for (Node *n = c.buckets[b]; n; n = n->next) total += n->count;
  CHECK(total == 30);
  for (size_t b = 0; b < c.nbuckets; b++)
    while (c.buckets[b]) { Node *n = c.buckets[b]; c.buckets[b] = n->next; free(n); }
  free(c.buckets);

  if (failures) {
    fprintf(stderr, "hash_table: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
