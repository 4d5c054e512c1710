/* startup_cpu.c - the CPU time and page faults a preloaded library costs a
 * process that never uses CUDA (issue 24, item 10), per process rather than
 * per shell loop: runs COMMAND N times under each variant (native, then
 * each LABEL=LIBRARY as LD_PRELOAD), the variants interleaved process by
 * process so that a shared machine's drift hits all alike, and reads each
 * child's user + system time and minor faults from wait4() (the kernel's
 * precise run time, including the descendants the child waited for: a
 * `sh -c` loop counts its 50 children).  Prints, per variant, the median
 * and the quartiles over all runs, and the median's difference to native;
 * faults as the median and the mean (a fault more in some runs only, as
 * where a library lands decides which 64 KiB windows a fault maps).
 *
 *   bench/startup_cpu [-n RUNS] LABEL=LIBRARY... -- COMMAND [ARG...]
 *   bench/startup_cpu -n 2000 empty=/tmp/empty.so shim=.libs/libcudalens.so -- /bin/true
 *
 * No GPU needed; the command's output goes to /dev/null. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_VARIANTS 8

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* the Q quantile of sorted V[N] */
static double quantile(const double *v, int n, double q)
{
  double pos = q * (n - 1);
  int i = (int)pos;
  return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

/* environ without LD_PRELOAD, then LD_PRELOAD=lib (if any) */
static char **env_with(const char *lib)
{
  int n = 0;
  while (environ[n])
    n++;
  char **e = calloc((size_t)n + 2, sizeof *e);
  int k = 0;
  for (int i = 0; i < n; i++)
    if (strncmp(environ[i], "LD_PRELOAD=", 11))
      e[k++] = environ[i];
  if (lib) {
    char *s = malloc(strlen(lib) + 12);
    sprintf(s, "LD_PRELOAD=%s", lib);
    e[k++] = s;
  }
  e[k] = NULL;
  return e;
}

int main(int argc, char **argv)
{
  int runs = 1000, nv = 1, opt;
  const char *label[MAX_VARIANTS] = {"native"};
  char *lib[MAX_VARIANTS] = {NULL};
  while ((opt = getopt(argc, argv, "+n:")) != -1) {
    if (opt != 'n')
      goto usage;
    runs = atoi(optarg);
  }
  for (; optind < argc && strcmp(argv[optind], "--"); optind++) {
    char *eq = strchr(argv[optind], '=');
    if (!eq || nv == MAX_VARIANTS)
      goto usage;
    *eq = 0;
    label[nv] = argv[optind];
    lib[nv] = realpath(eq + 1, NULL);
    if (!lib[nv]) {
      perror(eq + 1);
      return 2;
    }
    nv++;
  }
  if (optind + 1 >= argc || runs < 1)
    goto usage;
  char **cmd = argv + optind + 1;

  char **env[MAX_VARIANTS];
  double *cpu[MAX_VARIANTS], *flt[MAX_VARIANTS];
  for (int v = 0; v < nv; v++) {
    env[v] = env_with(lib[v]);
    cpu[v] = malloc(sizeof(double) * (size_t)runs);
    flt[v] = malloc(sizeof(double) * (size_t)runs);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  for (int r = 0; r < runs; r++)
    for (int v = 0; v < nv; v++) {
      pid_t pid;
      int st;
      struct rusage ru;
      if (posix_spawnp(&pid, cmd[0], &fa, NULL, cmd, env[v])) {
        perror(cmd[0]);
        return 2;
      }
      if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) ||
          WEXITSTATUS(st)) {
        fprintf(stderr, "%s: %s under %s did not exit 0\n", argv[0], cmd[0],
                label[v]);
        return 2;
      }
      cpu[v][r] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
                  ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
      flt[v][r] = (double)ru.ru_minflt;
    }

  printf("%s: %d runs each, interleaved; CPU = user + system (us)\n", cmd[0],
         runs);
  printf("%-10s %10s %10s %10s %10s %8s %8s\n", "variant", "CPU med", "p25",
         "p75", "vs native", "faults", "mean");
  double base = 0;
  for (int v = 0; v < nv; v++) {
    qsort(cpu[v], (size_t)runs, sizeof(double), cmp_double);
    qsort(flt[v], (size_t)runs, sizeof(double), cmp_double);
    double m = quantile(cpu[v], runs, 0.5);
    if (!v)
      base = m;
    double sum = 0;
    for (int r = 0; r < runs; r++)
      sum += flt[v][r];
    printf("%-10s %10.0f %10.0f %10.0f %+10.0f %8.0f %8.2f\n", label[v], m,
           quantile(cpu[v], runs, 0.25), quantile(cpu[v], runs, 0.75),
           m - base, quantile(flt[v], runs, 0.5), sum / runs);
  }
  return 0;
usage:
  fprintf(stderr, "usage: %s [-n RUNS] LABEL=LIBRARY... -- COMMAND [ARG...]\n",
          argv[0]);
  return 2;
}
