/* graphs.c - CUDA graphs as what they are.  Three things:
 *
 *   - which call added each node: an explicit cudaGraphAdd*Node call
 *     (capture.c hands over its output node), or a call made on a capturing
 *     stream, whose node cuStreamGetCaptureInfo names at the call's exit
 *     (the stream's capture dependencies are then exactly the node it just
 *     added: CUDA Runtime API, cudaStreamGetCaptureInfo);
 *   - the structure of a graph when an executable graph is made or updated
 *     from it (cudaGraphInstantiate*, cudaGraphExecUpdate): its nodes (the
 *     kernel with its pointer arguments, copies, memsets, events, memory
 *     nodes), child graphs flattened into their parent between the child
 *     node and a GRAPH_END node, and its edges; written as a graph_execs
 *     record followed by graph_nodes and graph_edges records;
 *   - a launch (cudaGraphLaunch) guards the host memory its copy, memset
 *     and kernel nodes touch, as the same work issued to the stream would
 *     be (hostguard.c).
 *
 * The driver calls made here are the shim's own: capture.c ignores their
 * callbacks, and driver calls leave no error behind for the program to
 * find (only the runtime has a last error).  The legacy default stream is
 * never asked about capture (it may not be used while a blocking stream
 * captures). */
#include <cuda.h>
#include <stdlib.h>
#include <string.h>

#include "cudalens/mangle_const.h"
#include "driver.h"
#include "graphs.h"
#include "hostguard.h"
#include "kparams.h"
#include "ring.h"
#include "shim.h"

#define MAX_NODES 16384 /* per structure; more: the rest are not kept */
#define MAX_EDGES 65536

/* ---- the driver functions used, found once ----------------------------- */
static struct {
  CUresult (*get_nodes)(CUgraph, CUgraphNode *, size_t *);
  CUresult (*get_edges)(CUgraph, CUgraphNode *, CUgraphNode *,
                        CUgraphEdgeData *, size_t *);
  CUresult (*get_edges_v1)(CUgraph, CUgraphNode *, CUgraphNode *, size_t *);
  CUresult (*node_type)(CUgraphNode, CUgraphNodeType *);
  CUresult (*kernel_params)(CUgraphNode, CUDA_KERNEL_NODE_PARAMS *);
  CUresult (*memcpy_params)(CUgraphNode, CUDA_MEMCPY3D *);
  CUresult (*memset_params)(CUgraphNode, CUDA_MEMSET_NODE_PARAMS *);
  CUresult (*child)(CUgraphNode, CUgraph *);
  CUresult (*record_event)(CUgraphNode, CUevent *);
  CUresult (*wait_event)(CUgraphNode, CUevent *);
  CUresult (*alloc_params)(CUgraphNode, CUDA_MEM_ALLOC_NODE_PARAMS *);
  CUresult (*free_params)(CUgraphNode, CUdeviceptr *);
  CUresult (*func_name)(const char **, CUfunction);
  CUresult (*kernel_name)(const char **, CUkernel);
  CUresult (*capture_info)(CUstream, CUstreamCaptureStatus *, cuuint64_t *,
                           CUgraph *, const CUgraphNode **,
                           const CUgraphEdgeData **, size_t *);
  CUresult (*capture_info_v2)(CUstream, CUstreamCaptureStatus *, cuuint64_t *,
                              CUgraph *, const CUgraphNode **, size_t *);
} D;
static pthread_once_t bind_once = PTHREAD_ONCE_INIT;

