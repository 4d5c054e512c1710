// callback_ok.cu - CORRECT: a host function (cudaLaunchHostFunc) runs in
// s1's order between the write and the event that s2 waits for.
// rule: HOST_FUNC EVENT_RECORD STREAM_WAIT_EVENT
#include "races.h"

static void CUDART_CB note(void *arg)
{
    ++*(int *)arg;
}

int main()
{
    cudaStream_t s1 = nonblocking_stream(), s2 = nonblocking_stream();
    cudaEvent_t e;
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    float *d = dalloc();
    static int calls = 0;
    write_k<<<GRID, 0, s1>>>(d, N);
    CHECK(cudaLaunchHostFunc(s1, note, &calls));
    CHECK(cudaEventRecord(e, s1));
    CHECK(cudaStreamWaitEvent(s2, e, 0));
    read_k<<<GRID, 0, s2>>>(d, N);
    CHECK(cudaLaunchHostFunc(s2, note, &calls));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    std::printf("callback_ok: done (%d host functions ran)\n", calls);
    return 0;
}
