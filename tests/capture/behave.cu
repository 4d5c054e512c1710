// behave.cu - a small CUDA program for the behaviour tests of tests/capture
// (what the shim does around the app rather than what it records):
//
//   behave errors        failing calls: cudaSetDevice(99), a huge cudaMalloc;
//                        prints the error codes, exits 0
//   behave raise SIG     CUDA work, then raise(SIG) (SIG: TERM or SEGV)
//   behave fault         CUDA work, then a write through a null pointer
//   behave sleepkill     CUDA work, sleep 1 s, then SIGKILL itself
//   behave launches N    N empty-kernel launches, then cudaDeviceSynchronize
//   behave exit CODE     CUDA work, then exit(CODE)
//
// "CUDA work" is 4 calls: cudaMalloc, cudaMemcpy (H2D), a kernel launch,
// cudaDeviceSynchronize.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>

__global__ void empty() {}

__global__ void touch(int *x) { x[threadIdx.x] += 1; }

static int work()
{
    int h[32] = {};
    int *d = nullptr;
    if (cudaMalloc(&d, sizeof h) != cudaSuccess ||
        cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) != cudaSuccess)
        return 1;
    touch<<<1, 32>>>(d);
    return cudaDeviceSynchronize() != cudaSuccess;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!std::strcmp(mode, "errors")) {
        cudaError_t e1 = cudaSetDevice(99);
        void *p = nullptr;
        cudaError_t e2 = cudaMalloc(&p, (size_t)1 << 62);
        cudaGetLastError();
        std::printf("setdevice=%d malloc=%d\n", (int)e1, (int)e2);
        return 0;
    }
    if (!std::strcmp(mode, "raise") && argc > 2) {
        int sig = !std::strcmp(argv[2], "SEGV") ? SIGSEGV : SIGTERM;
        if (work())
            return 1;
        std::printf("raising %s\n", argv[2]);
        std::fflush(stdout);
        raise(sig);
        return 2;
    }
    if (!std::strcmp(mode, "fault")) {
        if (work())
            return 1;
        std::printf("faulting\n");
        std::fflush(stdout);
        volatile int *p = nullptr;
        *p = 1;
        return 2;
    }
    if (!std::strcmp(mode, "sleepkill")) {
        if (work())
            return 1;
        std::printf("sleeping\n");
        std::fflush(stdout);
        sleep(1);
        kill(getpid(), SIGKILL);
        return 2;
    }
    if (!std::strcmp(mode, "launches") && argc > 2) {
        int n = std::atoi(argv[2]);
        for (int i = 0; i < n; i++)
            empty<<<1, 1>>>();
        if (cudaDeviceSynchronize() != cudaSuccess)
            return 1;
        std::printf("launched %d\n", n);
        return 0;
    }
    if (!std::strcmp(mode, "exit") && argc > 2) {
        if (work())
            return 1;
        std::printf("exiting %s\n", argv[2]);
        return std::atoi(argv[2]);
    }
    if (!std::strcmp(mode, "forkfork")) { // a fork inside a forked child
        if (work())
            return 1;
        pid_t child = fork();
        if (child == 0) {
            pid_t grandchild = fork();
            if (grandchild == 0)
                _exit(0);
            int st;
            waitpid(grandchild, &st, 0);
            _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
        }
        int st;
        waitpid(child, &st, 0);
        std::printf("forked twice: %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return 0;
    }
    std::fprintf(stderr, "usage: behave errors|raise TERM|SEGV|fault|sleepkill|launches N|exit CODE|forkfork\n");
    return 64;
}