static void bind(void)
{
#define SYM(field, name) *(void **)&D.field = cl_driver_sym(name)
  SYM(get_nodes, "cuGraphGetNodes");
  SYM(get_edges, "cuGraphGetEdges_v2");
  SYM(get_edges_v1, "cuGraphGetEdges");
  SYM(node_type, "cuGraphNodeGetType");
  SYM(kernel_params, "cuGraphKernelNodeGetParams_v2");
  SYM(memcpy_params, "cuGraphMemcpyNodeGetParams");
  SYM(memset_params, "cuGraphMemsetNodeGetParams");
  SYM(child, "cuGraphChildGraphNodeGetGraph");
  SYM(record_event, "cuGraphEventRecordNodeGetEvent");
  SYM(wait_event, "cuGraphEventWaitNodeGetEvent");
  SYM(alloc_params, "cuGraphMemAllocNodeGetParams");
  SYM(free_params, "cuGraphMemFreeNodeGetParams");
  SYM(func_name, "cuFuncGetName");
  SYM(kernel_name, "cuKernelGetName");
  SYM(capture_info, "cuStreamGetCaptureInfo_v3");
  SYM(capture_info_v2, "cuStreamGetCaptureInfo_v2");
#undef SYM
}

/* ---- node -> the call that added it ------------------------------------ */
#define ADDED_BITS 16
#define ADDED_SLOTS (1u << ADDED_BITS)
static struct added {
  uint64_t node, seq;
} added[ADDED_SLOTS];
static unsigned nadded;
static pthread_mutex_t added_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned slot_of(uint64_t node)
{
  return cl_hash_bits(node >> 4, ADDED_BITS);
}

void cl_graph_node_added(uint64_t node, uint64_t seq)
{
  if (!node)
    return;
  pthread_mutex_lock(&added_lock);
  if (nadded >= ADDED_SLOTS / 4 * 3) { /* full: the oldest go (lines only) */
    memset(added, 0, sizeof added);
    nadded = 0;
  }
  for (unsigned k = 0, i = slot_of(node); k < ADDED_SLOTS;
       k++, i = (i + 1) % ADDED_SLOTS) {
    if (added[i].node == node || !added[i].node) {
      nadded += !added[i].node;
      added[i] = (struct added){node, seq};
      break;
    }
  }
  pthread_mutex_unlock(&added_lock);
}

static uint64_t added_by(uint64_t node)
{
  uint64_t seq = 0;
  pthread_mutex_lock(&added_lock);
  for (unsigned k = 0, i = slot_of(node); k < ADDED_SLOTS;
       k++, i = (i + 1) % ADDED_SLOTS) {
    if (!added[i].node)
      break;
    if (added[i].node == node) {
      seq = added[i].seq;
      break;
    }
  }
  pthread_mutex_unlock(&added_lock);
  return seq;
}

/* ---- stream capture ----------------------------------------------------- */
static _Atomic int captures; /* begun and not ended, over all threads */

void cl_graph_capture(int begin)
{
  if (begin)
    atomic_fetch_add(&captures, 1);
  else if (atomic_load(&captures) > 0)
    atomic_fetch_sub(&captures, 1);
}

int cl_graph_capturing(uint64_t stream)
{
  if (!atomic_load_explicit(&captures, memory_order_relaxed) || stream == 0)
    return 0;
  pthread_once(&bind_once, bind);
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t id;
  CUstream s = (CUstream)(uintptr_t)stream;
  if (D.capture_info) {
    CUgraph g;
    const CUgraphNode *deps;
    const CUgraphEdgeData *ed;
    size_t n;
    if (D.capture_info(s, &st, &id, &g, &deps, &ed, &n) != CUDA_SUCCESS)
      return 0;
  } else if (D.capture_info_v2) {
    CUgraph g;
    const CUgraphNode *deps;
    size_t n;
    if (D.capture_info_v2(s, &st, &id, &g, &deps, &n) != CUDA_SUCCESS)
      return 0;
  }
  return st == CU_STREAM_CAPTURE_STATUS_ACTIVE;
}

void cl_graph_captured(uint64_t stream, uint64_t seq)
{
  if (!atomic_load_explicit(&captures, memory_order_relaxed) || stream == 0)
    return;
  pthread_once(&bind_once, bind);
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t id;
  CUgraph g;
  const CUgraphNode *deps = NULL;
  size_t n = 0;
  CUstream s = (CUstream)(uintptr_t)stream;
  CUresult r = CUDA_ERROR_NOT_SUPPORTED;
  if (D.capture_info) {
    const CUgraphEdgeData *ed;
    r = D.capture_info(s, &st, &id, &g, &deps, &ed, &n);
  } else if (D.capture_info_v2) {
    r = D.capture_info_v2(s, &st, &id, &g, &deps, &n);
  }
  /* the work just captured is the stream's one dependency now */
  if (r == CUDA_SUCCESS && st == CU_STREAM_CAPTURE_STATUS_ACTIVE && n == 1 &&
      deps)
    cl_graph_node_added((uint64_t)(uintptr_t)deps[0], seq);
}

