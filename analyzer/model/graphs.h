/* graphs.h - the CUDA graphs of a recording (graph_execs, graph_nodes,
 * graph_edges, graph_args; since schema 4): the structure each executable
 * graph took when it was instantiated or updated, each node with the call
 * that added or captured it, in an order of its edges; and which executable
 * graph each cudaGraphLaunch launched (stream_ops.handle).  A recording
 * without the tables has no graphs. */
#ifndef CL_REPORT_GRAPHS_H
#define CL_REPORT_GRAPHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/replay.h"
#include "u64map.h"

struct cl_db;

struct gnode {
  int type;                /* enum cl_gnode */
  uint64_t handle;
  int64_t added;           /* the call that added or captured it, -1 unknown */
  int64_t name;            /* kernels: strings id of the mangled name, -1 */
  const char *mangled;     /* ... and the name (names.h), NULL */
  uint64_t dst, src, bytes, value, event;
  int dir;                 /* copies: enum cl_dir */
  struct replay_arg *args; /* kernels: pointer arguments (graph_args) */
  size_t nargs;
  uint32_t *preds;         /* the nodes it depends on (indexes) */
  size_t npreds;
};

struct gsnap {
  int64_t seq;             /* the instantiation or exec update */
  uint64_t exec, graph;
  bool truncated;          /* the recorder did not keep every node or edge */
  struct gnode *nodes;
  size_t n;
  uint32_t *order;         /* node indexes, each after its predecessors */
  size_t norder;           /* < n when the edges have a cycle */
  /* a chain decomposition: lane[i] of node i; the nodes of one lane are
   * each ordered after the one before by an edge (a graph captured from
   * one stream is one lane), so a lane can run them as one stream; at
   * most 256 lanes, further chains share them (graphs.c MAX_LANES) */
  uint32_t *lane;
  size_t nlanes;
};

struct graphs {
  struct gsnap *v;         /* by seq */
  size_t n, cap;
  struct u64map launches;  /* launch seq -> exec handle */
};

void graphs_load(struct graphs *g, struct cl_db *db);
void graphs_free(struct graphs *g);
/* the structure the executable graph launched by call LAUNCH had then (the
 * latest taken before it), NULL when none was recorded */
const struct gsnap *graphs_launched(const struct graphs *g, int64_t launch);

#endif
