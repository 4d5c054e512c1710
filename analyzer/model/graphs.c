/* graphs.c - the CUDA graphs of a recording (see graphs.h).  The tables are
 * untrusted input: node indexes outside a structure's declared size, edges
 * between nodes it does not have and cycles are ignored; a structure keeps
 * at most as many nodes as it has rows and MAX_NODES (the recorder keeps
 * 16384), and all of them together at most MAX_ALL_NODES. */
#include "model/graphs.h"

#include <stdlib.h>
#include <string.h>

#include "cudalens/format.h"
#include "model/db.h"
#include "model/names.h"
#include "util.h"

#define MAX_NODES (1u << 16)
#define MAX_ALL_NODES (1u << 22)
/* each lane is a stream of the race analysis, whose clocks cost lanes
 * times streams: a wider graph's further chains share lanes, which orders
 * their nodes (a race between them is missed, none is made up) */
#define MAX_LANES 256u

static int dir_of(const char *s)
{
  for (int d = 0; d < CL_DIR_COUNT; d++)
    if (s && !strcmp(s, cl_dir_name((enum cl_dir)d)))
      return d;
  return CL_DIR_UNKNOWN;
}

static struct gsnap *snap_of(struct graphs *g, const struct u64map *idx,
                             int64_t seq)
{
  uint64_t i;
  return u64map_get(idx, (uint64_t)seq, &i) ? &g->v[i] : NULL;
}

static struct gnode *node_of(struct graphs *g, const struct u64map *idx,
                             int64_t seq, int64_t node)
{
  struct gsnap *s = snap_of(g, idx, seq);
  if (!s || node < 0 || (uint64_t)node >= s->n)
    return NULL;
  return &s->nodes[node];
}

/* Kahn's order of S's nodes along their edges */
static void order(struct gsnap *s)
{
  size_t *succ_n = xcalloc(s->n + 1, sizeof *succ_n);
  size_t *indeg = xcalloc(s->n + 1, sizeof *indeg);
  for (size_t i = 0; i < s->n; i++) {
    indeg[i] = s->nodes[i].npreds;
    for (size_t k = 0; k < s->nodes[i].npreds; k++)
      succ_n[s->nodes[i].preds[k]]++;
  }
  /* successors as one array, by node */
  size_t *start = xcalloc(s->n + 1, sizeof *start);
  for (size_t i = 0; i < s->n; i++)
    start[i + 1] = start[i] + succ_n[i];
  uint32_t *succ = xcalloc(start[s->n] + 1, sizeof *succ);
  memset(succ_n, 0, (s->n + 1) * sizeof *succ_n);
  for (size_t i = 0; i < s->n; i++)
    for (size_t k = 0; k < s->nodes[i].npreds; k++) {
      uint32_t p = s->nodes[i].preds[k];
      succ[start[p] + succ_n[p]++] = (uint32_t)i;
    }
  s->order = xcalloc(s->n + 1, sizeof *s->order);
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < s->n; i++)
    if (!indeg[i])
      s->order[tail++] = (uint32_t)i;
  while (head < tail) {
    uint32_t x = s->order[head++];
    for (size_t k = start[x]; k < start[x + 1]; k++)
      if (--indeg[succ[k]] == 0)
        s->order[tail++] = succ[k];
  }
  s->norder = tail;
  /* chains: a node continues the lane of a predecessor that is still that
   * lane's last node, else starts a lane */
  s->lane = xcalloc(s->n + 1, sizeof *s->lane);
  uint32_t *last = xcalloc(s->n + 1, sizeof *last); /* lane -> last node */
  for (size_t k = 0; k < s->norder; k++) {
    uint32_t x = s->order[k];
    const struct gnode *nd = &s->nodes[x];
    size_t l = s->nlanes;
    for (size_t p = 0; p < nd->npreds && l == s->nlanes; p++)
      if (last[s->lane[nd->preds[p]]] == nd->preds[p])
        l = s->lane[nd->preds[p]];
    if (l == s->nlanes) {
      if (s->nlanes < MAX_LANES)
        s->nlanes++;
      else /* too wide: shares a lane, ordered after its last node */
        l = x % MAX_LANES;
    }
    s->lane[x] = (uint32_t)l;
    last[l] = x;
  }
  free(last);
  free(succ_n);
  free(indeg);
  free(start);
  free(succ);
}

