/* sim_driver_graph.c - TEST DOUBLE for CI: CUDA graphs in the simulated
 * libcuda.so.1: graphs built with the explicit API (kernel, memcpy,
 * memset, host, empty, child graph and event nodes; edges) or by stream
 * capture (work issued to a capturing stream becomes nodes after the
 * stream's capture dependencies; events recorded in a capture carry its
 * nodes to the streams that wait for them), reading them back
 * (cuGraphGetNodes, cuGraphGetEdges, cuGraph*NodeGetParams,
 * cuStreamGetCaptureInfo), instantiation and launch.  A launch runs the
 * nodes in an order of the edges (Kahn's), one after another on the
 * launch's stream: copies and memsets really happen, kernels take
 * simulated time, with activity records, and no API callbacks are raised
 * for the nodes (only for cuGraphLaunch itself).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "sim_driver.h"

struct sim_exec {                    /* a CUgraphExec: the structure at instantiation */
    uint32_t magic;
    struct sim_graph g;
};

static uint64_t g_next_capture = 1;

#define NEED_CTX() do { if (!drv_ctx()) DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT); } while (0)

static struct sim_graph *graph_check(CUgraph h)
{
    struct sim_graph *g = (struct sim_graph *)h;
    return g && g->magic == CLSIM_MAGIC_GRAPH ? g : NULL;
}

static struct sim_gnode *node_check(CUgraphNode h)
{
    struct sim_gnode *n = (struct sim_gnode *)h;
    return n && n->magic == CLSIM_MAGIC_GNODE ? n : NULL;
}

static struct sim_exec *exec_check(CUgraphExec h)
{
    struct sim_exec *x = (struct sim_exec *)h;
    return x && x->magic == CLSIM_MAGIC_GEXEC ? x : NULL;
}

static void push(void ***v, size_t *n, size_t *cap, void *x)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        *v = realloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = x;
}

static void add_edge(struct sim_graph *g, struct sim_gnode *from, struct sim_gnode *to)
{
    if (g->ne == g->cape) {
        g->cape = g->cape ? 2 * g->cape : 16;
        g->from = realloc(g->from, g->cape * sizeof *g->from);
        g->to = realloc(g->to, g->cape * sizeof *g->to);
    }
    g->from[g->ne] = from;
    g->to[g->ne] = to;
    g->ne++;
}

struct sim_gnode *drv_graph_node(struct sim_graph *g, CUgraphNodeType type,
                                 const CUgraphNode *deps, size_t ndeps)
{
    struct sim_gnode *n = calloc(1, sizeof *n);
    n->magic = CLSIM_MAGIC_GNODE;
    n->type = type;
    n->graph = g;
    push((void ***)&g->nodes, &g->n, &g->cap, n);
    for (size_t i = 0; i < ndeps; i++)
        add_edge(g, (struct sim_gnode *)deps[i], n);
    return n;
}

void drv_kernel_node_args(struct sim_gnode *n, struct clsim_func *fn, void **params)
{
    /* the arguments are copied, as cuGraphAddKernelNode does */
    int np = fn && fn->nparams > 0 ? fn->nparams : 0;
    if (np > CLSIM_MAX_KPARAMS)
        np = CLSIM_MAX_KPARAMS;
    n->kargbuf = calloc(1, fn && fn->param_bytes ? fn->param_bytes : 1);
    for (int i = 0; i < np && params; i++) {
        memcpy(n->kargbuf + fn->params[i].offset, params[i], fn->params[i].size);
        n->kargv[i] = n->kargbuf + fn->params[i].offset;
    }
    n->k.kernelParams = np ? n->kargv : NULL;
    n->k.extra = NULL;
}

struct sim_gnode *drv_capture_node(struct sim_stream *s, CUgraphNodeType type)
{
    if (!s->cap)
        return NULL;
    struct sim_gnode *n = drv_graph_node(s->cap->graph, type, (const CUgraphNode *)s->deps,
                                         s->ndeps);
    s->ndeps = 0;
    push((void ***)&s->deps, &s->ndeps, &s->capdeps, n);
    return n;
}

/* ---- building graphs ---------------------------------------------------- */

CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
    DRV_ENTER(cuGraphCreate, NULL, phGraph, flags);
    if (!phGraph || flags)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    struct sim_graph *g = calloc(1, sizeof *g);
    g->magic = CLSIM_MAGIC_GRAPH;
    *phGraph = (CUgraph)g;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphDestroy(CUgraph hGraph)
{
    DRV_ENTER(cuGraphDestroy, NULL, hGraph);
    struct sim_graph *g = graph_check(hGraph);
    if (!g)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    g->magic = 0; /* nodes stay allocated: an exec may share them */
    DRV_RETURN(CUDA_SUCCESS);
}

static int deps_ok(struct sim_graph *g, const CUgraphNode *deps, size_t n)
{
    if (n && !deps)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!node_check(deps[i]) || node_check(deps[i])->graph != g)
            return 0;
    return 1;
}

#define ADD_NODE(type)                                                            \
    struct sim_graph *g = graph_check(hGraph);                                    \
    if (!phGraphNode || !g || !deps_ok(g, dependencies, numDependencies))         \
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);                                     \
    struct sim_gnode *n = drv_graph_node(g, type, dependencies, numDependencies); \
    *phGraphNode = (CUgraphNode)n

CUresult cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                 const CUgraphNode *dependencies, size_t numDependencies,
                                 const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    DRV_ENTER(cuGraphAddKernelNode_v2, NULL, phGraphNode, hGraph, dependencies,
              numDependencies, nodeParams);
    struct clsim_func *fn = nodeParams ? drv_func_of(nodeParams->func ? (void *)nodeParams->func
                                                                      : (void *)nodeParams->kern)
                                       : NULL;
    if (!fn)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    ADD_NODE(CU_GRAPH_NODE_TYPE_KERNEL);
    n->k = *nodeParams;
    drv_kernel_node_args(n, fn, nodeParams->kernelParams);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                              const CUgraphNode *dependencies, size_t numDependencies,
                              const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    DRV_ENTER(cuGraphAddMemcpyNode, NULL, phGraphNode, hGraph, dependencies, numDependencies,
              copyParams, ctx);
    if (!copyParams)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    ADD_NODE(CU_GRAPH_NODE_TYPE_MEMCPY);
    n->m = *copyParams;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                              const CUgraphNode *dependencies, size_t numDependencies,
                              const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
    DRV_ENTER(cuGraphAddMemsetNode, NULL, phGraphNode, hGraph, dependencies, numDependencies,
              memsetParams, ctx);
    if (!memsetParams)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    ADD_NODE(CU_GRAPH_NODE_TYPE_MEMSET);
    n->ms = *memsetParams;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                            const CUgraphNode *dependencies, size_t numDependencies,
                            const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    DRV_ENTER(cuGraphAddHostNode, NULL, phGraphNode, hGraph, dependencies, numDependencies,
              nodeParams);
    if (!nodeParams || !nodeParams->fn)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    ADD_NODE(CU_GRAPH_NODE_TYPE_HOST);
    n->fn = nodeParams->fn;
    n->ud = nodeParams->userData;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                             const CUgraphNode *dependencies, size_t numDependencies)
{
    DRV_ENTER(cuGraphAddEmptyNode, NULL, phGraphNode, hGraph, dependencies, numDependencies);
    ADD_NODE(CU_GRAPH_NODE_TYPE_EMPTY);
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                  const CUgraphNode *dependencies, size_t numDependencies,
                                  CUgraph childGraph)
{
    DRV_ENTER(cuGraphAddChildGraphNode, NULL, phGraphNode, hGraph, dependencies,
              numDependencies, childGraph);
    if (!graph_check(childGraph))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    ADD_NODE(CU_GRAPH_NODE_TYPE_GRAPH);
    n->child = graph_check(childGraph); /* the real one clones it */
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                   const CUgraphNode *dependencies, size_t numDependencies,
                                   CUevent event)
{
    DRV_ENTER(cuGraphAddEventRecordNode, NULL, phGraphNode, hGraph, dependencies,
              numDependencies, event);
    ADD_NODE(CU_GRAPH_NODE_TYPE_EVENT_RECORD);
    n->event = event;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                 const CUgraphNode *dependencies, size_t numDependencies,
                                 CUevent event)
{
    DRV_ENTER(cuGraphAddEventWaitNode, NULL, phGraphNode, hGraph, dependencies,
              numDependencies, event);
    ADD_NODE(CU_GRAPH_NODE_TYPE_WAIT_EVENT);
    n->event = event;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                   const CUgraphEdgeData *edgeData, size_t numDependencies)
{
    DRV_ENTER(cuGraphAddDependencies_v2, NULL, hGraph, from, to, edgeData, numDependencies);
    struct sim_graph *g = graph_check(hGraph);
    if (!g || !deps_ok(g, from, numDependencies) || !deps_ok(g, to, numDependencies))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < numDependencies; i++)
        add_edge(g, (struct sim_gnode *)from[i], (struct sim_gnode *)to[i]);
    DRV_RETURN(CUDA_SUCCESS);
}

