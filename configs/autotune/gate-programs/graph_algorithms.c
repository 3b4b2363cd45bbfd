/* Graph algorithms cross-checked against each other on generated graphs:
 * Dijkstra (binary heap) vs Bellman-Ford vs Floyd-Warshall, BFS vs unit
 * Floyd, union-find vs iterative DFS components, Kruskal vs Prim MST weight,
 * and Kahn's topological order validated edge by edge. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V 60
#define MAXE 400
#define INF 0x3fffffff

typedef struct { int from, to, w; } Edge;
static Edge edges[MAXE];
static int nedges;
static int adj_start[V + 1], adj_to[MAXE], adj_w[MAXE];

static uint32_t rng_s = 99991u;
static uint32_t rng(void) { rng_s ^= rng_s << 13; rng_s ^= rng_s >> 17; rng_s ^= rng_s << 5; return rng_s; }

static void build_csr(void) { /* counting sort of edges by source */
  memset(adj_start, 0, sizeof adj_start);
  for (int e = 0; e < nedges; e++) adj_start[edges[e].from + 1]++;
  for (int v = 0; v < V; v++) adj_start[v + 1] += adj_start[v];
  int fill[V];
  memcpy(fill, adj_start, sizeof fill);
  for (int e = 0; e < nedges; e++) {
    int slot = fill[edges[e].from]++;
    adj_to[slot] = edges[e].to;
    adj_w[slot] = edges[e].w;
  }
}

/* Binary min-heap of (dist, vertex) with lazy deletion. */
typedef struct { int d, v; } HeapItem;
static HeapItem heap[MAXE + V];
static int heap_n;
static void heap_push(int d, int v) {
  int i = heap_n++;
  while (i > 0 && heap[(i - 1) / 2].d > d) { heap[i] = heap[(i - 1) / 2]; i = (i - 1) / 2; }
  heap[i] = (HeapItem){d, v};
}
static HeapItem heap_pop(void) {
  HeapItem top = heap[0], last = heap[--heap_n];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= heap_n) break;
    if (c + 1 < heap_n && heap[c + 1].d < heap[c].d) c++;
    if (heap[c].d >= last.d) break;
    heap[i] = heap[c];
    i = c;
  }
  heap[i] = last;
  return top;
}
static void dijkstra(int src, int *dist) {
  for (int v = 0; v < V; v++) dist[v] = INF;
  dist[src] = 0;
  heap_n = 0;
  heap_push(0, src);
  while (heap_n) {
    HeapItem it = heap_pop();
    if (it.d > dist[it.v]) continue;
    for (int k = adj_start[it.v]; k < adj_start[it.v + 1]; k++) {
      int nd = it.d + adj_w[k];
      if (nd < dist[adj_to[k]]) { dist[adj_to[k]] = nd; heap_push(nd, adj_to[k]); }
    }
  }
}
static void bellman_ford(int src, int *dist) {
  for (int v = 0; v < V; v++) dist[v] = INF;
  dist[src] = 0;
  for (int round = 0; round < V - 1; round++) {
    int changed = 0;
    for (int e = 0; e < nedges; e++)
      if (dist[edges[e].from] != INF && dist[edges[e].from] + edges[e].w < dist[edges[e].to]) {
        dist[edges[e].to] = dist[edges[e].from] + edges[e].w;
        changed = 1;
      }
    if (!changed) break;
  }
}
static int fw[V][V];
static void floyd(int unit) {
  for (int i = 0; i < V; i++)
    for (int j = 0; j < V; j++) fw[i][j] = i == j ? 0 : INF;
  for (int e = 0; e < nedges; e++) {
    int w = unit ? 1 : edges[e].w;
    if (w < fw[edges[e].from][edges[e].to]) fw[edges[e].from][edges[e].to] = w;
  }
  for (int k = 0; k < V; k++)
    for (int i = 0; i < V; i++)
      for (int j = 0; j < V; j++)
        if (fw[i][k] + fw[k][j] < fw[i][j]) fw[i][j] = fw[i][k] + fw[k][j];
}
static void bfs(int src, int *level) {
  int queue[V], qh = 0, qt = 0;
  for (int v = 0; v < V; v++) level[v] = INF;
  level[src] = 0;
  queue[qt++] = src;
  while (qh < qt) {
    int u = queue[qh++];
    for (int k = adj_start[u]; k < adj_start[u + 1]; k++)
      if (level[adj_to[k]] == INF) { level[adj_to[k]] = level[u] + 1; queue[qt++] = adj_to[k]; }
  }
}

static int parent[V];
static int find(int x) { while (parent[x] != x) { parent[x] = parent[parent[x]]; x = parent[x]; } return x; }
static int unite(int a, int b) { a = find(a); b = find(b); if (a == b) return 0; parent[a] = b; return 1; }
static int cmp_edge(const void *a, const void *b) {
  const Edge *x = a, *y = b;
  if (x->w != y->w) return x->w < y->w ? -1 : 1;
  return (x->from - y->from) ? x->from - y->from : x->to - y->to;
}