void graphs_load(struct graphs *g, struct cl_db *db)
{
  memset(g, 0, sizeof *g);
  u64map_init(&g->launches);
  if (db_has_table(db, "stream_ops")) {
    sqlite3_stmt *q = db_prepare(db, "SELECT seq, handle FROM stream_ops"
                                     " WHERE op = 'graph-launch'");
    while (q && db_step(db, q))
      u64map_put(&g->launches, (uint64_t)db_int(q, 0), (uint64_t)db_int(q, 1));
    db_finalize(q);
  }
  if (!db_has_table(db, "graph_execs") || !db_has_table(db, "graph_nodes"))
    return;
  struct u64map idx, top;
  u64map_init(&idx);
  u64map_init(&top);
  /* a structure's size: its declared count, at most its rows */
  sqlite3_stmt *q = db_prepare(db, "SELECT seq, count(*) FROM graph_nodes"
                                   " GROUP BY seq");
  while (q && db_step(db, q))
    u64map_put(&top, (uint64_t)db_int(q, 0), (uint64_t)db_int(q, 1));
  db_finalize(q);
#define X(t, c) CL_COL_##t##_##c
  q = db_prepare_table(db, CL_TABLE_graph_execs, CL_ALL_COLS, "ORDER BY seq");
  size_t all = 0;
  while (q && db_step(db, q)) {
    int64_t n = db_int(q, X(graph_execs, nodes));
    uint64_t most;
    if (!u64map_get(&top, (uint64_t)db_int(q, X(graph_execs, seq)), &most))
      most = 0;
    if (n < 0)
      continue;
    if ((uint64_t)n > most)
      n = (int64_t)most;
    if ((uint64_t)n > MAX_NODES)
      n = MAX_NODES;
    if (all + (size_t)n > MAX_ALL_NODES)
      n = 0;
    all += (size_t)n;
    GROW(g->v, g->cap, g->n + 1);
    struct gsnap *s = &g->v[g->n];
    memset(s, 0, sizeof *s);
    s->seq = db_int(q, X(graph_execs, seq));
    s->exec = (uint64_t)db_int(q, X(graph_execs, exec));
    s->graph = (uint64_t)db_int(q, X(graph_execs, graph));
    s->truncated = db_int(q, X(graph_execs, truncated)) != 0;
    s->n = (size_t)n;
    s->nodes = xcalloc(s->n + 1, sizeof *s->nodes);
    for (size_t i = 0; i < s->n; i++) {
      s->nodes[i].type = CL_GNODE_UNKNOWN;
      s->nodes[i].added = -1;
      s->nodes[i].name = -1;
    }
    u64map_put(&idx, (uint64_t)s->seq, g->n++);
  }
  db_finalize(q);
  u64map_free(&top);

  q = db_prepare_table(db, CL_TABLE_graph_nodes, CL_ALL_COLS, "");
  while (q && db_step(db, q)) {
    struct gnode *x = node_of(g, &idx, db_int(q, X(graph_nodes, seq)),
                              db_int(q, X(graph_nodes, node)));
    if (!x)
      continue;
    x->type = cl_gnode_of(db_text(q, X(graph_nodes, type)));
    x->handle = (uint64_t)db_int(q, X(graph_nodes, handle));
    x->added = db_null(q, X(graph_nodes, added)) ? -1
                                                  : db_int(q, X(graph_nodes, added));
    x->name = db_null(q, X(graph_nodes, name)) ? -1
                                                : db_int(q, X(graph_nodes, name));
    x->dst = (uint64_t)db_int(q, X(graph_nodes, dst));
    x->src = (uint64_t)db_int(q, X(graph_nodes, src));
    x->bytes = (uint64_t)db_int(q, X(graph_nodes, bytes));
    x->value = (uint64_t)db_int(q, X(graph_nodes, value));
    x->dir = dir_of(db_text(q, X(graph_nodes, direction)));
    x->event = (uint64_t)db_int(q, X(graph_nodes, event));
    if (x->name >= 0)
      x->mangled = names_string(db, x->name);
  }
  db_finalize(q);

  if (db_has_table(db, "graph_edges")) {
    q = db_prepare_table(db, CL_TABLE_graph_edges, CL_ALL_COLS, "");
    while (q && db_step(db, q)) {
      int64_t seq = db_int(q, X(graph_edges, seq));
      int64_t from = db_int(q, X(graph_edges, from_node));
      struct gnode *to = node_of(g, &idx, seq, db_int(q, X(graph_edges, to_node)));
      if (!to || !node_of(g, &idx, seq, from) || to->npreds >= 4096)
        continue;
      if (!(to->npreds & (to->npreds + 1))) /* 0, 1, 3, 7...: doubles */
        to->preds = xrealloc(to->preds, (2 * to->npreds + 2) * sizeof *to->preds);
      to->preds[to->npreds++] = (uint32_t)from;
    }
    db_finalize(q);
  }
  if (db_has_table(db, "graph_args")) {
    q = db_prepare_table(db, CL_TABLE_graph_args, CL_ALL_COLS,
                         "ORDER BY seq, node, param, offset");
    while (q && db_step(db, q)) {
      struct gnode *x = node_of(g, &idx, db_int(q, X(graph_args, seq)),
                                db_int(q, X(graph_args, node)));
      if (!x)
        continue;
      if (!(x->nargs & (x->nargs + 1))) /* 0, 1, 3, 7...: doubles */
        x->args = xrealloc(x->args, (2 * x->nargs + 2) * sizeof *x->args);
      x->args[x->nargs++] = (struct replay_arg){
          .param = db_int(q, X(graph_args, param)),
          .offset = db_int(q, X(graph_args, offset)),
          .value = (uint64_t)db_int(q, X(graph_args, value))};
    }
    db_finalize(q);
  }
  /* the words that may be stale (since schema 7): of a parameter, from an
   * offset on (the args are in (param, offset) order) */
  if (db_has_table(db, "graph_uninit_params")) {
    q = db_prepare_table(db, CL_TABLE_graph_uninit_params, CL_ALL_COLS, "");
    while (q && db_step(db, q)) {
      struct gnode *x = node_of(g, &idx, db_int(q, X(graph_uninit_params, seq)),
                                db_int(q, X(graph_uninit_params, node)));
      int64_t param = db_int(q, X(graph_uninit_params, param));
      int64_t from = db_int(q, X(graph_uninit_params, from_offset));
      for (size_t a = 0; x && a < x->nargs; a++)
        if (x->args[a].param == param && x->args[a].offset >= from)
          x->args[a].uninit = true;
    }
    db_finalize(q);
  }
#undef X
  for (size_t i = 0; i < g->n; i++)
    order(&g->v[i]);
  u64map_free(&idx);
}

void graphs_free(struct graphs *g)
{
  for (size_t i = 0; i < g->n; i++) {
    struct gsnap *s = &g->v[i];
    for (size_t k = 0; k < s->n; k++) {
      free(s->nodes[k].args);
      free(s->nodes[k].preds);
    }
    free(s->nodes);
    free(s->order);
    free(s->lane);
  }
  free(g->v);
  u64map_free(&g->launches);
  memset(g, 0, sizeof *g);
}

const struct gsnap *graphs_launched(const struct graphs *g, int64_t launch)
{
  uint64_t exec;
  if (!u64map_get(&g->launches, (uint64_t)launch, &exec))
    return NULL;
  /* the latest structure of EXEC taken before the launch (v is by seq) */
  size_t lo = 0, hi = g->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (g->v[mid].seq < launch)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i-- > 0;)
    if (g->v[i].exec == exec)
      return &g->v[i];
  return NULL;
}