/* ---- reading graphs ------------------------------------------------------ */

CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
    DRV_ENTER(cuGraphGetNodes, NULL, hGraph, nodes, numNodes);
    struct sim_graph *g = graph_check(hGraph);
    if (!g || !numNodes)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (nodes) {
        size_t k = *numNodes < g->n ? *numNodes : g->n;
        memcpy(nodes, g->nodes, k * sizeof *nodes);
        for (size_t i = k; i < *numNodes; i++)
            nodes[i] = NULL;
    }
    *numNodes = g->n;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to,
                            CUgraphEdgeData *edgeData, size_t *numEdges)
{
    DRV_ENTER(cuGraphGetEdges_v2, NULL, hGraph, from, to, edgeData, numEdges);
    struct sim_graph *g = graph_check(hGraph);
    if (!g || !numEdges || (!from) != (!to))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (from) {
        size_t k = *numEdges < g->ne ? *numEdges : g->ne;
        memcpy(from, g->from, k * sizeof *from);
        memcpy(to, g->to, k * sizeof *to);
        if (edgeData)
            memset(edgeData, 0, k * sizeof *edgeData);
    }
    *numEdges = g->ne;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type)
{
    DRV_ENTER(cuGraphNodeGetType, NULL, hNode, type);
    struct sim_gnode *n = node_check(hNode);
    if (!n || !type)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *type = n->type;
    DRV_RETURN(CUDA_SUCCESS);
}

#define GET_PARAMS(ntype, out, field)                                              \
    struct sim_gnode *n = node_check(hNode);                                      \
    if (!n || !(out) || n->type != (ntype))                                       \
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);                                     \
    *(out) = n->field;                                                            \
    DRV_RETURN(CUDA_SUCCESS)

CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    DRV_ENTER(cuGraphKernelNodeGetParams_v2, NULL, hNode, nodeParams);
    GET_PARAMS(CU_GRAPH_NODE_TYPE_KERNEL, nodeParams, k);
}

CUresult cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D *nodeParams)
{
    DRV_ENTER(cuGraphMemcpyNodeGetParams, NULL, hNode, nodeParams);
    GET_PARAMS(CU_GRAPH_NODE_TYPE_MEMCPY, nodeParams, m);
}

CUresult cuGraphMemsetNodeGetParams(CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
    DRV_ENTER(cuGraphMemsetNodeGetParams, NULL, hNode, nodeParams);
    GET_PARAMS(CU_GRAPH_NODE_TYPE_MEMSET, nodeParams, ms);
}

CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph *phGraph)
{
    DRV_ENTER(cuGraphChildGraphNodeGetGraph, NULL, hNode, phGraph);
    struct sim_gnode *n = node_check(hNode);
    if (!n || !phGraph || n->type != CU_GRAPH_NODE_TYPE_GRAPH)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *phGraph = (CUgraph)n->child;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode hNode, CUevent *event_out)
{
    DRV_ENTER(cuGraphEventRecordNodeGetEvent, NULL, hNode, event_out);
    GET_PARAMS(CU_GRAPH_NODE_TYPE_EVENT_RECORD, event_out, event);
}

CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode hNode, CUevent *event_out)
{
    DRV_ENTER(cuGraphEventWaitNodeGetEvent, NULL, hNode, event_out);
    GET_PARAMS(CU_GRAPH_NODE_TYPE_WAIT_EVENT, event_out, event);
}

/* ---- stream capture -------------------------------------------------------- */

CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode)
{
    DRV_ENTER(cuStreamBeginCapture_v2, NULL, hStream, mode);
    NEED_CTX();
    struct sim_stream *s = drv_stream(hStream);
    if (!s)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (s->legacy)
        DRV_RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    if (s->cap)
        DRV_RETURN(CUDA_ERROR_ILLEGAL_STATE);
    struct sim_capture *c = calloc(1, sizeof *c);
    c->graph = calloc(1, sizeof *c->graph);
    c->graph->magic = CLSIM_MAGIC_GRAPH;
    c->id = __atomic_fetch_add(&g_next_capture, 1, __ATOMIC_RELAXED);
    s->cap = c;
    s->ndeps = 0;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
    DRV_ENTER(cuStreamEndCapture, NULL, hStream, phGraph);
    NEED_CTX();
    struct sim_stream *s = drv_stream(hStream);
    if (!s || !phGraph)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!s->cap)
        DRV_RETURN(CUDA_ERROR_ILLEGAL_STATE);
    struct sim_capture *c = s->cap;
    c->ended = 1;
    pthread_mutex_lock(&clsimdrv_lock);
    for (struct sim_stream *o = clsimdrv_streams; o; o = o->next)
        if (o->cap == c) {
            o->cap = NULL;
            o->ndeps = 0;
        }
    pthread_mutex_unlock(&clsimdrv_lock);
    *phGraph = (CUgraph)c->graph;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    DRV_ENTER(cuStreamIsCapturing, NULL, hStream, captureStatus);
    struct sim_stream *s = drv_stream(hStream);
    if (!s || !captureStatus)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *captureStatus = s->cap ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                   cuuint64_t *id_out, CUgraph *graph_out,
                                   const CUgraphNode **dependencies_out,
                                   const CUgraphEdgeData **edgeData_out,
                                   size_t *numDependencies_out)
{
    DRV_ENTER(cuStreamGetCaptureInfo_v3, NULL, hStream, captureStatus_out, id_out, graph_out,
              dependencies_out, edgeData_out, numDependencies_out);
    struct sim_stream *s = drv_stream(hStream);
    if (!s || !captureStatus_out)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *captureStatus_out = s->cap ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    if (s->cap) {
        if (id_out)
            *id_out = s->cap->id;
        if (graph_out)
            *graph_out = (CUgraph)s->cap->graph;
        if (dependencies_out)
            *dependencies_out = (const CUgraphNode *)s->deps;
        if (edgeData_out)
            *edgeData_out = NULL;
        if (numDependencies_out)
            *numDependencies_out = s->ndeps;
    }
    DRV_RETURN(CUDA_SUCCESS);
}

/* an event recorded in a capture: a stream waiting for it joins the capture
 * after the event's nodes (sim_driver_stream.c calls these) */
void drv_capture_record(struct sim_event *e, struct sim_stream *s)
{
    e->cap = s->cap;
    free(e->deps);
    e->deps = s->ndeps ? malloc(s->ndeps * sizeof *e->deps) : NULL;
    if (s->ndeps)
        memcpy(e->deps, s->deps, s->ndeps * sizeof *e->deps);
    e->ndeps = s->ndeps;
}

int drv_capture_wait(struct sim_stream *s, struct sim_event *e)
{
    if (!e->cap || e->cap->ended)
        return 0;
    if (s->cap != e->cap) {
        s->cap = e->cap;
        s->ndeps = 0;
    }
    for (size_t i = 0; i < e->ndeps; i++) {
        size_t k;
        for (k = 0; k < s->ndeps && s->deps[k] != e->deps[i]; k++)
            ;
        if (k == s->ndeps)
            push((void ***)&s->deps, &s->ndeps, &s->capdeps, e->deps[i]);
    }
    return 1;
}