/* ---- what a launch guards (the host check) ------------------------------ */
struct guard {
  uint8_t kernel, dtoh;
  uint64_t addr, bytes;    /* copies and memsets: the host side */
  uint64_t constmask;      /* kernels: pointer-to-const parameters */
  uint8_t nkargs;          /* kernels: the words into memory the host
                            * reaches, the first CL_MAX_KARGS */
  struct cl_karg kargs[CL_MAX_KARGS];
};
struct exec_guards {
  uint64_t exec;
  struct guard *v;
  size_t n;
  /* the structure last written, for updates of single nodes */
  struct cl_gexec_rec head;
  struct cl_gnode_rec *nodes;
  struct cl_gedge_rec *edges;
  struct cl_karg *words;   /* the kernel nodes' words past CL_MAX_KARGS */
  struct exec_guards *next;
};
static struct exec_guards *execs;
static pthread_mutex_t execs_lock = PTHREAD_MUTEX_INITIALIZER;

/* EXEC's guards and structure become V and HEAD, NODES, EDGES, WORDS
 * (taken over); HEAD NULL: EXEC is gone */
static void execs_set(uint64_t exec, struct guard *v, size_t n,
                      const struct cl_gexec_rec *head,
                      struct cl_gnode_rec *nodes, struct cl_gedge_rec *edges,
                      struct cl_karg *words)
{
  pthread_mutex_lock(&execs_lock);
  struct exec_guards **pp = &execs;
  while (*pp && (*pp)->exec != exec)
    pp = &(*pp)->next;
  if (!*pp && head) {
    *pp = calloc(1, sizeof **pp);
    if (*pp)
      (*pp)->exec = exec;
  }
  struct exec_guards *x = *pp;
  if (x) {
    free(x->v);
    free(x->nodes);
    free(x->edges);
    free(x->words);
    x->v = v, x->n = n, x->nodes = nodes, x->edges = edges, x->words = words;
    v = NULL, nodes = NULL, edges = NULL, words = NULL;
    if (head) {
      x->head = *head;
    } else {
      *pp = x->next;
      free(x);
    }
  }
  pthread_mutex_unlock(&execs_lock);
  free(v);
  free(nodes);
  free(edges);
  free(words);
}

void cl_graph_exec_destroyed(uint64_t exec)
{
  execs_set(exec, NULL, 0, NULL, NULL, NULL, NULL);
}

/* Pointer parameters declared as pointers to const (bit i: parameter i). */
static uint64_t const_mask(const char *mangled)
{
  enum param_class cls[64];
  uint64_t mask = 0;
  int n = mangled ? mangle_param_classes(mangled, cls, 64) : -1;
  for (int i = 0; i < n && i < 64; i++)
    if (cls[i] == PARAM_PTR_CONST)
      mask |= 1ull << i;
  return mask;
}

void cl_graph_launched(uint64_t exec, uint64_t seq, uint64_t stream,
                       uint64_t tid, int32_t device)
{
  pthread_mutex_lock(&execs_lock);
  for (struct exec_guards *x = execs; x; x = x->next) {
    if (x->exec != exec)
      continue;
    for (size_t i = 0; i < x->n; i++) {
      const struct guard *g = &x->v[i];
      if (g->kernel)
        cl_hostguard_kernel(seq, stream, tid, device, g->kargs, g->nkargs,
                            g->constmask);
      else
        cl_hostguard_copy(seq, stream, tid, device, g->dtoh, g->addr,
                          g->bytes);
    }
    break;
  }
  pthread_mutex_unlock(&execs_lock);
}

/* ---- reading a graph ---------------------------------------------------- */
/* A structure's kernel nodes' words past their first CL_MAX_KARGS, one
 * node's after another's (a node's: where its more says) */
