// fork_exec.cu - sample app: does CUDA work, then forks; the first child does
// CUDA-free work and exits, the second execs /bin/true; the parent waits and
// does more CUDA work.
#include "common.h"
#include <sys/wait.h>
#include <unistd.h>

__global__ void neg(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = -x[i];
}

int main()
{
    const int n = 256;
    float h[n] = {};
    float *d = nullptr;
    CHECK(cudaMalloc(&d, sizeof h));
    CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    neg<<<1, n>>>(d, n);
    CHECK(cudaDeviceSynchronize());

    pid_t a = fork();
    if (a == 0) {
        long sum = 0;  // CUDA-free work in the child
        for (int i = 0; i < 1000; i++)
            sum += i;
        std::printf("fork_exec: child computed %ld\n", sum);
        std::fflush(stdout);
        _exit(sum == 499500 ? 0 : 1);
    }
    pid_t b = fork();
    if (b == 0) {
        execl("/bin/true", "true", (char *)nullptr);
        _exit(127);
    }
    int sa = 0, sb = 0;
    waitpid(a, &sa, 0);
    waitpid(b, &sb, 0);
    EXPECT(WIFEXITED(sa) && WEXITSTATUS(sa) == 0 && WIFEXITED(sb) && WEXITSTATUS(sb) == 0);

    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    std::printf("fork_exec: ok\n");
    return 0;
}
