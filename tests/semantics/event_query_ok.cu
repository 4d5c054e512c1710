// event_query_ok.cu - correct: the host polls cudaEventQuery on an event
// recorded after the write until it returns cudaSuccess ("returns
// cudaSuccess if all captured work has been completed"), then launches the
// read on another non-blocking stream.
// rule: QUERY_EVENT EVENT_RECORD
#include "races.h"

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t e;
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    float *d = dalloc();
    write_k<<<GRID, 0, s1>>>(d, N);
    CHECK(cudaEventRecord(e, s1));
    cudaError_t q;
    while ((q = cudaEventQuery(e)) == cudaErrorNotReady)
        ;
    CHECK(q);
    read_k<<<GRID, 0, s2>>>(d, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventDestroy(e));
    CHECK(cudaFree(d));
    std::printf("event_query_ok: done\n");
    return 0;
}