struct words {
  struct cl_karg *v;
  size_t n, cap;
};

struct snap {
  uint64_t seq;
  struct cl_gnode_rec *nodes;
  size_t n, cap;
  struct cl_gedge_rec *edges;
  size_t ne, cape;
  /* handle -> (entry, exit) node indexes, sorted by handle for lookups */
  struct hmap { uint64_t handle; uint32_t entry, exit; } *map;
  size_t nmap, capmap;
  int truncated;
  struct guard *guards;
  size_t ng, capg;
  struct words words;      /* the kernel nodes' words past CL_MAX_KARGS */
  struct cl_karg *scan;    /* a kernel node's scan (CL_LAUNCH_KARGS) */
};

static int grow(void **v, size_t *cap, size_t want, size_t size)
{
  if (want <= *cap)
    return 0;
  size_t nc = *cap ? *cap * 2 : 64;
  while (nc < want)
    nc *= 2;
  void *p = realloc(*v, nc * size);
  if (!p)
    return -1;
  *v = p;
  *cap = nc;
  return 0;
}

static int map_cmp(const void *a, const void *b)
{
  uint64_t x = ((const struct hmap *)a)->handle;
  uint64_t y = ((const struct hmap *)b)->handle;
  return x < y ? -1 : x > y;
}

static struct cl_gnode_rec *new_node(struct snap *s, uint64_t handle,
                                     uint8_t type)
{
  if (s->n >= MAX_NODES ||
      grow((void **)&s->nodes, &s->cap, s->n + 1, sizeof *s->nodes)) {
    s->truncated = 1;
    return NULL;
  }
  struct cl_gnode_rec *g = &s->nodes[s->n];
  memset(g, 0, sizeof *g);
  g->seq = s->seq;
  g->handle = handle;
  g->index = (uint32_t)s->n++;
  g->type = type;
  g->added = handle ? added_by(handle) : 0;
  return g;
}

static void add_edge(struct snap *s, uint32_t from, uint32_t to)
{
  if (s->ne >= MAX_EDGES ||
      grow((void **)&s->edges, &s->cape, s->ne + 1, sizeof *s->edges)) {
    s->truncated = 1;
    return;
  }
  s->edges[s->ne++] = (struct cl_gedge_rec){s->seq, from, to};
}

/* kernel node G's words past its first CL_MAX_KARGS become the K at V,
 * appended to W (not kept when memory is short: G says so) */
static void node_more(struct cl_gnode_rec *g, const struct cl_karg *v,
                      size_t k, struct words *w)
{
  g->more = (uint32_t)w->n;
  if (k && grow((void **)&w->v, &w->cap, w->n + k, sizeof *w->v)) {
    g->nkargs = CL_MAX_KARGS;
    g->kargs_truncated = 1;
    return;
  }
  if (k)
    memcpy(w->v + w->n, v, k * sizeof *v);
  w->n += k;
}

/* kernel node G's N words V (TRUNCATED: a scan left more): the first
 * CL_MAX_KARGS in G, the rest in W */
static void node_words(struct cl_gnode_rec *g, const struct cl_karg *v,
                       unsigned n, int truncated, struct words *w)
{
  unsigned first = n < CL_MAX_KARGS ? n : CL_MAX_KARGS;
  memcpy(g->kargs, v, first * sizeof *v);
  g->nkargs = (uint16_t)n;
  g->kargs_truncated = (uint8_t)truncated;
  node_more(g, v + first, n - first, w);
}

/* the guard of kernel node G (its words past CL_MAX_KARGS in WORDS) in
 * *GD: 0 when none of its words is in memory the host reaches */
static int kernel_guard(const struct cl_gnode_rec *g,
                        const struct cl_karg *words, struct guard *gd)
{
  memset(gd, 0, sizeof *gd);
  gd->kernel = 1;
  gd->constmask = g->constmask;
  for (unsigned i = 0; i < g->nkargs && gd->nkargs < CL_MAX_KARGS; i++) {
    const struct cl_karg *a =
        i < CL_MAX_KARGS ? &g->kargs[i] : &words[g->more + i - CL_MAX_KARGS];
    if (!a->device_only)
      gd->kargs[gd->nkargs++] = *a;
  }
  return gd->nkargs > 0;
}

