/* test_protmap.c - unit test of the host check's record of the protection
 * it gave (shim/protmap.c): explicit cases (a copy within a protected
 * range, a stricter level, a lift, unknown ranges, the table forgotten
 * when full), then random sets checked page by page against a plain array
 * (answers of cl_protmap_is and cl_protmap_covers), the ranges kept sorted,
 * disjoint and merged being what keeps the table small. */
#include <sys/mman.h>

#include "shim/protmap.h"
#include "../unit.h"

#define RW (PROT_READ | PROT_WRITE)
#define P 4096ull
#define NPAGES 96

static int model[NPAGES];

static int model_is(int a, int b, int prot)
{
  for (int i = a; i < b; i++)
    if (model[i] != prot)
      return 0;
  return 1;
}

static int model_covers(int a, int b, int readonly)
{
  for (int i = a; i < b; i++)
    if (model[i] != PROT_NONE && !(readonly && model[i] == PROT_READ))
      return 0;
  return 1;
}

static void set(int a, int b, int prot)
{
  cl_protmap_set(a * P, b * P, prot);
  for (int i = a; i < b; i++)
    model[i] = prot;
}

int main(void)
{
  /* nothing protected: read-write everywhere, nothing covered */
  CHECK(cl_protmap_is(0, 8 * P, RW));
  CHECK(!cl_protmap_is(0, 8 * P, PROT_READ));
  CHECK(!cl_protmap_covers(0, P, 1));

  /* a host-to-device source: read-only; a later copy of part of it costs
   * nothing, a device-to-host destination on it needs more */
  cl_protmap_set(0, 64 * P, PROT_READ);
  CHECK(cl_protmap_is(0, 64 * P, PROT_READ));
  CHECK(cl_protmap_covers(0, 16 * P, 1));
  CHECK(!cl_protmap_covers(0, 16 * P, 0));
  CHECK(!cl_protmap_covers(0, 65 * P, 1)); /* past it */
  cl_protmap_set(8 * P, 16 * P, PROT_NONE);
  CHECK(cl_protmap_covers(8 * P, 16 * P, 0));
  CHECK(!cl_protmap_is(0, 64 * P, PROT_READ));
  CHECK(cl_protmap_is(16 * P, 64 * P, PROT_READ));
  /* the same protection inside a range: still one range */
  cl_protmap_set(20 * P, 30 * P, PROT_READ);
  CHECK(cl_protmap_is(16 * P, 64 * P, PROT_READ));
  /* lifted: read-write, not covered */
  cl_protmap_set(0, 64 * P, RW);
  CHECK(cl_protmap_is(0, 64 * P, RW));
  CHECK(!cl_protmap_covers(0, P, 1));

  /* unknown: never the protection asked about, never covering */
  cl_protmap_set(4 * P, 5 * P, CL_PROT_UNKNOWN);
  CHECK(!cl_protmap_is(4 * P, 5 * P, RW));
  CHECK(!cl_protmap_is(4 * P, 5 * P, PROT_NONE));
  CHECK(!cl_protmap_covers(4 * P, 5 * P, 1));
  cl_protmap_set(4 * P, 5 * P, RW);
  CHECK(cl_protmap_is(0, 8 * P, RW));

  /* forgotten (and full: every other page protected): no answer is yes
   * until relearned, then everything is read-write */
  cl_protmap_set(0, P, PROT_READ);
  cl_protmap_forget();
  CHECK(!cl_protmap_is(0, P, PROT_READ));
  CHECK(!cl_protmap_is(8 * P, 9 * P, RW));
  cl_protmap_relearn();
  CHECK(cl_protmap_is(0, P, RW));
  for (uint64_t i = 0; i <= CL_PROTMAP_MAX; i++)
    cl_protmap_set(2 * i * P, (2 * i + 1) * P, PROT_NONE);
  CHECK(!cl_protmap_is(0, P, PROT_NONE), "full: forgotten");
  CHECK(!cl_protmap_is(P, 2 * P, RW), "full: forgotten");
  cl_protmap_relearn();

  /* random sets against the array */
  static const int prots[] = {PROT_NONE, PROT_READ, RW, CL_PROT_UNKNOWN};
  srand(25);
  for (int i = 0; i < NPAGES; i++)
    model[i] = RW;
  int bad = 0;
  for (int it = 0; it < 20000 && !bad; it++) {
    int a = rand() % NPAGES, b = a + 1 + rand() % (NPAGES - a);
    set(a, b, prots[rand() % 4]);
    for (int q = 0; q < 8; q++) {
      int x = rand() % NPAGES, y = x + 1 + rand() % (NPAGES - x);
      int p = prots[rand() % 3], ro = rand() % 2;
      if (cl_protmap_is(x * P, y * P, p) != model_is(x, y, p) ||
          cl_protmap_covers(x * P, y * P, ro) != model_covers(x, y, ro))
        bad = 1;
    }
  }
  CHECK(!bad, "a random set answers otherwise than the array");
  /* merged: one range per run of pages of one protection */
  int runs = 0;
  for (int i = 0; i < NPAGES; i++)
    runs += model[i] != RW && (i == 0 || model[i - 1] != model[i]);
  CHECK(cl_protmap_ranges() == runs, "%d ranges for %d runs", cl_protmap_ranges(), runs);
  UNIT_DONE();
}
