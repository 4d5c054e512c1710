// step_storm.cu - CORRECT, and hard on the host check: a 16-byte result is
// copied into pinned memory again and again while several host threads
// hammer counters that share its page (bytes the copy does not write), so
// that every access of theirs is stepped over (issue 20).  Some threads block
// every signal (SIGTRAP included), one raises SIGTRAP into the program's
// own handler now and then, and a poker thread sends SIGUSR1, whose handler
// reads a counter on the page: it interrupts steps in flight.  Prints what
// must be the same without cudalens: the counters, the program's SIGTRAPs
// and the results.
//   step_storm [ITERATIONS [THREADS]]
// expect-none: host-read-before-sync host-write-before-sync
// rule: ASYNC_OTHER SYNC_STREAM
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include "common.h"

struct shared {
    float result[4];     // the copy's destination
    long counters[16];   // the threads', beside it
    volatile long usr1;  // read by the SIGUSR1 handler
};

static shared *p;
static int nthreads = 4, iterations = 200;
static pthread_barrier_t start, done;
static volatile sig_atomic_t traps, stop;
static pthread_t workers[16];

static void on_trap(int) { traps = traps + 1; }

static void on_usr1(int)
{
    long v = p->usr1; // a read beside the copy, inside a step perhaps
    (void)v;
}

static void *worker(void *arg)
{
    long i = (long)arg;
    if (i % 2) { // blocks everything, as thread pools do
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, nullptr);
    }
    for (int it = 0; it < iterations; it++) {
        pthread_barrier_wait(&start);
        for (int k = 0; k < 100; k++) {
            p->counters[i]++;
            if (i == 0 && k % 50 == 0)
                raise(SIGTRAP);
        }
        pthread_barrier_wait(&done);
    }
    return nullptr;
}

static void *poker(void *)
{
    while (!stop) {
        for (int i = 0; i < nthreads; i += 2)
            pthread_kill(workers[i], SIGUSR1);
        usleep(200);
    }
    return nullptr;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        iterations = atoi(argv[1]);
    if (argc > 2)
        nthreads = atoi(argv[2]);
    if (nthreads < 1 || nthreads > 16)
        return 2;
    signal(SIGTRAP, on_trap);
    signal(SIGUSR1, on_usr1);
    float *d;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d, 4 * sizeof(float)));
    CHECK(cudaMemset(d, 0, 4 * sizeof(float)));
    CHECK(cudaMallocHost(&p, sizeof *p));
    std::memset(p, 0, sizeof *p);
    CHECK(cudaDeviceSynchronize());
    pthread_barrier_init(&start, nullptr, nthreads + 1);
    pthread_barrier_init(&done, nullptr, nthreads + 1);
    for (long i = 0; i < nthreads; i++)
        pthread_create(&workers[i], nullptr, worker, (void *)i);
    pthread_t pk;
    pthread_create(&pk, nullptr, poker, nullptr);
    double sum = 0;
    for (int it = 0; it < iterations; it++) {
        CHECK(cudaMemcpyAsync(p->result, d, 4 * sizeof(float), cudaMemcpyDeviceToHost, s));
        pthread_barrier_wait(&start);
        pthread_barrier_wait(&done);
        CHECK(cudaStreamSynchronize(s));
        sum += p->result[0] + p->result[3];
    }
    stop = 1;
    pthread_join(pk, nullptr);
    long total = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(workers[i], nullptr);
        total += p->counters[i];
    }
    std::printf("step_storm: counters %ld traps %d results %g\n", total, (int)traps, sum);
    CHECK(cudaFreeHost(p));
    CHECK(cudaFree(d));
    return 0;
}