static void add_guard(struct snap *s, const struct guard *g)
{
  if (grow((void **)&s->guards, &s->capg, s->ng + 1, sizeof *s->guards))
    return;
  s->guards[s->ng++] = *g;
}

static uint8_t copy_dir(CUmemorytype src, CUmemorytype dst)
{
  if (src == CU_MEMORYTYPE_UNIFIED || dst == CU_MEMORYTYPE_UNIFIED)
    return CL_DIR_DEFAULT;
  int sh = src == CU_MEMORYTYPE_HOST, dh = dst == CU_MEMORYTYPE_HOST;
  return sh && dh ? CL_DIR_HTOH : sh ? CL_DIR_HTOD : dh ? CL_DIR_DTOH
                                                        : CL_DIR_DTOD;
}

static const char *kernel_name(const CUDA_KERNEL_NODE_PARAMS *p)
{
  const char *name = NULL;
  if (p->func && D.func_name && D.func_name(&name, p->func) == CUDA_SUCCESS)
    return name;
  /* the runtime may hand a CUkernel in the function slot */
  void *k = p->func ? (void *)p->func : (void *)p->kern;
  if (k && D.kernel_name && D.kernel_name(&name, (CUkernel)k) == CUDA_SUCCESS)
    return name;
  return NULL;
}

static void read_node(struct snap *s, CUgraphNode h, int depth);

static void read_graph(struct snap *s, CUgraph graph, int depth)
{
  size_t n = 0;
  if (!D.get_nodes || D.get_nodes(graph, NULL, &n) != CUDA_SUCCESS)
    return;
  CUgraphNode *nodes = n ? calloc(n, sizeof *nodes) : NULL;
  if (n && (!nodes || D.get_nodes(graph, nodes, &n) != CUDA_SUCCESS)) {
    free(nodes);
    s->truncated = 1;
    return;
  }
  for (size_t i = 0; i < n; i++)
    read_node(s, nodes[i], depth);
  free(nodes);
  size_t ne = 0;
  CUresult r = D.get_edges ? D.get_edges(graph, NULL, NULL, NULL, &ne)
               : D.get_edges_v1 ? D.get_edges_v1(graph, NULL, NULL, &ne)
                                : CUDA_ERROR_NOT_SUPPORTED;
  if (r != CUDA_SUCCESS || !ne)
    return;
  CUgraphNode *from = calloc(ne, sizeof *from), *to = calloc(ne, sizeof *to);
  if (from && to)
    r = D.get_edges ? D.get_edges(graph, from, to, NULL, &ne)
                    : D.get_edges_v1(graph, from, to, &ne);
  if (!from || !to || r != CUDA_SUCCESS) {
    s->truncated = 1;
    free(from);
    free(to);
    return;
  }
  /* edges by handle: the map is sorted once per graph read */
  qsort(s->map, s->nmap, sizeof *s->map, map_cmp);
  for (size_t i = 0; i < ne; i++) {
    struct hmap kf = {(uint64_t)(uintptr_t)from[i], 0, 0};
    struct hmap kt = {(uint64_t)(uintptr_t)to[i], 0, 0};
    const struct hmap *f = bsearch(&kf, s->map, s->nmap, sizeof *s->map,
                                   map_cmp);
    const struct hmap *t = bsearch(&kt, s->map, s->nmap, sizeof *s->map,
                                   map_cmp);
    if (f && t)
      add_edge(s, f->exit, t->entry); /* out of a child graph: its end */
  }
  free(from);
  free(to);
}

