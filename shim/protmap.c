/* protmap.c - the protection the host check (hostguard.c) gave each page by
 * its own mprotect calls (issue 25): sorted, disjoint page ranges whose
 * protection is not read-write, with that protection, or CL_PROT_UNKNOWN
 * where a fault or step handler changed it without the lock; every other
 * page is as the program had it (read-write: pinned, registered and managed
 * memory).  hostguard.c calls mprotect only for a stretch whose protection
 * here differs from what its guards call for.  When the table runs out of
 * room (or a handler's queue overflows), it is forgotten: every question
 * answers no, so every change makes its system call, until nothing is
 * guarded.  Called with hostguard.c's lock held; never from a handler
 * that does not hold it. */
#include <string.h>
#include <sys/mman.h>

#include "protmap.h"

#define RW (PROT_READ | PROT_WRITE)

struct range {
  uint64_t lo, hi;
  int prot;
};
static struct range map[CL_PROTMAP_MAX], tmp[CL_PROTMAP_MAX];
static int nmap, lost;

int cl_protmap_is(uint64_t a, uint64_t b, int prot)
{
  if (lost)
    return 0;
  int rw = prot == RW;
  for (int i = 0; i < nmap && a < b; i++) {
    const struct range *e = &map[i];
    if (e->hi <= a)
      continue;
    if (e->lo >= b)
      break;
    if (rw || e->prot != prot || e->lo > a)
      return 0; /* protected where it should not be, or a gap */
    a = e->hi;
  }
  return rw || a >= b;
}

/* Adding a guard only makes a page's protection stricter, so a new guard
 * whose pages are all covered changes nothing. */
int cl_protmap_covers(uint64_t a, uint64_t b, int readonly)
{
  if (lost)
    return 0;
  for (int i = 0; i < nmap && a < b; i++) {
    const struct range *e = &map[i];
    if (e->hi <= a)
      continue;
    if (e->lo > a || (e->prot != PROT_NONE && !(readonly && e->prot == PROT_READ)))
      return 0;
    a = e->hi;
  }
  return a >= b;
}

/* tmp gets [lo, hi), merged with the range before when they meet; -1 when
 * full */
static int push(int n, uint64_t lo, uint64_t hi, int prot)
{
  if (lo >= hi || prot == RW)
    return n;
  if (n && tmp[n - 1].hi == lo && tmp[n - 1].prot == prot) {
    tmp[n - 1].hi = hi;
    return n;
  }
  if (n == CL_PROTMAP_MAX)
    return -1;
  tmp[n] = (struct range){lo, hi, prot};
  return n + 1;
}

void cl_protmap_set(uint64_t a, uint64_t b, int prot)
{
  if (lost || a >= b)
    return;
  int n = 0, put = 0;
  for (int i = 0; i < nmap && n >= 0; i++) {
    const struct range *e = &map[i];
    if (!put && e->hi > a) { /* the part of e before a, [a, b), its rest */
      n = push(n, e->lo, e->lo < a ? a : e->lo, e->prot);
      if (n >= 0)
        n = push(n, a, b, prot);
      put = 1;
      if (n >= 0 && e->hi > b)
        n = push(n, e->lo > b ? e->lo : b, e->hi, e->prot);
      continue;
    }
    if (put && e->hi <= b)
      continue; /* inside [a, b) */
    n = push(n, put && e->lo < b ? b : e->lo, e->hi, e->prot);
  }
  if (!put && n >= 0)
    n = push(n, a, b, prot);
  if (n < 0) {
    cl_protmap_forget();
    return;
  }
  memcpy(map, tmp, (size_t)n * sizeof *map);
  nmap = n;
}

void cl_protmap_forget(void)
{
  lost = 1;
  nmap = 0;
}

void cl_protmap_relearn(void)
{
  lost = 0;
}

int cl_protmap_ranges(void)
{
  return nmap;
}
