// hostile.cu - a CUDA program that does what ordinary programs do and a
// preloaded recorder must survive without changing it (issue 13: defects
// found by fault injection).  Each mode prints what it observed; the tests
// compare that with a run without the shim.
//
//   hostile fds DIR        CUDA work, then puts files of its own on
//                          descriptors 3..9 (open + dup2), more CUDA work,
//                          writes and reads its files back; prints the
//                          descriptor its first open() got
//   hostile forkstorm N    a thread making CUDA calls in a loop while the
//                          main thread forks N children that make no CUDA
//                          call and leave through exit()
//   hostile closefds       CUDA work, closes every descriptor above 2, more
//                          CUDA work, exit 0
//   hostile abrupt HOW     CUDA work, then HOW(3): _exit, _Exit or quick_exit
//   hostile forkcuda N     N forked children each do CUDA work and _exit(0);
//                          the parent makes no CUDA call
//   hostile exec FN...     CUDA work, then execs itself through the first
//                          exec function named (execve, execv, execvp,
//                          execvpe, execl, execle, execlp, fexecve) with the
//                          rest of the list; the last one does CUDA work and
//                          exits 0 (at most 8 words for the list forms)
//   hostile execfail       CUDA work, an execv that fails, CUDA work, exit 0
//
// "CUDA work" is 4 calls: cudaMalloc, cudaMemcpy (H2D), a kernel launch,
// cudaDeviceSynchronize.
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>

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

static int die(const char *what)
{
    std::fprintf(stderr, "hostile: %s: %s\n", what, std::strerror(errno));
    return 1;
}

static int fds(const char *dir)
{
    if (work())
        return 1;
    usleep(500000); /* a recorder has opened its files by now */
    char path[4096];
    std::snprintf(path, sizeof path, "%s/first", dir);
    int first = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (first < 0)
        return die(path);
    std::printf("first open: %d\n", first);
    close(first);
    for (int fd = 3; fd <= 9; fd++) {
        std::snprintf(path, sizeof path, "%s/own%d", dir, fd);
        int f = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (f < 0)
            return die(path);
        if (f != fd) {
            if (dup2(f, fd) < 0)
                return die("dup2");
            close(f);
        }
    }
    for (int i = 0; i < 50; i++)
        if (work())
            return 1;
    usleep(100000); /* let a recorder's writer commit, if it would */
    char line[64];
    for (int fd = 3; fd <= 9; fd++) {
        int n = std::snprintf(line, sizeof line, "descriptor %d is mine\n", fd);
        if (write(fd, line, (size_t)n) != n)
            return die("write");
    }
    if (work())
        return 1;
    int bad = 0;
    for (int fd = 3; fd <= 9; fd++) {
        char buf[4096];
        std::snprintf(path, sizeof path, "%s/own%d", dir, fd);
        int f = open(path, O_RDONLY);
        ssize_t n = f < 0 ? -1 : read(f, buf, sizeof buf);
        if (f >= 0)
            close(f);
        int len = std::snprintf(line, sizeof line, "descriptor %d is mine\n", fd);
        if (n != len || std::memcmp(buf, line, (size_t)len)) {
            std::printf("own%d: %zd bytes, not what was written\n", fd, n);
            bad = 1;
        }
    }
    std::printf("files %s\n", bad ? "damaged" : "intact");
    return bad;
}

static std::atomic<int> stop_busy;

static void *busy(void *)
{
    int h[256] = {};
    int *d = nullptr;
    if (cudaMalloc(&d, sizeof h) != cudaSuccess)
        return nullptr;
    while (!stop_busy.load()) {
        cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
        cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    }
    cudaFree(d);
    return nullptr;
}

