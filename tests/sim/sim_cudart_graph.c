/* sim_cudart_graph.c - TEST DOUBLE for CI: CUDA graphs and stream capture
 * of the simulated libcudart.so.13, over the sim driver's cuGraph* and
 * cuStream*Capture* (sim_driver_graph.c), each raising its RUNTIME-domain
 * callbacks with the CUPTI callback id of CUDA 13's entry point.
 */
#define _GNU_SOURCE
#include <string.h>
#include "sim_cudart.h"

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    RT_ENTER(cudaGraphCreate_v10000, "cudaGraphCreate", pGraph, flags);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuGraphCreate((CUgraph *)pGraph, flags)));
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    RT_ENTER(cudaGraphDestroy_v10000, "cudaGraphDestroy", graph);
    RT_RETURN(CU2RT(cuGraphDestroy((CUgraph)graph)));
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaKernelNodeParams *pNodeParams)
{
    RT_ENTER(cudaGraphAddKernelNode_v10000, "cudaGraphAddKernelNode", pGraphNode, graph,
             pDependencies, numDependencies, pNodeParams);
    RT_NEED_CTX();
    struct clsim_func *f = pNodeParams ? rt_func(pNodeParams->func) : NULL;
    if (!f)
        RT_RETURN(cudaErrorInvalidDeviceFunction);
    /* like cudart 13's launches: the CUkernel handle in the function slot */
    CUDA_KERNEL_NODE_PARAMS p = {
        .func = (CUfunction)&f->kernel,
        .gridDimX = pNodeParams->gridDim.x, .gridDimY = pNodeParams->gridDim.y,
        .gridDimZ = pNodeParams->gridDim.z, .blockDimX = pNodeParams->blockDim.x,
        .blockDimY = pNodeParams->blockDim.y, .blockDimZ = pNodeParams->blockDim.z,
        .sharedMemBytes = pNodeParams->sharedMemBytes,
        .kernelParams = pNodeParams->kernelParams, .extra = pNodeParams->extra};
    RT_RETURN(CU2RT(cuGraphAddKernelNode_v2((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                            (const CUgraphNode *)pDependencies, numDependencies,
                                            &p)));
}

static CUmemorytype mem_type(const void *p)
{
    int kind = 0, dev;
    void *base;
    size_t size;
    int reg;
    if (clsimdrv_ptr_info(p, &kind, &dev, &base, &size, &reg) &&
        (kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE || kind == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED))
        return CU_MEMORYTYPE_DEVICE;
    return CU_MEMORYTYPE_HOST;
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     void *dst, const void *src, size_t count,
                                     enum cudaMemcpyKind kind)
{
    RT_ENTER(cudaGraphAddMemcpyNode1D_v11010, "cudaGraphAddMemcpyNode1D", pGraphNode, graph,
             pDependencies, numDependencies, dst, src, count, kind);
    RT_NEED_CTX();
    CUDA_MEMCPY3D m;
    memset(&m, 0, sizeof m);
    m.srcMemoryType = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost
                          ? CU_MEMORYTYPE_HOST
                      : kind == cudaMemcpyDefault ? mem_type(src) : CU_MEMORYTYPE_DEVICE;
    m.dstMemoryType = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost
                          ? CU_MEMORYTYPE_HOST
                      : kind == cudaMemcpyDefault ? mem_type(dst) : CU_MEMORYTYPE_DEVICE;
    m.srcHost = src;
    m.srcDevice = (CUdeviceptr)src;
    m.dstHost = dst;
    m.dstDevice = (CUdeviceptr)dst;
    m.WidthInBytes = count;
    m.Height = m.Depth = 1;
    RT_RETURN(CU2RT(cuGraphAddMemcpyNode((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                         (const CUgraphNode *)pDependencies, numDependencies,
                                         &m, clsimdrv_current_ctx())));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaMemsetParams *pMemsetParams)
{
    RT_ENTER(cudaGraphAddMemsetNode_v10000, "cudaGraphAddMemsetNode", pGraphNode, graph,
             pDependencies, numDependencies, pMemsetParams);
    RT_NEED_CTX();
    if (!pMemsetParams)
        RT_RETURN(cudaErrorInvalidValue);
    CUDA_MEMSET_NODE_PARAMS m = {.dst = (CUdeviceptr)pMemsetParams->dst,
                                 .pitch = pMemsetParams->pitch,
                                 .value = pMemsetParams->value,
                                 .elementSize = pMemsetParams->elementSize,
                                 .width = pMemsetParams->width,
                                 .height = pMemsetParams->height};
    RT_RETURN(CU2RT(cuGraphAddMemsetNode((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                         (const CUgraphNode *)pDependencies, numDependencies,
                                         &m, clsimdrv_current_ctx())));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                 const struct cudaHostNodeParams *pNodeParams)
{
    RT_ENTER(cudaGraphAddHostNode_v10000, "cudaGraphAddHostNode", pGraphNode, graph,
             pDependencies, numDependencies, pNodeParams);
    if (!pNodeParams)
        RT_RETURN(cudaErrorInvalidValue);
    CUDA_HOST_NODE_PARAMS p = {.fn = (CUhostFn)pNodeParams->fn, .userData = pNodeParams->userData};
    RT_RETURN(CU2RT(cuGraphAddHostNode((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                       (const CUgraphNode *)pDependencies, numDependencies, &p)));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t *pDependencies, size_t numDependencies)
{
    RT_ENTER(cudaGraphAddEmptyNode_v10000, "cudaGraphAddEmptyNode", pGraphNode, graph,
             pDependencies, numDependencies);
    RT_RETURN(CU2RT(cuGraphAddEmptyNode((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                        (const CUgraphNode *)pDependencies, numDependencies)));
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies,
                                       size_t numDependencies, cudaGraph_t childGraph)
{
    RT_ENTER(cudaGraphAddChildGraphNode_v10000, "cudaGraphAddChildGraphNode", pGraphNode, graph,
             pDependencies, numDependencies, childGraph);
    RT_RETURN(CU2RT(cuGraphAddChildGraphNode((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                             (const CUgraphNode *)pDependencies, numDependencies,
                                             (CUgraph)childGraph)));
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                     size_t numDependencies)
{
    RT_ENTER(cudaGraphAddDependencies_v12030, "cudaGraphAddDependencies", graph, from, to,
             edgeData, numDependencies);
    RT_RETURN(CU2RT(cuGraphAddDependencies_v2((CUgraph)graph, (const CUgraphNode *)from,
                                              (const CUgraphNode *)to,
                                              (const CUgraphEdgeData *)edgeData,
                                              numDependencies)));
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags)
{
    RT_ENTER(cudaGraphInstantiate_v12000, "cudaGraphInstantiate", pGraphExec, graph, flags);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuGraphInstantiateWithFlags((CUgraphExec *)pGraphExec, (CUgraph)graph,
                                                flags)));
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags)
{
    RT_ENTER(cudaGraphInstantiateWithFlags_v11040, "cudaGraphInstantiateWithFlags", pGraphExec,
             graph, flags);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuGraphInstantiateWithFlags((CUgraphExec *)pGraphExec, (CUgraph)graph,
                                                flags)));
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *pNodeParams)
{
    RT_ENTER(cudaGraphExecKernelNodeSetParams_v10010, "cudaGraphExecKernelNodeSetParams",
             hGraphExec, node, pNodeParams);
    RT_NEED_CTX();
    struct clsim_func *f = pNodeParams ? rt_func(pNodeParams->func) : NULL;
    if (!f)
        RT_RETURN(cudaErrorInvalidDeviceFunction);
    CUDA_KERNEL_NODE_PARAMS p = {
        .func = (CUfunction)&f->kernel,
        .gridDimX = pNodeParams->gridDim.x, .gridDimY = pNodeParams->gridDim.y,
        .gridDimZ = pNodeParams->gridDim.z, .blockDimX = pNodeParams->blockDim.x,
        .blockDimY = pNodeParams->blockDim.y, .blockDimZ = pNodeParams->blockDim.z,
        .sharedMemBytes = pNodeParams->sharedMemBytes,
        .kernelParams = pNodeParams->kernelParams, .extra = pNodeParams->extra};
    RT_RETURN(CU2RT(cuGraphExecKernelNodeSetParams_v2((CUgraphExec)hGraphExec,
                                                      (CUgraphNode)node, &p)));
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo *resultInfo)
{
    RT_ENTER(cudaGraphExecUpdate_v10020, "cudaGraphExecUpdate", hGraphExec, hGraph, resultInfo);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuGraphExecUpdate_v2((CUgraphExec)hGraphExec, (CUgraph)hGraph,
                                         (CUgraphExecUpdateResultInfo *)resultInfo)));
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    RT_ENTER(cudaGraphExecDestroy_v10000, "cudaGraphExecDestroy", graphExec);
    RT_RETURN(CU2RT(cuGraphExecDestroy((CUgraphExec)graphExec)));
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    RT_ENTER(cudaGraphLaunch_v10000, "cudaGraphLaunch", graphExec, stream);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuGraphLaunch((CUgraphExec)graphExec, (CUstream)stream)));
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    RT_ENTER(cudaStreamBeginCapture_v10000, "cudaStreamBeginCapture", stream, mode);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamBeginCapture_v2((CUstream)stream, (CUstreamCaptureMode)mode)));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    RT_ENTER(cudaStreamEndCapture_v10000, "cudaStreamEndCapture", stream, pGraph);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamEndCapture((CUstream)stream, (CUgraph *)pGraph)));
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
    RT_ENTER(cudaStreamIsCapturing_v10000, "cudaStreamIsCapturing", stream, pCaptureStatus);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamIsCapturing((CUstream)stream, (CUstreamCaptureStatus *)pCaptureStatus)));
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out,
                                     const cudaGraphEdgeData **edgeData_out,
                                     size_t *numDependencies_out)
{
    RT_ENTER(cudaStreamGetCaptureInfo_v12030, "cudaStreamGetCaptureInfo", stream,
             captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
             numDependencies_out);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamGetCaptureInfo_v3(
        (CUstream)stream, (CUstreamCaptureStatus *)captureStatus_out, (cuuint64_t *)id_out,
        (CUgraph *)graph_out, (const CUgraphNode **)dependencies_out,
        (const CUgraphEdgeData **)edgeData_out, numDependencies_out)));
}