/* ---- instantiation and launch ---------------------------------------------- */

/* DST becomes a copy of SRC's nodes and edges (an exec's own nodes) */
static void copy_graph(struct sim_graph *dst, struct sim_graph *src)
{
    dst->n = dst->ne = 0;
    for (size_t i = 0; i < src->n; i++) {
        struct sim_gnode *o = src->nodes[i], *n = malloc(sizeof *n);
        *n = *o;
        n->orig = o;
        if (o->type == CU_GRAPH_NODE_TYPE_KERNEL) {
            struct clsim_func *fn = drv_func_of(o->k.func ? (void *)o->k.func : (void *)o->k.kern);
            drv_kernel_node_args(n, fn, o->k.kernelParams);
        }
        push((void ***)&dst->nodes, &dst->n, &dst->cap, n);
    }
    for (size_t e = 0; e < src->ne; e++) {
        struct sim_gnode *f = NULL, *t = NULL;
        for (size_t i = 0; i < dst->n; i++) {
            if (dst->nodes[i]->orig == src->from[e])
                f = dst->nodes[i];
            if (dst->nodes[i]->orig == src->to[e])
                t = dst->nodes[i];
        }
        add_edge(dst, f, t);
    }
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
                                     unsigned long long flags)
{
    DRV_ENTER(cuGraphInstantiateWithFlags, NULL, phGraphExec, hGraph, flags);
    NEED_CTX();
    struct sim_graph *g = graph_check(hGraph);
    if (!phGraphExec || !g)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    struct sim_exec *x = calloc(1, sizeof *x);
    x->magic = CLSIM_MAGIC_GEXEC;
    copy_graph(&x->g, g);
    *phGraphExec = (CUgraphExec)x;
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
                                           const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    DRV_ENTER(cuGraphExecKernelNodeSetParams_v2, NULL, hGraphExec, hNode, nodeParams);
    struct sim_exec *x = exec_check(hGraphExec);
    struct clsim_func *fn = nodeParams ? drv_func_of(nodeParams->func ? (void *)nodeParams->func
                                                                      : (void *)nodeParams->kern)
                                       : NULL;
    if (!x || !fn)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < x->g.n; i++) {
        struct sim_gnode *n = x->g.nodes[i];
        if (n->orig == (struct sim_gnode *)hNode && n->type == CU_GRAPH_NODE_TYPE_KERNEL) {
            n->k = *nodeParams;
            drv_kernel_node_args(n, fn, nodeParams->kernelParams);
            DRV_RETURN(CUDA_SUCCESS);
        }
    }
    DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
}

CUresult cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph,
                              CUgraphExecUpdateResultInfo *resultInfo)
{
    DRV_ENTER(cuGraphExecUpdate_v2, NULL, hGraphExec, hGraph, resultInfo);
    struct sim_exec *x = exec_check(hGraphExec);
    struct sim_graph *g = graph_check(hGraph);
    if (!x || !g)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    /* the real one checks that the topology is the same; the sim copies */
    copy_graph(&x->g, g);
    if (resultInfo) {
        memset(resultInfo, 0, sizeof *resultInfo);
        resultInfo->result = CU_GRAPH_EXEC_UPDATE_SUCCESS;
    }
    DRV_RETURN(CUDA_SUCCESS);
}

CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    DRV_ENTER(cuGraphExecDestroy, NULL, hGraphExec);
    struct sim_exec *x = exec_check(hGraphExec);
    if (!x)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    x->magic = 0;
    DRV_RETURN(CUDA_SUCCESS);
}

static CUresult run_node(struct sim_gnode *n, struct sim_stream *s);

