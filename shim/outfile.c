/* outfile.c - puts the recording's file in place (its name is the
 * CUDALENS_OUTPUT pattern as common/outpath.c expands it), readable by its
 * owner only (it holds the command line), never following a symlink and
 * never overwriting: when the name is taken it tries NAME.1.db, NAME.2.db,
 * ...; a name that exists and is not a regular file (/dev/null, /dev/full,
 * a folder) is an error, never numbered.
 *
 * The file appears under its name complete or not at all (issue 24, defect
 * 2): its first contents (a database with the schema) are written to a
 * hidden temporary file in the same folder, which is then linked to the
 * name.  A process killed at any moment, or one that fails half-way, leaves
 * no file under a recording's name that is not a recording.  A file system
 * without hard links gets the name created exclusively and written at once
 * (a kill between the two is then possible, though unlikely). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "shim.h"
#include "writer_db.h"

/* NAME.db -> NAME.<k>.db; other names -> NAME.<k> */
static int numbered(const char *path, int k, char *out, size_t outsz)
{
  size_t len = strlen(path);
  int r;
  if (k == 0)
    r = snprintf(out, outsz, "%s", path);
  else if (len > 3 && !strcmp(path + len - 3, ".db"))
    r = snprintf(out, outsz, "%.*s.%d.db", (int)(len - 3), path, k);
  else
    r = snprintf(out, outsz, "%s.%d", path, k);
  return r < 0 || (size_t)r >= outsz ? -1 : 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
  const char *p = buf;
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      if (w == 0)
        errno = EIO;
      return -1;
    }
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

/* a name that exists and is no regular file (nor a symlink, which is
 * skipped like a file): never numbered */
static int not_a_file(const char *name)
{
  struct stat st;
  return !lstat(name, &st) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode);
}

/* the name created exclusively and written: 0, -1 with errno */
static int create_written(const char *name, const void *buf, size_t len)
{
  int fd = cl_dbfd_move(open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                                       O_CLOEXEC, 0600));
  if (fd < 0)
    return -1;
  if (write_all(fd, buf, len)) {
    int err = errno;
    close(fd);
    unlink(name);
    errno = err;
    return -1;
  }
  close(fd);
  return 0;
}

int cl_outpath_publish(const char *path, const void *buf, size_t len,
                       char *chosen, size_t chosensz, char *err, size_t errsz)
{
  if (not_a_file(path)) {
    snprintf(err, errsz, "cannot record to '%s': it exists and is not a "
                         "regular file", path);
    return -1;
  }
  const char *slash = strrchr(path, '/');
  char tmp[4200];
  int n = slash ? snprintf(tmp, sizeof tmp, "%.*s/.cudalens-%ld.XXXXXX",
                           (int)(slash - path), path, (long)getpid())
                : snprintf(tmp, sizeof tmp, ".cudalens-%ld.XXXXXX",
                           (long)getpid());
  if (n < 0 || (size_t)n >= sizeof tmp) {
    snprintf(err, errsz, "output path too long: '%s'", path);
    return -1;
  }
  int fd = mkostemp(tmp, O_CLOEXEC); /* mode 0600 */
  if (fd < 0) {
    snprintf(err, errsz, "cannot create '%s': %s", path, strerror(errno));
    return -1;
  }
  fd = cl_dbfd_move(fd);
  if (fd < 0) {
    snprintf(err, errsz, "cannot create '%s': no descriptor free above the "
                         "program's (%s)", path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  if (write_all(fd, buf, len)) {
    snprintf(err, errsz, "cannot write '%s': %s", path, strerror(errno));
    close(fd);
    unlink(tmp);
    return -1;
  }
  close(fd);
  int links = 1, r = -1;
  for (int k = 0; k < 1000; k++) {
    if (numbered(path, k, chosen, chosensz))
      break;
    if (links && !link(tmp, chosen)) {
      r = 0;
      break;
    }
    if (links && errno != EEXIST)
      links = 0; /* no hard links here: created and written at once */
    if (!links && !create_written(chosen, buf, len)) {
      r = 0;
      break;
    }
    if (errno != EEXIST) {
      snprintf(err, errsz, "cannot create '%s': %s", chosen, strerror(errno));
      r = -2;
      break;
    }
    if (not_a_file(chosen)) {
      snprintf(err, errsz, "cannot record to '%s': it exists and is not a "
                           "regular file", chosen);
      r = -2;
      break;
    }
  }
  unlink(tmp);
  if (r == -1)
    snprintf(err, errsz, "cannot create '%s' or a numbered variant of it",
             path);
  return r < 0 ? -1 : 0;
}