static void read_node(struct snap *s, CUgraphNode h, int depth)
{
  CUgraphNodeType type;
  uint64_t handle = (uint64_t)(uintptr_t)h;
  if (!D.node_type || D.node_type(h, &type) != CUDA_SUCCESS)
    type = (CUgraphNodeType)CL_GNODE_UNKNOWN;
  struct cl_gnode_rec *g = new_node(s, handle, (uint8_t)type);
  if (!g)
    return;
  uint32_t index = g->index, exit = g->index;
  switch ((int)type) {
  case CU_GRAPH_NODE_TYPE_KERNEL: {
    CUDA_KERNEL_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    if (!D.kernel_params || D.kernel_params(h, &p) != CUDA_SUCCESS)
      break;
    const char *name = kernel_name(&p);
    g->name = name ? cl_intern(name) : 0;
    g->constmask = const_mask(name);
    if (!s->scan && !(s->scan = malloc(CL_LAUNCH_KARGS * sizeof *s->scan))) {
      g->kargs_truncated = 1; /* no memory: none kept */
      break;
    }
    struct cl_kscan ks = {.kargs = s->scan, .cap = CL_LAUNCH_KARGS};
    void *f = p.func ? (void *)p.func : (void *)p.kern;
    if (p.kernelParams && !p.extra)
      cl_kparams_scan(f, p.kernelParams, &ks, 0);
    node_words(g, ks.kargs, ks.n, ks.truncated, &s->words);
    struct guard gd;
    if (kernel_guard(g, s->words.v, &gd))
      add_guard(s, &gd);
    break;
  }
  case CU_GRAPH_NODE_TYPE_MEMCPY: {
    CUDA_MEMCPY3D m;
    memset(&m, 0, sizeof m);
    if (!D.memcpy_params || D.memcpy_params(h, &m) != CUDA_SUCCESS)
      break;
    uint64_t rows = (uint64_t)(m.Height ? m.Height : 1) * (m.Depth ? m.Depth : 1);
    uint64_t src = m.srcMemoryType == CU_MEMORYTYPE_HOST
                       ? (uint64_t)(uintptr_t)m.srcHost : (uint64_t)m.srcDevice;
    uint64_t dst = m.dstMemoryType == CU_MEMORYTYPE_HOST
                       ? (uint64_t)(uintptr_t)m.dstHost : (uint64_t)m.dstDevice;
    if (m.srcMemoryType == CU_MEMORYTYPE_ARRAY)
      src = 0;
    if (m.dstMemoryType == CU_MEMORYTYPE_ARRAY)
      dst = 0;
    /* a 1D copy is one row; a pitched one spans whole rows but the last */
    g->bytes = rows <= 1 ? m.WidthInBytes : m.WidthInBytes * rows;
    g->src = src ? src + m.srcXInBytes + m.srcY * m.srcPitch : 0;
    g->dst = dst ? dst + m.dstXInBytes + m.dstY * m.dstPitch : 0;
    g->dir = copy_dir(m.srcMemoryType, m.dstMemoryType);
    /* the host side, as a stream copy of that direction guards it */
    int dk = cl_allocmap_kind(g->dst, g->bytes), sk = cl_allocmap_kind(g->src, g->bytes);
    if (g->dst && dk != CL_MEMKIND_DEVICE && dk != CL_MEMKIND_DEVICE_ASYNC)
      add_guard(s, &(struct guard){.dtoh = 1, .addr = g->dst, .bytes = g->bytes});
    if (g->src && sk != CL_MEMKIND_DEVICE && sk != CL_MEMKIND_DEVICE_ASYNC)
      add_guard(s, &(struct guard){.dtoh = 0, .addr = g->src, .bytes = g->bytes});
    break;
  }
  case CU_GRAPH_NODE_TYPE_MEMSET: {
    CUDA_MEMSET_NODE_PARAMS m;
    memset(&m, 0, sizeof m);
    if (!D.memset_params || D.memset_params(h, &m) != CUDA_SUCCESS)
      break;
    uint64_t row = (uint64_t)m.width * (m.elementSize ? m.elementSize : 1);
    g->dst = (uint64_t)m.dst;
    g->bytes = m.height > 1 ? m.pitch * (m.height - 1) + row : row;
    g->value = m.value;
    int dk = cl_allocmap_kind(g->dst, g->bytes);
    if (dk == CL_MEMKIND_PINNED || dk == CL_MEMKIND_REGISTERED ||
        dk == CL_MEMKIND_MANAGED)
      add_guard(s, &(struct guard){.dtoh = 1, .addr = g->dst, .bytes = g->bytes});
    break;
  }
  case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
  case CU_GRAPH_NODE_TYPE_WAIT_EVENT: {
    CUevent ev = NULL;
    CUresult (*get)(CUgraphNode, CUevent *) =
        type == CU_GRAPH_NODE_TYPE_EVENT_RECORD ? D.record_event : D.wait_event;
    if (get && get(h, &ev) == CUDA_SUCCESS)
      g->event = (uint64_t)(uintptr_t)ev;
    break;
  }
  case CU_GRAPH_NODE_TYPE_MEM_ALLOC: {
    CUDA_MEM_ALLOC_NODE_PARAMS m;
    memset(&m, 0, sizeof m);
    if (D.alloc_params && D.alloc_params(h, &m) == CUDA_SUCCESS) {
      g->dst = (uint64_t)m.dptr;
      g->bytes = m.bytesize;
    }
    break;
  }
  case CU_GRAPH_NODE_TYPE_MEM_FREE: {
    CUdeviceptr p = 0;
    if (D.free_params && D.free_params(h, &p) == CUDA_SUCCESS)
      g->dst = (uint64_t)p;
    break;
  }
  case CU_GRAPH_NODE_TYPE_GRAPH: {
    CUgraph child = NULL;
    if (depth >= 8 || !D.child || D.child(h, &child) != CUDA_SUCCESS ||
        !child)
      break;
    size_t first = s->n;
    read_graph(s, child, depth + 1);
    size_t last = s->n;
    struct cl_gnode_rec *end = new_node(s, 0, CL_GNODE_GRAPH_END);
    if (!end)
      break;
    exit = end->index;
    /* the child's roots after the child node, its leaves before the end */
    char *has_in = calloc(last - first + 1, 1), *has_out = calloc(last - first + 1, 1);
    if (!has_in || !has_out) {
      free(has_in);
      free(has_out);
      s->truncated = 1;
      break;
    }
    for (size_t e = 0; e < s->ne; e++) {
      const struct cl_gedge_rec *x = &s->edges[e];
      if (x->to >= first && x->to < last && x->from >= first && x->from < last) {
        has_in[x->to - first] = 1;
        has_out[x->from - first] = 1;
      }
    }
    for (size_t i = first; i < last; i++) {
      if (!has_in[i - first])
        add_edge(s, index, (uint32_t)i);
      if (!has_out[i - first])
        add_edge(s, (uint32_t)i, exit);
    }
    if (first == last)
      add_edge(s, index, exit);
    free(has_in);
    free(has_out);
    break;
  }
  default:
    break;
  }
  if (grow((void **)&s->map, &s->capmap, s->nmap + 1, sizeof *s->map) == 0)
    s->map[s->nmap++] = (struct hmap){handle, index, exit};
}