/* the nodes of G, each after its dependencies (Kahn's order), on S */
static CUresult run_graph(struct sim_graph *g, struct sim_stream *s)
{
    size_t *indeg = calloc(g->n + 1, sizeof *indeg), *queue = calloc(g->n + 1, sizeof *queue);
    size_t head = 0, tail = 0;
    CUresult r = CUDA_SUCCESS;
    for (size_t e = 0; e < g->ne; e++)
        for (size_t i = 0; i < g->n; i++)
            if (g->nodes[i] == g->to[e])
                indeg[i]++;
    for (size_t i = 0; i < g->n; i++)
        if (!indeg[i])
            queue[tail++] = i;
    while (head < tail && r == CUDA_SUCCESS) {
        struct sim_gnode *n = g->nodes[queue[head++]];
        r = run_node(n, s);
        for (size_t e = 0; e < g->ne; e++)
            if (g->from[e] == n)
                for (size_t i = 0; i < g->n; i++)
                    if (g->nodes[i] == g->to[e] && --indeg[i] == 0)
                        queue[tail++] = i;
    }
    free(indeg);
    free(queue);
    return r;
}

static CUresult run_node(struct sim_gnode *n, struct sim_stream *s)
{
    CUstream h = (CUstream)s;
    switch (n->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
        struct clsim_func *fn = drv_func_of(n->k.func ? (void *)n->k.func : (void *)n->k.kern);
        if (!fn)
            return CUDA_ERROR_INVALID_HANDLE;
        return drv_kernel(fn, n->k.gridDimX, n->k.gridDimY, n->k.gridDimZ, n->k.blockDimX,
                          n->k.blockDimY, n->k.blockDimZ, n->k.sharedMemBytes, s);
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY: {
        const CUDA_MEMCPY3D *m = &n->m;
        const char *src = m->srcMemoryType == CU_MEMORYTYPE_HOST ? (const char *)m->srcHost
                                                                  : (const char *)m->srcDevice;
        char *dst = m->dstMemoryType == CU_MEMORYTYPE_HOST ? (char *)m->dstHost
                                                           : (char *)m->dstDevice;
        size_t rows = (m->Height ? m->Height : 1) * (m->Depth ? m->Depth : 1);
        for (size_t r = 0; r < rows; r++) {
            CUresult e = drv_copy(dst + m->dstXInBytes + r * m->dstPitch,
                                  src + m->srcXInBytes + r * m->srcPitch, m->WidthInBytes, 0,
                                  h, 1);
            if (e != CUDA_SUCCESS)
                return e;
        }
        return CUDA_SUCCESS;
    }
    case CU_GRAPH_NODE_TYPE_MEMSET: {
        const CUDA_MEMSET_NODE_PARAMS *m = &n->ms;
        for (size_t r = 0; r < (m->height ? m->height : 1); r++) {
            CUresult e = drv_memset(m->dst + r * m->pitch, m->value, m->elementSize, m->width, h, 1);
            if (e != CUDA_SUCCESS)
                return e;
        }
        return CUDA_SUCCESS;
    }
    case CU_GRAPH_NODE_TYPE_HOST: {
        uint64_t st, en;
        drv_schedule(s, 0, &st, &en);
        drv_wait_until(en);
        n->fn(n->ud);
        return CUDA_SUCCESS;
    }
    case CU_GRAPH_NODE_TYPE_GRAPH:
        return run_graph(n->child, s);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: {
        struct sim_event *e = (struct sim_event *)n->event;
        uint64_t st, en;
        drv_schedule(s, 0, &st, &en);
        if (e && e->magic == CLSIM_MAGIC_EVENT) {
            e->ts = en;
            e->recorded = 1;
        }
        return CUDA_SUCCESS;
    }
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: {
        struct sim_event *e = (struct sim_event *)n->event;
        if (e && e->magic == CLSIM_MAGIC_EVENT && e->recorded) {
            pthread_mutex_lock(&clsimdrv_lock);
            if (s->tail < e->ts)
                s->tail = e->ts;
            pthread_mutex_unlock(&clsimdrv_lock);
        }
        return CUDA_SUCCESS;
    }
    default:
        return CUDA_SUCCESS;
    }
}

CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
    DRV_ENTER(cuGraphLaunch, NULL, hGraphExec, hStream);
    NEED_CTX();
    struct sim_exec *x = exec_check(hGraphExec);
    struct sim_stream *s = drv_stream(hStream);
    if (!x)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (!s)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (s->cap) /* measured on CUDA 13: "operation not permitted when
                 * stream is capturing" */
        DRV_RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    DRV_RETURN(run_graph(&x->g, s));
}
