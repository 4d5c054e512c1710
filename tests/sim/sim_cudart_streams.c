/* sim_cudart_streams.c - TEST DOUBLE for CI: streams, events and host
 * functions of the simulated libcudart.so.13 (over cuStream*, cuEvent*,
 * cuLaunchHostFunc, cuStreamAddCallback of the sim driver).
 */
#define _GNU_SOURCE
#include "sim_cudart.h"

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    RT_ENTER(cudaStreamCreate_v3020, "cudaStreamCreate", pStream);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamCreate((CUstream *)pStream, 0)));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    RT_ENTER(cudaStreamCreateWithFlags_v5000, "cudaStreamCreateWithFlags", pStream, flags);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamCreate((CUstream *)pStream, flags)));
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    RT_ENTER(cudaStreamCreateWithPriority_v5050, "cudaStreamCreateWithPriority", pStream, flags,
             priority);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamCreateWithPriority((CUstream *)pStream, flags, priority)));
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    RT_ENTER(cudaStreamGetPriority_v5050, "cudaStreamGetPriority", hStream, priority);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamGetPriority((CUstream)hStream, priority)));
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    RT_ENTER(cudaStreamGetFlags_v5050, "cudaStreamGetFlags", hStream, flags);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamGetFlags((CUstream)hStream, flags)));
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    RT_ENTER(cudaStreamDestroy_v5050, "cudaStreamDestroy", stream);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamDestroy_v2((CUstream)stream)));
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    RT_ENTER(cudaStreamSynchronize_v3020, "cudaStreamSynchronize", stream);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamSynchronize((CUstream)stream)));
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    RT_ENTER(cudaStreamQuery_v3020, "cudaStreamQuery", stream);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamQuery((CUstream)stream)));
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    RT_ENTER(cudaStreamWaitEvent_v3020, "cudaStreamWaitEvent", stream, event, flags);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuStreamWaitEvent((CUstream)stream, (CUevent)event, flags)));
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    RT_ENTER(cudaEventCreate_v3020, "cudaEventCreate", event);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuEventCreate((CUevent *)event, 0)));
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    RT_ENTER(cudaEventCreateWithFlags_v3020, "cudaEventCreateWithFlags", event, flags);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuEventCreate((CUevent *)event, flags)));
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    RT_ENTER(cudaEventRecord_v3020, "cudaEventRecord", event, stream);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuEventRecord((CUevent)event, (CUstream)stream)));
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    RT_ENTER(cudaEventRecordWithFlags_v11010, "cudaEventRecordWithFlags", event, stream, flags);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuEventRecordWithFlags((CUevent)event, (CUstream)stream, flags)));
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    RT_ENTER(cudaEventSynchronize_v3020, "cudaEventSynchronize", event);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuEventSynchronize((CUevent)event)));
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    RT_ENTER(cudaEventQuery_v3020, "cudaEventQuery", event);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuEventQuery((CUevent)event)));
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    RT_ENTER(cudaEventDestroy_v3020, "cudaEventDestroy", event);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuEventDestroy_v2((CUevent)event)));
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    RT_ENTER(cudaEventElapsedTime_v12080, "cudaEventElapsedTime", ms, start, end);
    RT_NEED_CTX();
    RT_RETURN(CU2RT(cuEventElapsedTime_v2(ms, (CUevent)start, (CUevent)end)));
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    RT_ENTER(cudaLaunchHostFunc_v10000, "cudaLaunchHostFunc", stream, fn, userData);
    RT_NEED_CTX();
    /* its own arguments: a CUPTI subscriber's changes to the runtime's
     * parameters have no effect (measured, issue 20); the driver's take */
    RT_RETURN(CU2RT(cuLaunchHostFunc((CUstream)stream, (CUhostFn)fn, userData)));
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void *userData, unsigned int flags)
{
    RT_ENTER(cudaStreamAddCallback_v5000, "cudaStreamAddCallback", stream, callback, userData,
             flags);
    RT_NEED_CTX();
    /* same ABI: (stream handle, error code, user data) */
    RT_RETURN(CU2RT(cuStreamAddCallback((CUstream)stream,
                                        (CUstreamCallback)(void (*)(void))callback,
                                        userData, flags)));
}
