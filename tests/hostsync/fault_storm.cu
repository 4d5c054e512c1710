// fault_storm.cu - BUG, on purpose and many times over: several host threads
// read the pinned destination of an async device-to-host copy (and write the
// pinned source of a host-to-device one) before the synchronization, while
// another thread synchronizes the stream (PyTorch's
// t.to("cpu", non_blocking=True).mean(), whose reduction runs on several
// OpenMP threads).  The faults of the host-access check race with each other
// and with the synchronization lifting the protection; none of them may end
// the program (issue 9).  Every 25th iteration a child is forked while the
// copy is in flight and reads the destination too, and a poker thread keeps
// sending SIGUSR1 to the others, whose handler reads the destination: it
// interrupts the shim itself, inside its own fault handler or while it
// changes the protection.  Prints a checksum that
// must be the same without cudalens (under the simulated runtime, whose
// copies complete when issued).
//   fault_storm [ITERATIONS [THREADS]]
// rule: ASYNC_OTHER
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstring>
#include "common.h"

static float *h_dst, *h_src, *d;
static cudaStream_t s;
static int nthreads = 4, iterations = 150;
static pthread_barrier_t start, done;
static double sums[64];
static volatile int phase; // 0: read h_dst, 1: write h_src
static int forks;
static pthread_t targets[66];
static int ntargets;
static volatile int stop_poking;
static volatile float sink;

static void on_usr1(int sig)
{
    static volatile unsigned k;
    (void)sig;
    sink = sink + h_dst[(k++ % 1024) * 1024]; // racy on purpose: not printed
}

static void *poker(void *)
{
    for (unsigned k = 0; !stop_poking; k++) {
        pthread_kill(targets[k % (unsigned)ntargets], SIGUSR1);
        sched_yield();
    }
    return NULL;
}
static const size_t PAGE_FLOATS = 1024; // 4 KiB pages

static void *worker(void *arg)
{
    int me = (int)(long)arg;
    size_t pages = N / PAGE_FLOATS;
    for (int it = 0; it < iterations; it++) {
        for (int p = 0; p < 2; p++) {
            pthread_barrier_wait(&start);
            // all threads start on nearby pages, then spread out
            size_t first = (size_t)(me * 3 + it) % pages;
            if (p == 0) {
                double s = 0;
                for (size_t k = 0; k < pages; k++)
                    s += h_dst[((first + k) % pages) * PAGE_FLOATS + (size_t)me];
                sums[me] += s;
            } else {
                for (size_t k = 0; k < pages; k += (size_t)nthreads) {
                    size_t page = (first + k) % pages;
                    h_src[page * PAGE_FLOATS + (size_t)me] = (float)(it + me);
                }
            }
            pthread_barrier_wait(&done);
        }
    }
    return NULL;
}

// synchronizes while the workers fault
static void *syncer(void *)
{
    for (int it = 0; it < iterations; it++) {
        for (int p = 0; p < 2; p++) {
            pthread_barrier_wait(&start);
            for (int spin = (it * 7 + p) % 5; spin > 0; spin--)
                sched_yield();
            CHECK(cudaStreamSynchronize(s));
            pthread_barrier_wait(&done);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        iterations = std::atoi(argv[1]);
    if (argc > 2)
        nthreads = std::atoi(argv[2]);
    EXPECT(nthreads >= 1 && nthreads <= 64 && iterations >= 1);
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&h_dst, N * sizeof(float)));
    CHECK(cudaMallocHost(&h_src, N * sizeof(float)));
    float *pattern = (float *)std::malloc(N * sizeof(float));
    for (size_t i = 0; i < N; i++)
        pattern[i] = (float)(i % 13);
    CHECK(cudaMemcpy(d, pattern, N * sizeof(float), cudaMemcpyHostToDevice));
    std::memset(h_src, 0, N * sizeof(float));
    pthread_barrier_init(&start, NULL, (unsigned)nthreads + 2);
    pthread_barrier_init(&done, NULL, (unsigned)nthreads + 2);
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    pthread_t t[65], poke;
    for (int i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)i);
    pthread_create(&t[nthreads], NULL, syncer, NULL);
    for (int i = 0; i <= nthreads; i++)
        targets[ntargets++] = t[i];
    targets[ntargets++] = pthread_self();
    pthread_create(&poke, NULL, poker, NULL);
    for (int it = 0; it < iterations; it++) {
        // the copies are issued before the workers start: in flight when
        // they touch the pages, until the syncer's synchronization
        CHECK(cudaMemcpyAsync(h_dst, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
        if (it % 25 == 0) {
            pid_t pid = fork();
            if (pid == 0)
                _exit(checksum(h_dst, N) == checksum(h_dst, N) ? 0 : 1);
            int st = 0;
            EXPECT(pid > 0 && waitpid(pid, &st, 0) == pid);
            EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
            forks++;
        }
        pthread_barrier_wait(&start);
        pthread_barrier_wait(&done);
        CHECK(cudaMemcpyAsync(d, h_src, N * sizeof(float), cudaMemcpyHostToDevice, s));
        pthread_barrier_wait(&start);
        pthread_barrier_wait(&done);
    }
    stop_poking = 1; // before the threads it pokes are gone
    pthread_join(poke, NULL);
    for (int i = 0; i <= nthreads; i++)
        pthread_join(t[i], NULL);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(pattern, d, N * sizeof(float), cudaMemcpyDeviceToHost));
    double sum = 0;
    for (int i = 0; i < nthreads; i++)
        sum += sums[i];
    double dev = 0;
    for (size_t i = 0; i < N; i += 97)
        dev += pattern[i];
    std::printf("fault_storm: %d iterations, %d threads, %d children: %.1f %.1f\n",
                iterations, nthreads, forks, sum, dev);
    CHECK(cudaFreeHost(h_src));
    CHECK(cudaFreeHost(h_dst));
    CHECK(cudaFree(d));
    std::free(pattern);
    return 0;
}
