/* test_fp_summary.c - the footprint collector's host side (footprint/
 * fp_summary.c) without a GPU: the sample, a launch's accesses summarized
 * per argument word and kind (fp_test.cu's kernels, their accesses written
 * out by hand), the footprint file it writes read back by the report's
 * reader (analyzer/model/footprints.c), a second process merged into it,
 * and a file that is not a footprint file left alone. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fp_summary.h"
#include "model/footprints.h"
#include "sqlite_api.h"
#include "../unit.h"

#define A 0x7f0000000000ull /* out: 16384 bytes */
#define B 0x7f0000100000ull /* in: 16384 bytes */
#define C 0x7f0000200000ull /* gathered through a table: 256 bytes */
#define T 0x7f0000300000ull /* the table: 8 bytes */
#define K 0x7f0000400000ull /* a counter: 4 bytes */

static int find(uint64_t addr, struct fp_alloc *a)
{
  static const struct fp_alloc all[] = {
      {A, 16384, 1}, {B, 16384, 2}, {C, 256, 3}, {T, 8, 1}, {K, 4, 1}};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    if (addr >= all[i].start && addr - all[i].start < all[i].size) {
      *a = all[i];
      return 1;
    }
  return 0;
}

/* fp_halfwrite(out, in, n): writes out[0, n/2), reads in[0, n) (floats) */
static void halfwrite(int n)
{
  static struct fp_access acc[8192];
  size_t k = 0;
  for (int i = 0; i < n; i++)
    acc[k++] = (struct fp_access){B + 4u * (unsigned)i, 4, 0x1};
  for (int i = 0; i < n / 2; i++)
    acc[k++] = (struct fp_access){A + 4u * (unsigned)i, 4, 0x2};
  struct fp_word w[] = {{A, 0, 0}, {B, 1, 0}, {(uint64_t)n, 2, 0}};
  fp_launch("_Z12fp_halfwritePfS_i");
  fp_instrumented("_Z12fp_halfwritePfS_i", w, 3, acc, k, 0, find);
}

static int text(void *arg, int n, char **v, char **names)
{
  (void)names;
  snprintf(arg, 128, "%s", n > 0 && v[0] ? v[0] : "");
  return 0;
}

static const struct fp_range *range(const struct fp_kernel *k, int param,
                                    enum cl_fp_kind kind)
{
  for (size_t i = 0; k && i < k->nr; i++)
    if (k->r[i].param == param && k->r[i].offset == 0 && k->r[i].kind == kind)
      return &k->r[i];
  return NULL;
}

