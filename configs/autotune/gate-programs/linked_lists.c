/* Singly linked lists (iterative and recursive reversal, merge sort, removal
 * through pointer-to-pointer, Floyd cycle detection) and a doubly linked LRU
 * cache whose hit count must match an array-based reference simulation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "linked_lists: line %d: %s\n", __LINE__, #c);            \
      failures++;                                                              \
    }                                                                          \
  } while (0)

typedef struct Node { int v; struct Node *next; } Node;

static Node *push(Node *head, int v) {
  Node *n = malloc(sizeof *n);
  n->v = v;
  n->next = head;
  return n;
}
static Node *reverse_iter(Node *h) {
  Node *prev = NULL;
  while (h) { Node *next = h->next; h->next = prev; prev = h; h = next; }
  return prev;
}
static Node *reverse_rec(Node *h) {
  if (!h || !h->next) return h;
  Node *rest = reverse_rec(h->next);
  h->next->next = h;
  h->next = NULL;
  return rest;
}
static Node *merge(Node *a, Node *b) {
  Node head, *tail = &head;
  while (a && b) {
    if (b->v < a->v) { tail->next = b; b = b->next; }
    else { tail->next = a; a = a->next; }
    tail = tail->next;
  }
  tail->next = a ? a : b;
  return head.next;
}
static Node *msort(Node *h) {
  if (!h || !h->next) return h;
  Node *slow = h, *fast = h->next;
  while (fast && fast->next) { slow = slow->next; fast = fast->next->next; }
  Node *second = slow->next;
  slow->next = NULL;
  return merge(msort(h), msort(second));
}
static void remove_if(Node **pp, int (*pred)(int)) {
  while (*pp) {
    if (pred((*pp)->v)) { Node *dead = *pp; *pp = dead->next; free(dead); }
    else pp = &(*pp)->next;
  }
}
static int is_multiple_of_3(int v) { return v % 3 == 0; }
static int has_cycle(const Node *h) {
  const Node *slow = h, *fast = h;
  while (fast && fast->next) {
    slow = slow->next;
    fast = fast->next->next;
    if (slow == fast) return 1;
  }
  return 0;
}
static int length(const Node *h) { int n = 0; for (; h; h = h->next) n++; return n; }
static long weighted(const Node *h) { long s = 0; int i = 1; for (; h; h = h->next) s += (long)i++ * h->v; return s; }
static void free_list(Node *h) { while (h) { Node *n = h->next; free(h); h = n; } }

/* Doubly linked LRU cache with a sentinel. */
typedef struct D { struct D *prev, *next; int key; } D;
#define CAP 16
static D sentinel = {&sentinel, &sentinel, -1};
static D *slot_of[256];
static int lru_size;

static void unlink_node(D *d) { d->prev->next = d->next; d->next->prev = d->prev; }
static void push_front(D *d) {
  d->next = sentinel.next; d->prev = &sentinel;
  sentinel.next->prev = d; sentinel.next = d;
}
static int lru_access(int key) {
  D *d = slot_of[key];
  if (d) { unlink_node(d); push_front(d); return 1; }
  if (lru_size == CAP) {
    D *victim = sentinel.prev;
    unlink_node(victim);
    slot_of[victim->key] = NULL;
    free(victim);
    lru_size--;
  }
  d = malloc(sizeof *d);
  d->key = key;
  push_front(d);
  slot_of[key] = d;
  lru_size++;
  return 0;
}
/* Reference: array ordered most-recent-first. */
static int ref_keys[CAP], ref_n;
static int ref_access(int key) {
  int i;
  for (i = 0; i < ref_n && ref_keys[i] != key; i++) {}
  int hit = i < ref_n;
  if (!hit) { if (ref_n < CAP) ref_n++; i = ref_n - 1; }
  for (; i > 0; i--) ref_keys[i] = ref_keys[i - 1];
  ref_keys[0] = key;
  return hit;
}

int main(void) {
  Node *h = NULL;
  uint32_t s = 99u;
  long sum = 0;
  for (int i = 0; i < 1000; i++) {
    s = s * 1103515245u + 12345u;
    int v = (int)(s >> 16) % 1000;
    h = push(h, v);
    sum += v;
  }
  CHECK(length(h) == 1000);
  long w1 = weighted(h);
  h = reverse_iter(h);
  h = reverse_rec(h);
  CHECK(weighted(h) == w1);
  h = reverse_iter(h);
  Node *r = reverse_iter(h);
  CHECK(weighted(r) == w1);
  h = msort(r);
  long sum2 = 0;
  int sorted = 1, n = 0;
  for (Node *p = h; p; p = p->next, n++) {
    sum2 += p->v;
    if (p->next && p->next->v < p->v) sorted = 0;
  }
  CHECK(sorted && n == 1000 && sum2 == sum);
  int mult3 = 0;
  for (Node *p = h; p; p = p->next) mult3 += p->v % 3 == 0;
  remove_if(&h, is_multiple_of_3);
  CHECK(length(h) == 1000 - mult3);
  for (Node *p = h; p; p = p->next) CHECK(p->v % 3 != 0);
  CHECK(!has_cycle(h));
  Node *last = h;
  while (last->next) last = last->next;
  last->next = h->next->next; /* make a cycle */
  CHECK(has_cycle(h));
  last->next = NULL;
  CHECK(!has_cycle(h));
  free_list(h);

  int hits = 0, ref_hits = 0;
  for (int i = 0; i < 5000; i++) {
    s = s * 1103515245u + 12345u;
    /* skewed key distribution: small keys are hot */
    int key = (int)((s >> 16) % 40);
    if ((s >> 8) % 4 == 0) key = (int)((s >> 20) % 250);
    int hit_before = slot_of[key] != NULL;
    lru_access(key);
    hits += hit_before;
    ref_hits += ref_access(key);
  }
  CHECK(hits == ref_hits && hits > 0 && lru_size == CAP);
  int i = 0;
  for (D *d = sentinel.next; d != &sentinel; d = d->next, i++) CHECK(d->key == ref_keys[i]);
  CHECK(i == CAP);
  while (sentinel.next != &sentinel) { D *d = sentinel.next; unlink_node(d); free(d); }

  if (failures) {
    fprintf(stderr, "linked_lists: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
