/* Red-black tree (CLRS, parent pointers, sentinel) under a pseudo-random
 * insert/delete workload; after each batch checks BST order, red-black
 * invariants, node count and membership against a reference bitmap. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct RB {
  struct RB *left, *right, *parent;
  int key;
  int red;
} RB;

static RB nil_node = {&nil_node, &nil_node, &nil_node, 0, 0};
#define NIL (&nil_node)
static RB *root = NIL;
static int failures;

static void rotate_left(RB *x) {
  RB *y = x->right;
  x->right = y->left;
  if (y->left != NIL) y->left->parent = x;
  y->parent = x->parent;
  if (x->parent == NIL) root = y;
  else if (x == x->parent->left) x->parent->left = y;
  else x->parent->right = y;
  y->left = x;
  x->parent = y;
}

static void rotate_right(RB *x) {
  RB *y = x->left;
  x->left = y->right;
  if (y->right != NIL) y->right->parent = x;
  y->parent = x->parent;
  if (x->parent == NIL) root = y;
  else if (x == x->parent->right) x->parent->right = y;
  else x->parent->left = y;
  y->right = x;
  x->parent = y;
}

static int insert(int key) {
  RB *y = NIL, *x = root;
  while (x != NIL) {
    y = x;
    if (key == x->key) return 0;
    x = key < x->key ? x->left : x->right;
  }
  RB *z = malloc(sizeof *z);
  z->key = key; z->left = z->right = NIL; z->parent = y; z->red = 1;
  if (y == NIL) root = z;
  else if (key < y->key) y->left = z;
  else y->right = z;
  while (z->parent->red) {
    RB *gp = z->parent->parent;
    if (z->parent == gp->left) {
      RB *u = gp->right;
      if (u->red) { z->parent->red = 0; u->red = 0; gp->red = 1; z = gp; }
      else {
        if (z == z->parent->right) { z = z->parent; rotate_left(z); }
        z->parent->red = 0; z->parent->parent->red = 1; rotate_right(z->parent->parent);
      }
    } else {
      RB *u = gp->left;
      if (u->red) { z->parent->red = 0; u->red = 0; gp->red = 1; z = gp; }
      else {
        if (z == z->parent->left) { z = z->parent; rotate_right(z); }
        z->parent->red = 0; z->parent->parent->red = 1; rotate_left(z->parent->parent);
      }
    }
  }
  root->red = 0;
  return 1;
}

static void transplant(RB *u, RB *v) {
  if (u->parent == NIL) root = v;
  else if (u == u->parent->left) u->parent->left = v;
  else u->parent->right = v;
  v->parent = u->parent; /* may write the sentinel's parent, as in CLRS */
}

static RB *minimum(RB *x) {
  while (x->left != NIL) x = x->left;
  return x;
}

static int erase(int key) {
  RB *z = root;
  while (z != NIL && z->key != key) z = key < z->key ? z->left : z->right;
  if (z == NIL) return 0;
  RB *y = z, *x;
  int y_was_red = y->red;
  if (z->left == NIL) { x = z->right; transplant(z, z->right); }
  else if (z->right == NIL) { x = z->left; transplant(z, z->left); }
  else {
    y = minimum(z->right);
    y_was_red = y->red;
    x = y->right;
    if (y->parent == z) x->parent = y;
    else { transplant(y, y->right); y->right = z->right; y->right->parent = y; }
    transplant(z, y);
    y->left = z->left; y->left->parent = y; y->red = z->red;
  }
  free(z);
  if (!y_was_red) {
    while (x != root && !x->red) {
      if (x == x->parent->left) {
        RB *w = x->parent->right;
        if (w->red) { w->red = 0; x->parent->red = 1; rotate_left(x->parent); w = x->parent->right; }
        if (!w->left->red && !w->right->red) { w->red = 1; x = x->parent; }
        else {
          if (!w->right->red) { w->left->red = 0; w->red = 1; rotate_right(w); w = x->parent->right; }
          w->red = x->parent->red; x->parent->red = 0; w->right->red = 0;
          rotate_left(x->parent); x = root;
        }
      } else {
        RB *w = x->parent->left;
        if (w->red) { w->red = 0; x->parent->red = 1; rotate_right(x->parent); w = x->parent->left; }
        if (!w->right->red && !w->left->red) { w->red = 1; x = x->parent; }
        else {
          if (!w->left->red) { w->right->red = 0; w->red = 1; rotate_left(w); w = x->parent->left; }
          w->red = x->parent->red; x->parent->red = 0; w->left->red = 0;
          rotate_right(x->parent); x = root;
        }
      }
    }
    x->red = 0;
  }
  return 1;
}