/* the records of a structure: its head, then nodes (a kernel node's words
 * past CL_MAX_KARGS, in WORDS, after its record) and edges (seq H->seq) */
static void write_structure(const struct cl_gexec_rec *h,
                            struct cl_gnode_rec *nodes,
                            struct cl_gedge_rec *edges,
                            const struct cl_karg *words)
{
  struct cl_record *r = cl_ring_reserve(CL_REC_GRAPH_EXEC);
  if (r) {
    r->type = CL_REC_GRAPH_EXEC;
    r->u.gexec = *h;
    cl_ring_commit();
  }
  for (size_t i = 0; i < h->nodes; i++) {
    nodes[i].seq = h->seq;
    if (!(r = cl_ring_reserve(CL_REC_GRAPH_NODE)))
      continue;
    r->type = CL_REC_GRAPH_NODE;
    r->u.gnode = nodes[i];
    unsigned slots = 0, kept = 0;
    if (nodes[i].nkargs > CL_MAX_KARGS) {
      slots = cl_ring_put_kargs(words + nodes[i].more,
                                nodes[i].nkargs - CL_MAX_KARGS, &kept);
      if (CL_MAX_KARGS + kept < nodes[i].nkargs) {
        r->u.gnode.nkargs = (uint16_t)(CL_MAX_KARGS + kept);
        r->u.gnode.kargs_truncated = 1;
      }
    }
    cl_ring_commit_n(1 + slots);
  }
  for (size_t i = 0; i < h->edges; i++) {
    edges[i].seq = h->seq;
    if (!(r = cl_ring_reserve(CL_REC_GRAPH_EDGE)))
      continue;
    r->type = CL_REC_GRAPH_EDGE;
    r->u.gedge = edges[i];
    cl_ring_commit();
  }
}