int main(void) {
  int failures = 0;
  /* Directed graph with positive weights. */
  nedges = 0;
  for (int e = 0; e < 300; e++)
    edges[nedges++] = (Edge){(int)(rng() % V), (int)(rng() % V), 1 + (int)(rng() % 50)};
  build_csr();
  floyd(0);
  int d1[V], d2[V];
  for (int src = 0; src < V; src++) {
    dijkstra(src, d1);
    bellman_ford(src, d2);
    for (int v = 0; v < V; v++)
      if (d1[v] != d2[v] || d1[v] != fw[src][v]) { failures++; fprintf(stderr, "graph: dist %d->%d\n", src, v); src = V; break; }
  }
  floyd(1);
  for (int src = 0; src < V; src += 7) {
    bfs(src, d1);
    for (int v = 0; v < V; v++)
      if (d1[v] != fw[src][v]) { failures++; fprintf(stderr, "graph: bfs %d->%d\n", src, v); break; }
  }

  /* Undirected sparse graph: components and MST. */
  nedges = 0;
  for (int e = 0; e < 70; e++) {
    int a = (int)(rng() % V), b = (int)(rng() % V);
    if (a == b) continue;
    edges[nedges++] = (Edge){a, b, 1 + (int)(rng() % 100)};
  }
  int und = nedges;
  for (int e = 0; e < und; e++) edges[nedges++] = (Edge){edges[e].to, edges[e].from, edges[e].w};
  build_csr();
  for (int v = 0; v < V; v++) parent[v] = v;
  int comps_uf = V;
  for (int e = 0; e < und; e++) comps_uf -= unite(edges[e].from, edges[e].to);
  int comp[V], comps_dfs = 0, stack[MAXE + V];
  for (int v = 0; v < V; v++) comp[v] = -1;
  for (int v = 0; v < V; v++) {
    if (comp[v] >= 0) continue;
    int sp = 0;
    stack[sp++] = v;
    comp[v] = comps_dfs;
    while (sp) {
      int u = stack[--sp];
      for (int k = adj_start[u]; k < adj_start[u + 1]; k++)
        if (comp[adj_to[k]] < 0) { comp[adj_to[k]] = comps_dfs; stack[sp++] = adj_to[k]; }
    }
    comps_dfs++;
  }
  if (comps_uf != comps_dfs) { fprintf(stderr, "graph: components %d vs %d\n", comps_uf, comps_dfs); failures++; }
  for (int v = 0; v < V; v++)
    for (int u = 0; u < V; u++)
      if ((comp[u] == comp[v]) != (find(u) == find(v))) { failures++; u = v = V; }

  /* Kruskal (minimum spanning forest) vs Prim run from every component. */
  Edge sorted[MAXE];
  memcpy(sorted, edges, (size_t)und * sizeof(Edge));
  qsort(sorted, (size_t)und, sizeof(Edge), cmp_edge);
  for (int v = 0; v < V; v++) parent[v] = v;
  long kruskal = 0;
  int used = 0;
  for (int e = 0; e < und; e++)
    if (unite(sorted[e].from, sorted[e].to)) { kruskal += sorted[e].w; used++; }
  long prim = 0;
  int in_tree[V] = {0}, key[V];
  for (int v = 0; v < V; v++) key[v] = INF;
  for (int root = 0; root < V; root++) {
    if (in_tree[root]) continue;
    key[root] = 0;
    for (;;) {
      int best = -1;
      for (int v = 0; v < V; v++)
        if (!in_tree[v] && key[v] < INF && (best < 0 || key[v] < key[best])) best = v;
      if (best < 0) break;
      in_tree[best] = 1;
      prim += key[best];
      for (int k = adj_start[best]; k < adj_start[best + 1]; k++)
        if (!in_tree[adj_to[k]] && adj_w[k] < key[adj_to[k]]) key[adj_to[k]] = adj_w[k];
    }
  }
  if (kruskal != prim || used != V - comps_uf) { fprintf(stderr, "graph: MST %ld vs %ld\n", kruskal, prim); failures++; }

  /* DAG (edges only from lower to higher id, then relabelled) and Kahn. */
  int label[V];
  for (int v = 0; v < V; v++) label[v] = v;
  for (int v = V - 1; v > 0; v--) { int j = (int)(rng() % (uint32_t)(v + 1)); int t = label[v]; label[v] = label[j]; label[j] = t; }
  nedges = 0;
  for (int e = 0; e < 200; e++) {
    int a = (int)(rng() % V), b = (int)(rng() % V);
    if (a == b) continue;
    if (a > b) { int t = a; a = b; b = t; }
    edges[nedges++] = (Edge){label[a], label[b], 1};
  }
  build_csr();
  int indeg[V] = {0}, order[V], pos[V], n = 0, queue[V], qh = 0, qt = 0;
  for (int e = 0; e < nedges; e++) indeg[edges[e].to]++;
  for (int v = 0; v < V; v++) if (!indeg[v]) queue[qt++] = v;
  while (qh < qt) {
    int u = queue[qh++];
    order[n++] = u;
    for (int k = adj_start[u]; k < adj_start[u + 1]; k++)
      if (--indeg[adj_to[k]] == 0) queue[qt++] = adj_to[k];
  }
  if (n != V) { fprintf(stderr, "graph: topological sort found a cycle\n"); failures++; }
  for (int i = 0; i < n; i++) pos[order[i]] = i;
  for (int e = 0; e < nedges && n == V; e++)
    if (pos[edges[e].from] >= pos[edges[e].to]) { failures++; fprintf(stderr, "graph: order violates an edge\n"); break; }
  return failures ? 1 : 0;
}