int main(void)
{
  char why[256];
  CHECK(cl_sqlite_load(why, sizeof why) == 0);
  /* the sample: the first 4, then powers of two */
  CHECK(fp_sampled(1, 4, true) && fp_sampled(4, 4, true));
  CHECK(!fp_sampled(5, 4, true) && !fp_sampled(7, 4, true));
  CHECK(fp_sampled(8, 4, true) && fp_sampled(1024, 4, true));
  CHECK(!fp_sampled(1000, 4, true) && !fp_sampled(8, 4, false));
  CHECK(!fp_sampled(0, 4, true) && !fp_sampled(1, 0, false));

  halfwrite(4096);
  halfwrite(4096);
  fp_launch("_Z12fp_halfwritePfS_i"); /* a third, not instrumented */
  /* fp_gather(dst, table): reads table[0] (8 bytes), 64 floats through it,
   * writes dst[0, 64) */
  struct fp_access g[130];
  size_t k = 0;
  g[k++] = (struct fp_access){T, 8, 0x1};
  for (unsigned i = 0; i < 64; i++) {
    g[k++] = (struct fp_access){C + 4 * i, 4, 0x1};
    g[k++] = (struct fp_access){A + 4 * i, 4, 0x2};
  }
  struct fp_word gw[] = {{A, 0, 0}, {T, 1, 0}};
  fp_launch("_Z9fp_gatherPfPPKf");
  fp_instrumented("_Z9fp_gatherPfPPKf", gw, 2, g, k, 0, find);
  /* fp_atomic(counter): an atomic add, then one with another extent */
  struct fp_access at = {K, 4, 0x3};
  struct fp_word aw[] = {{K, 0, 0}};
  fp_launch("_Z9fp_atomicPi");
  fp_instrumented("_Z9fp_atomicPi", aw, 1, &at, 1, 0, find);
  struct fp_access at2 = {K, 2, 0x3};
  fp_launch("_Z9fp_atomicPi");
  fp_instrumented("_Z9fp_atomicPi", aw, 1, &at2, 1, 0, find);

  char path[] = "/tmp/test_fp_summary.XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  unlink(path); /* fp_write creates it */
  CHECK(fp_write(path, "4,1", why, sizeof why) == 0, "%s", why);

  struct footprints fp;
  char *err = NULL;
  CHECK(footprints_read(&fp, path, &err) == 0, "%s", err ? err : "");
  const struct fp_kernel *h = footprints_kernel(&fp, "_Z12fp_halfwritePfS_i");
  CHECK(h && h->launches == 3 && h->instrumented == 2 && h->unattributed == 0);
  const struct fp_range *r = range(h, 0, CL_FP_WRITE);
  CHECK(r && r->lo == 0 && r->hi == 8192 && r->exact);
  r = range(h, 1, CL_FP_READ);
  CHECK(r && r->lo == 0 && r->hi == 16384 && r->exact);
  CHECK(!range(h, 1, CL_FP_WRITE) && !range(h, 0, CL_FP_READ) && h->nr == 2);
  const struct fp_kernel *gk = footprints_kernel(&fp, "_Z9fp_gatherPfPPKf");
  CHECK(gk && gk->instrumented == 1 && gk->unattributed == 1);
  r = range(gk, 1, CL_FP_READ);
  CHECK(r && r->lo == 0 && r->hi == 8 && gk->nr == 2);
  r = range(gk, 0, CL_FP_WRITE);
  CHECK(r && r->hi == 256);
  const struct fp_kernel *ak = footprints_kernel(&fp, "_Z9fp_atomicPi");
  r = range(ak, 0, CL_FP_ATOMIC);
  CHECK(ak && r && r->lo == 0 && r->hi == 4 && !r->exact && ak->nr == 1);
  footprints_free(&fp);

  /* the unattributed gather, relative to its 256-byte allocation */
  sqlite3 *db;
  char got[128] = "";
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
  CHECK(sqlite3_exec(db, "SELECT group_concat(name||':'||kind||':'||"
                         "alloc_size||':'||alloc_index||':'||lo||':'||hi) FROM fp_unattributed",
                     text, got, NULL) == SQLITE_OK);
  CHECK_STR(got, "_Z9fp_gatherPfPPKf:read:256:3:0:256");
  sqlite3_close(db);

  /* a second process of the run: halfwrite with another extent, merged */
  fp_reset();
  halfwrite(2048);
  CHECK(fp_write(path, "4,1", why, sizeof why) == 0, "%s", why);
  CHECK(footprints_read(&fp, path, &err) == 0);
  h = footprints_kernel(&fp, "_Z12fp_halfwritePfS_i");
  CHECK(h && h->launches == 4 && h->instrumented == 3);
  r = range(h, 0, CL_FP_WRITE);
  CHECK(r && r->lo == 0 && r->hi == 8192 && !r->exact);
  CHECK(footprints_kernel(&fp, "_Z9fp_gatherPfPPKf") != NULL);
  footprints_free(&fp);

  /* a file that is not a footprint file is not written into */
  char other[] = "/tmp/test_fp_summary_other.XXXXXX";
  fd = mkstemp(other);
  CHECK(fd >= 0);
  close(fd);
  CHECK(sqlite3_open_v2(other, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK);
  CHECK(sqlite3_exec(db, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
                         " INSERT INTO meta VALUES('format', 'cudalens')",
                     NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close(db);
  CHECK(fp_write(other, "4,1", why, sizeof why) == -1);
  CHECK(strstr(why, "not a footprint file") != NULL, "%s", why);
  CHECK(footprints_read(&fp, other, &err) == -1);
  free(err);
  unlink(other);
  unlink(path);
  fp_reset();
  UNIT_DONE();
}