/* Returns the black height, or -1 on a violation; counts nodes. */
static int verify(const RB *n, long lo, long hi, int *count) {
  if (n == NIL) return 1;
  (*count)++;
  if (n->key <= lo || n->key >= hi) return -1;
  if (n->red && (n->left->red || n->right->red)) return -1;
  if (n->left != NIL && n->left->parent != n) return -1;
  if (n->right != NIL && n->right->parent != n) return -1;
  int l = verify(n->left, lo, n->key, count), r = verify(n->right, n->key, hi, count);
  if (l < 0 || r < 0 || l != r) return -1;
  return l + !n->red;
}

static int height(const RB *n) {
  if (n == NIL) return 0;
  int l = height(n->left), r = height(n->right);
  return 1 + (l > r ? l : r);
}

#define RANGE 2048
int main(void) {
  static uint8_t in[RANGE];
  uint32_t s = 7u;
  int members = 0;
  for (int round = 0; round < 12; round++) {
    for (int i = 0; i < 500; i++) {
      s ^= s << 13; s ^= s >> 17; s ^= s << 5;
      int key = (int)(s % RANGE) - RANGE / 2;
      int want_insert = round % 3 != 2 ? (s >> 20) % 4 != 0 : (s >> 20) % 4 == 0;
      if (want_insert) {
        int added = insert(key);
        if (added != !in[key + RANGE / 2]) { fprintf(stderr, "rbtree: insert %d\n", key); failures++; }
        if (added) { in[key + RANGE / 2] = 1; members++; }
      } else {
        int removed = erase(key);
        if (removed != in[key + RANGE / 2]) { fprintf(stderr, "rbtree: erase %d\n", key); failures++; }
        if (removed) { in[key + RANGE / 2] = 0; members--; }
      }
    }
    int count = 0;
    int bh = verify(root, -RANGE, RANGE, &count);
    if (bh < 0 || count != members || root->red || NIL->red) {
      fprintf(stderr, "rbtree: invariant broken after round %d (bh %d, count %d/%d)\n", round,
              bh, count, members);
      failures++;
    }
    /* Height bound 2*log2(n+1). */
    int h = height(root), bound = 0;
    for (int m = members + 1; m > 1; m >>= 1) bound++;
    if (h > 2 * (bound + 1)) { fprintf(stderr, "rbtree: height %d too large\n", h); failures++; }
  }
  /* In-order walk equals the set bits of the reference. */
  int expect_key = -RANGE / 2 - 1, visited = 0;
  for (RB *n = root == NIL ? NIL : minimum(root); n != NIL;) {
    while (expect_key + 1 < RANGE / 2 && !in[expect_key + 1 + RANGE / 2]) expect_key++;
    expect_key++;
    if (n->key != expect_key) { fprintf(stderr, "rbtree: in-order %d vs %d\n", n->key, expect_key); failures++; break; }
    visited++;
    if (n->right != NIL) n = minimum(n->right);
    else {
      RB *p = n->parent;
      while (p != NIL && n == p->right) { n = p; p = p->parent; }
      n = p;
    }
  }
  if (visited != members) { fprintf(stderr, "rbtree: visited %d of %d\n", visited, members); failures++; }
  for (int k = -RANGE / 2; k < RANGE / 2; k++) erase(k);
  if (root != NIL) { fprintf(stderr, "rbtree: not empty at the end\n"); failures++; }
  return failures ? 1 : 0;
}