static int forkstorm(int n)
{
    if (work())
        return 1;
    pthread_t t;
    pthread_create(&t, nullptr, busy, nullptr);
    int ok = 0;
    for (int i = 0; i < n; i++) {
        std::fflush(stdout);
        pid_t c = fork();
        if (c < 0)
            return die("fork");
        if (c == 0) {
            long sum = 0;
            for (int k = 0; k < 1000; k++)
                sum += k;
            std::exit(sum == 499500 ? 0 : 1);
        }
        int st;
        if (waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            ok++;
    }
    stop_busy.store(1);
    pthread_join(t, nullptr);
    std::printf("children ok: %d of %d\n", ok, n);
    return ok != n;
}

static int closefds()
{
    if (work())
        return 1;
    usleep(100000); /* a recorder's files are open by now */
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
        close((int)fd);
    for (int i = 0; i < 20; i++)
        if (work())
            return 1;
    std::printf("closed all descriptors\n");
    return 0;
}

static int abrupt(const char *how)
{
    if (work())
        return 1;
    std::printf("leaving through %s\n", how);
    std::fflush(stdout);
    if (!std::strcmp(how, "_exit"))
        _exit(3);
    if (!std::strcmp(how, "_Exit"))
        _Exit(3);
    if (!std::strcmp(how, "quick_exit"))
        std::quick_exit(3);
    return 64;
}

static int forkcuda(int n)
{
    int ok = 0;
    for (int i = 0; i < n; i++) {
        pid_t c = fork();
        if (c < 0)
            return die("fork");
        if (c == 0)
            _exit(work());
        int st;
        if (waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            ok++;
    }
    std::printf("children ok: %d of %d\n", ok, n);
    return ok != n;
}

/* the list forms, with the n words of argv (at most 8) */
#define CL_LIST(F, path, v, n, ...)                                            \
    switch (n) {                                                               \
    case 2: F(path, v[0], v[1], (char *)nullptr, ##__VA_ARGS__); break;       \
    case 3: F(path, v[0], v[1], v[2], (char *)nullptr, ##__VA_ARGS__); break; \
    case 4: F(path, v[0], v[1], v[2], v[3], (char *)nullptr, ##__VA_ARGS__); break; \
    case 5: F(path, v[0], v[1], v[2], v[3], v[4], (char *)nullptr, ##__VA_ARGS__); break; \
    case 6: F(path, v[0], v[1], v[2], v[3], v[4], v[5], (char *)nullptr, ##__VA_ARGS__); break; \
    case 7: F(path, v[0], v[1], v[2], v[3], v[4], v[5], v[6], (char *)nullptr, ##__VA_ARGS__); break; \
    case 8: F(path, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], (char *)nullptr, ##__VA_ARGS__); break; \
    }

static void exec_list(const char *fn, const char *self, char **v, int n)
{
    extern char **environ;
    if (!std::strcmp(fn, "execl"))
        CL_LIST(execl, self, v, n)
    else if (!std::strcmp(fn, "execlp"))
        CL_LIST(execlp, self, v, n)
    else
        CL_LIST(execle, self, v, n, environ)
}

static int exec_chain(int argc, char **argv)
{
    if (work())
        return 1;
    if (argc < 3) {
        std::printf("end of the chain\n");
        return 0;
    }
    const char *fn = argv[2];
    std::printf("%s\n", fn);
    std::fflush(stdout);
    /* argv[2] is dropped: the next program gets "exec" and the rest */
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return die("readlink");
    self[n] = 0;
    char **next = (char **)std::calloc((size_t)argc, sizeof *next);
    next[0] = argv[0];
    next[1] = argv[1];
    for (int i = 3; i < argc; i++)
        next[i - 1] = argv[i];
    extern char **environ;
    if (!std::strcmp(fn, "execve"))
        execve(self, next, environ);
    else if (!std::strcmp(fn, "execv"))
        execv(self, next);
    else if (!std::strcmp(fn, "execvp"))
        execvp(self, next);
    else if (!std::strcmp(fn, "execvpe"))
        execvpe(self, next, environ);
    else if (!std::strcmp(fn, "execl") || !std::strcmp(fn, "execle") ||
             !std::strcmp(fn, "execlp"))
        exec_list(fn, self, next, argc - 1);
    else if (!std::strcmp(fn, "fexecve")) {
        int fd = open(self, O_RDONLY | O_CLOEXEC);
        if (fd >= 0)
            fexecve(fd, next, environ);
    } else {
        std::fprintf(stderr, "hostile: unknown exec function %s\n", fn);
        return 64;
    }
    return die(fn);
}

static int execfail()
{
    if (work())
        return 1;
    char *argv[] = {(char *)"missing", nullptr};
    execv("/nonexistent/cudalens-hostile", argv);
    std::printf("execv failed: %s\n", std::strerror(errno));
    return work();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!std::strcmp(mode, "fds") && argc > 2)
        return fds(argv[2]);
    if (!std::strcmp(mode, "forkstorm") && argc > 2)
        return forkstorm(std::atoi(argv[2]));
    if (!std::strcmp(mode, "closefds"))
        return closefds();
    if (!std::strcmp(mode, "abrupt") && argc > 2)
        return abrupt(argv[2]);
    if (!std::strcmp(mode, "forkcuda") && argc > 2)
        return forkcuda(std::atoi(argv[2]));
    if (!std::strcmp(mode, "exec"))
        return exec_chain(argc, argv);
    if (!std::strcmp(mode, "execfail"))
        return execfail();
    std::fprintf(stderr, "usage: hostile fds DIR|forkstorm N|closefds|"
                         "abrupt _exit|_Exit|quick_exit|forkcuda N|exec FN...|"
                         "execfail\n");
    return 64;
}
