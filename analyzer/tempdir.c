/* tempdir.c - the private temporary directory of tempdir.h.  Its paths are
 * made before it exists, so that the signal handler removes it with
 * unlink() and rmdir() alone (async-signal-safe) and then dies of the
 * signal as it would have. */
#include "tempdir.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define MAX_FILES 8

static char *dir_path;                /* NULL: no directory */
static char *file_paths[MAX_FILES + 1]; /* NULL-ended */
static volatile sig_atomic_t present; /* the handler may remove it */

static const int signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE};

static void remove_files(void)
{
  for (size_t i = 0; file_paths[i]; i++)
    unlink(file_paths[i]);
  rmdir(dir_path);
}

static void on_signal(int sig)
{
  int saved = errno;
  if (present) {
    present = 0;
    remove_files();
  }
  errno = saved;
  signal(sig, SIG_DFL);
  raise(sig); /* delivered when the handler returns */
}

static void install_handlers(void)
{
  static bool installed;
  if (installed)
    return;
  installed = true;
  atexit(tempdir_remove);
  for (size_t i = 0; i < sizeof signals / sizeof *signals; i++) {
    struct sigaction old, sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* a signal the process was told to ignore stays ignored */
    if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
      sigaction(signals[i], &sa, NULL);
  }
}

static void block_signals(sigset_t *old)
{
  sigset_t block;
  sigemptyset(&block);
  for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
    sigaddset(&block, signals[i]);
  sigprocmask(SIG_BLOCK, &block, old);
}

const char *tempdir_create(const char *const *names)
{
  if (dir_path) {
    errno = EBUSY;
    return NULL;
  }
  install_handlers();
  const char *tmp = getenv("TMPDIR");
  char *dir = xasprintf("%s/cudalens-report.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  /* no signal between the directory's creation and `present` */
  sigset_t old;
  block_signals(&old);
  if (!mkdtemp(dir)) {
    int saved = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    free(dir);
    errno = saved;
    return NULL;
  }
  for (size_t i = 0; i < MAX_FILES && names[i]; i++)
    file_paths[i] = xasprintf("%s/%s", dir, names[i]);
  dir_path = dir;
  present = 1;
  sigprocmask(SIG_SETMASK, &old, NULL);
  return dir_path;
}

void tempdir_remove(void)
{
  if (!dir_path)
    return;
  sigset_t old;
  block_signals(&old);
  present = 0;
  remove_files();
  free(dir_path);
  dir_path = NULL;
  for (size_t i = 0; file_paths[i]; i++) {
    free(file_paths[i]);
    file_paths[i] = NULL;
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
}
