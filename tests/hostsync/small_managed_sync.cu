// small_managed_sync.cu - CORRECT: the twin of small_managed_read.cu; the
// host reads the 64-entry managed result table after synchronizing with
// the kernel that fills it.
// expect-none: host-read-before-sync host-write-before-sync
// rule: SYNC_STREAM
#include "common.h"

__global__ void squares(int *t, int n)
{
    int i = threadIdx.x;
    if (i < n)
        t[i] = i * i;
}

int main()
{
    int *table;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMallocManaged(&table, 64 * sizeof(int)));
    squares<<<1, 64, 0, s>>>(table, 64);
    CHECK(cudaStreamSynchronize(s));
    long sum = 0;
    for (int i = 0; i < 64; i++)
        sum += table[i];
    std::printf("small_managed_sync: %ld\n", sum);
    CHECK(cudaFree(table));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
