/* outpath.c - creates the recording's file (its name is the CUDALENS_OUTPUT
 * pattern as common/outpath.c expands it) exclusively, readable by its
 * owner only (it holds the command line), never following a symlink and
 * never overwriting: when the name is taken it tries NAME.1.db, NAME.2.db,
 * ... */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

/* NAME.db -> NAME.<k>.db; other names -> NAME.<k> */
static int numbered(const char *path, int k, char *out, size_t outsz)
{
  size_t len = strlen(path);
  int r;
  if (len > 3 && !strcmp(path + len - 3, ".db"))
    r = snprintf(out, outsz, "%.*s.%d.db", (int)(len - 3), path, k);
  else
    r = snprintf(out, outsz, "%s.%d", path, k);
  return r < 0 || (size_t)r >= outsz ? -1 : 0;
}

int cl_outpath_create(const char *path, char *chosen, size_t chosensz,
                      char *err, size_t errsz)
{
  for (int k = 0; k < 1000; k++) {
    if (k == 0) {
      if (strlen(path) >= chosensz)
        break;
      strcpy(chosen, path);
    } else if (numbered(path, k, chosen, chosensz)) {
      break;
    }
    int fd = open(chosen, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0600);
    if (fd >= 0)
      return fd;
    if (errno != EEXIST) {
      snprintf(err, errsz, "cannot create '%s': %s", chosen, strerror(errno));
      return -1;
    }
  }
  snprintf(err, errsz, "cannot create '%s' or a numbered variant of it", path);
  return -1;
}
