/* dbfd.c - the descriptors of the recording.  SQLite's unix VFS would open
 * the database, its WAL and its shared-memory index on the lowest free
 * descriptors (3, 4, 5...), the numbers programs dup2() their own files
 * onto.  Through the VFS's own system-call override, the files the writer
 * thread opens are moved far above them (F_DUPFD_CLOEXEC); other threads,
 * including the program's own use of SQLite, get SQLite's open unchanged.
 * Each descriptor is remembered with the file it names, so the writer can
 * tell before it writes that the program closed it or put another file on
 * it (cl_dbfd_check), and never closes a descriptor that is not its own. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqlite_api.h"
#include "writer_db.h"

#define MAX_FDS 16

struct held {
  int fd;          /* -1: free slot */
  dev_t dev;
  ino_t ino;
};

typedef int (*open_fn)(const char *, int, int);
typedef int (*close_fn)(int);

static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static open_fn sqlite_open;   /* what the unix VFS used before us */
static close_fn sqlite_close;
static int installed;
static int lowest = -1;       /* the first descriptor the recording may use */
static __thread int recorder; /* this thread opens the recording's files */
/* only the writer thread changes it (and a forked child, alone) */
static struct held held[MAX_FDS] = {[0 ... MAX_FDS - 1] = {.fd = -1}};

/* a soft descriptor limit at or below this leaves the recording no room
 * above the program's descriptors (lowest_fd, cl_dbfd_no_room) */
#define ROOM_LIMIT 64

/* Well above what programs name on their own, below the soft limit and
 * below 1024 so that the kernel's descriptor table does not grow for us. */
static int lowest_fd(void)
{
  if (lowest < 0) {
    struct rlimit rl;
    rlim_t lim = 1024;
    if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < lim)
      lim = rl.rlim_cur;
    lowest = lim > ROOM_LIMIT ? (int)lim - 32 : 10;
  }
  return lowest;
}

/* The recording keeps its descriptors above the program's (lowest_fd): a
 * soft limit of 64 or less leaves no room there, and any descriptor the
 * recorder held would be one the program no longer has (a driver that
 * needs a few more fails differently, or later): such a process is not
 * recorded, and says why. */
int cl_dbfd_no_room(char *why, size_t whysz)
{
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur > ROOM_LIMIT)
    return 0;
  snprintf(why, whysz,
           "RLIMIT_NOFILE is %llu: the recording's descriptors would be taken "
           "from the program's (it needs a soft limit above %d)",
           (unsigned long long)rl.rlim_cur, ROOM_LIMIT);
  return 1;
}

int cl_dbfd_move(int fd)
{
  if (fd < 0 || fd >= lowest_fd())
    return fd;
  int high = fcntl(fd, F_DUPFD_CLOEXEC, lowest_fd());
  int err = errno;
  close(fd);
  errno = err;
  return high;
}

static void remember(int fd)
{
  struct stat st;
  if (fstat(fd, &st))
    return;
  for (int i = 0; i < MAX_FDS; i++)
    if (held[i].fd < 0) {
      held[i] = (struct held){fd, st.st_dev, st.st_ino};
      return;
    }
}

static void forget(int fd)
{
  for (int i = 0; i < MAX_FDS; i++)
    if (held[i].fd == fd)
      held[i].fd = -1;
}

static int still_ours(const struct held *h)
{
  struct stat st;
  return !fstat(h->fd, &st) && st.st_dev == h->dev && st.st_ino == h->ino;
}

static int recording_open(const char *path, int flags, int mode)
{
  if (!recorder)
    return sqlite_open(path, flags, mode);
  int fd = cl_dbfd_move(sqlite_open(path, flags | O_CLOEXEC, mode));
  if (fd >= 0)
    remember(fd);
  return fd;
}

static int recording_close(int fd)
{
  if (recorder)
    forget(fd);
  return sqlite_close(fd);
}

static void install(void)
{
  sqlite3_vfs *unix_vfs = sqlite3_vfs_find("unix");
  if (!unix_vfs || unix_vfs->iVersion < 3 || !unix_vfs->xSetSystemCall)
    return;
  sqlite_open = (open_fn)unix_vfs->xGetSystemCall(unix_vfs, "open");
  sqlite_close = (close_fn)unix_vfs->xGetSystemCall(unix_vfs, "close");
  if (!sqlite_open || !sqlite_close)
    return;
  if (unix_vfs->xSetSystemCall(unix_vfs, "close",
                               (sqlite3_syscall_ptr)recording_close) ||
      unix_vfs->xSetSystemCall(unix_vfs, "open",
                               (sqlite3_syscall_ptr)recording_open)) {
    unix_vfs->xSetSystemCall(unix_vfs, "close", (sqlite3_syscall_ptr)sqlite_close);
    return;
  }
  installed = 1;
}

int cl_dbfd_install(void)
{
  pthread_once(&install_once, install);
  recorder = 1;
  return installed ? 0 : -1;
}

int cl_dbfd_check(char *why, size_t whysz)
{
  for (int i = 0; i < MAX_FDS; i++) {
    if (held[i].fd < 0 || still_ours(&held[i]))
      continue;
    snprintf(why, whysz, "the program closed descriptor %d of the recording "
                         "or put another file on it", held[i].fd);
    return -1;
  }
  return 0;
}

void cl_dbfd_release(void)
{
  for (int i = 0; i < MAX_FDS; i++) {
    if (held[i].fd >= 0 && still_ours(&held[i]))
      close(held[i].fd);
    held[i].fd = -1;
  }
}
