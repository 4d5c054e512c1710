// small_managed_read.cu - BUG: a kernel fills a 64-entry result table in
// managed memory (256 bytes, less than a page) and the host reads an entry
// before synchronizing with the kernel.
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
    touch_read(&table[10]); // expect: host-read-before-sync
    CHECK(cudaStreamSynchronize(s));
    long sum = 0;
    for (int i = 0; i < 64; i++)
        sum += table[i];
    std::printf("small_managed_read: %ld\n", sum);
    CHECK(cudaFree(table));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