void cl_graph_snapshot(uint64_t seq, uint64_t exec, uint64_t graph,
                       int32_t device)
{
  if (!exec || !graph)
    return;
  pthread_once(&bind_once, bind);
  struct snap s;
  memset(&s, 0, sizeof s);
  s.seq = seq;
  read_graph(&s, (CUgraph)(uintptr_t)graph, 0);
  struct cl_gexec_rec h = {.seq = seq, .exec = exec, .graph = graph,
                           .nodes = (uint32_t)s.n, .edges = (uint32_t)s.ne,
                           .device = device, .truncated = (uint8_t)s.truncated};
  write_structure(&h, s.nodes, s.edges, s.words.v);
  execs_set(exec, s.guards, s.ng, &h, s.nodes, s.edges, s.words.v);
  free(s.map);
  free(s.scan);
}

void cl_graph_exec_kernel(uint64_t seq, uint64_t exec, uint64_t node,
                          const struct cl_karg *kargs, unsigned nkargs,
                          int truncated)
{
  pthread_mutex_lock(&execs_lock);
  struct exec_guards *x = execs;
  while (x && x->exec != exec)
    x = x->next;
  if (!x || !x->nodes) {
    pthread_mutex_unlock(&execs_lock);
    return; /* its structure was not read: nothing to update */
  }
  /* the exec's structure again, with the node's new arguments (the
   * words past CL_MAX_KARGS gathered anew, node by node) */
  struct cl_gexec_rec h = x->head;
  h.seq = seq;
  size_t nn = h.nodes, ne = h.edges;
  struct cl_gnode_rec *nodes = malloc((nn + 1) * sizeof *nodes);
  struct cl_gedge_rec *edges = malloc((ne + 1) * sizeof *edges);
  struct guard *guards = NULL;
  struct words w = {NULL, 0, 0};
  size_t ng = 0, capg = 0;
  if (nodes && edges) {
    memcpy(nodes, x->nodes, nn * sizeof *nodes);
    if (ne) /* (a graph without edges has none: memcpy from NULL is
             * undefined even for 0 bytes) */
      memcpy(edges, x->edges, ne * sizeof *edges);
    for (size_t i = 0; i < nn; i++) {
      if (nodes[i].type != CL_GNODE_KERNEL)
        continue;
      if (nodes[i].handle == node)
        node_words(&nodes[i], kargs, nkargs, truncated, &w);
      else if (nodes[i].nkargs > CL_MAX_KARGS)
        node_more(&nodes[i], x->words + nodes[i].more,
                  nodes[i].nkargs - CL_MAX_KARGS, &w);
    }
    /* the kernels' guards follow their arguments; copies keep theirs */
    for (size_t i = 0; i < x->n; i++)
      if (!x->v[i].kernel &&
          !grow((void **)&guards, &capg, ng + 1, sizeof *guards))
        guards[ng++] = x->v[i];
    for (size_t i = 0; i < nn; i++) {
      struct guard gd;
      if (nodes[i].type == CL_GNODE_KERNEL && kernel_guard(&nodes[i], w.v, &gd) &&
          !grow((void **)&guards, &capg, ng + 1, sizeof *guards))
        guards[ng++] = gd;
    }
  }
  pthread_mutex_unlock(&execs_lock);
  if (!nodes || !edges) {
    free(nodes);
    free(edges);
    free(guards);
    free(w.v);
    return;
  }
  write_structure(&h, nodes, edges, w.v);
  execs_set(exec, guards, ng, &h, nodes, edges, w.v);
}
