/* Recursive AVL tree with subtree sizes (order statistics): insert, delete,
 * k-th smallest and rank queries checked against a sorted reference array;
 * balance factors, heights and sizes are re-verified after every batch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Avl {
  struct Avl *l, *r;
  int key, h, size;
} Avl;

static int H(const Avl *n) { return n ? n->h : 0; }
static int S(const Avl *n) { return n ? n->size : 0; }
static void fix(Avl *n) {
  int hl = H(n->l), hr = H(n->r);
  n->h = 1 + (hl > hr ? hl : hr);
  n->size = 1 + S(n->l) + S(n->r);
}
static Avl *rot_right(Avl *n) {
  Avl *l = n->l;
  n->l = l->r; l->r = n;
  fix(n); fix(l);
  return l;
}
static Avl *rot_left(Avl *n) {
  Avl *r = n->r;
  n->r = r->l; r->l = n;
  fix(n); fix(r);
  return r;
}
static Avl *balance(Avl *n) {
  fix(n);
  int bf = H(n->l) - H(n->r);
  if (bf > 1) {
    if (H(n->l->l) < H(n->l->r)) n->l = rot_left(n->l);
    return rot_right(n);
  }
  if (bf < -1) {
    if (H(n->r->r) < H(n->r->l)) n->r = rot_right(n->r);
    return rot_left(n);
  }
  return n;
}
static Avl *insert(Avl *n, int key, int *added) {
  if (!n) {
    n = calloc(1, sizeof *n);
    n->key = key; n->h = 1; n->size = 1;
    *added = 1;
    return n;
  }
  if (key < n->key) n->l = insert(n->l, key, added);
  else if (key > n->key) n->r = insert(n->r, key, added);
  else return n;
  return balance(n);
}
static Avl *remove_min(Avl *n, Avl **min) {
  if (!n->l) { *min = n; return n->r; }
  n->l = remove_min(n->l, min);
  return balance(n);
}
static Avl *erase(Avl *n, int key, int *removed) {
  if (!n) return NULL;
  if (key < n->key) n->l = erase(n->l, key, removed);
  else if (key > n->key) n->r = erase(n->r, key, removed);
  else {
    *removed = 1;
    Avl *l = n->l, *r = n->r;
    free(n);
    if (!r) return l;
    Avl *m;
    r = remove_min(r, &m);
    m->l = l; m->r = r;
    return balance(m);
  }
  return balance(n);
}
static const Avl *kth(const Avl *n, int k) { /* 0-based */
  while (n) {
    int ls = S(n->l);
    if (k < ls) n = n->l;
    else if (k == ls) return n;
    else { k -= ls + 1; n = n->r; }
  }
  return NULL;
}
static int rank_of(const Avl *n, int key) { /* number of keys < key */
  int r = 0;
  while (n) {
    if (key <= n->key) n = n->l;
    else { r += S(n->l) + 1; n = n->r; }
  }
  return r;
}
static int check(const Avl *n, long lo, long hi) {
  if (!n) return 1;
  if (n->key <= lo || n->key >= hi) return 0;
  int bf = H(n->l) - H(n->r);
  if (bf < -1 || bf > 1) return 0;
  int hl = H(n->l), hr = H(n->r);
  if (n->h != 1 + (hl > hr ? hl : hr) || n->size != 1 + S(n->l) + S(n->r)) return 0;
  return check(n->l, lo, n->key) && check(n->r, n->key, hi);
}
static void destroy(Avl *n) {
  if (!n) return;
  destroy(n->l);
  destroy(n->r);
  free(n);
}

/* Reference: sorted array with binary search. */
static int ref[4096], nref;
static int ref_find(int key) {
  int lo = 0, hi = nref;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (ref[mid] < key) lo = mid + 1; else hi = mid;
  }
  return lo;
}

int main(void) {
  int failures = 0;
  Avl *t = NULL;
  unsigned long long s = 88172645463325252ull;
  for (int batch = 0; batch < 16; batch++) {
    for (int i = 0; i < 300; i++) {
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      int key = (int)(s % 5000) - 2500;
      int pos = ref_find(key);
      int present = pos < nref && ref[pos] == key;
      if ((s >> 40) % 3 != 0 || batch >= 12) {
        if (batch >= 12) { /* draining phase: delete */
          int removed = 0;
          t = erase(t, key, &removed);
          if (removed != present) failures++;
          if (present) { memmove(ref + pos, ref + pos + 1, (size_t)(nref - pos - 1) * sizeof *ref); nref--; }
          continue;
        }
        int added = 0;
        t = insert(t, key, &added);
        if (added == present) failures++;
        if (!present) { memmove(ref + pos + 1, ref + pos, (size_t)(nref - pos) * sizeof *ref); ref[pos] = key; nref++; }
      } else {
        int removed = 0;
        t = erase(t, key, &removed);
        if (removed != present) failures++;
        if (present) { memmove(ref + pos, ref + pos + 1, (size_t)(nref - pos - 1) * sizeof *ref); nref--; }
      }
    }
    if (!check(t, -100000, 100000) || S(t) != nref) {
      fprintf(stderr, "avl: structure broken after batch %d\n", batch);
      failures++;
    }
    for (int k = 0; k < nref; k += 7) {
      const Avl *n = kth(t, k);
      if (!n || n->key != ref[k] || rank_of(t, ref[k]) != k) {
        fprintf(stderr, "avl: order statistic %d wrong\n", k);
        failures++;
        break;
      }
    }
    if (kth(t, nref) != NULL || rank_of(t, 1000000) != nref || rank_of(t, -1000000) != 0) failures++;
    /* Height of an AVL tree is below 1.45 log2(n + 2). */
    int lg = 0;
    for (int m = nref + 2; m > 1; m >>= 1) lg++;
    if (H(t) * 100 > 145 * (lg + 1)) { fprintf(stderr, "avl: too tall\n"); failures++; }
  }
  destroy(t);
  if (failures) {
    fprintf(stderr, "avl: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
