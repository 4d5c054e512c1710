/* test_allocmap.c - unit test of what the host check reaches through a
 * kernel argument (cl_allocmap_device_reach): managed memory unless
 * attached to the host, pinned and registered memory unless registered
 * read-only, device aliases of pinned memory (cudaHostGetDevicePointer on a
 * system without unified addressing: not something the simulated runtime
 * produces), and never device memory; mappings of one reserved range
 * (cuMemMap), adjacent ranges that an unmap ends together; the device
 * whose memory an address is (cl_allocmap_device: a copy's devices); and
 * lookups that run while another thread adds and removes allocations
 * around them, growing the map (kparams.c reads it without a lock). */
#include <pthread.h>
#include <stdatomic.h>

#include "shim/kparams.h"
#include "shim/shim.h"
#include "../unit.h"

/* ---- lookups while another thread changes the map ---- */
#define STABLE 0x5000000000ull /* never removed while the readers run */
static atomic_int stop;

static void *churn(void *arg)
{
  (void)arg;
  /* allocations below and above the stable one: each add or remove moves
   * it in the map's array, and the array grows (copied) more than once */
  for (int round = 0; round < 200; round++) {
    for (uint64_t k = 1; k <= 600; k++) {
      cl_allocmap_add(STABLE - k * 0x100000, 0x1000, CL_MEMKIND_DEVICE, 0, 0);
      cl_allocmap_add(STABLE + k * 0x100000, 0x1000, CL_MEMKIND_PINNED, 0, -1);
    }
    for (uint64_t k = 1; k <= 600; k++) {
      cl_allocmap_remove(STABLE - k * 0x100000);
      cl_allocmap_remove(STABLE + k * 0x100000);
    }
  }
  atomic_store(&stop, 1);
  return NULL;
}

static int concurrent_lookups(void)
{
  cl_allocmap_add(STABLE, 0x10000, CL_MEMKIND_MANAGED, 1, 2);
  pthread_t t;
  if (pthread_create(&t, NULL, churn, NULL))
    return 1;
  long wrong = 0, lookups = 0;
  uint64_t s, e;
  while (!atomic_load(&stop)) {
    wrong += cl_allocmap_kind(STABLE + 64, 64) != CL_MEMKIND_MANAGED;
    wrong += cl_allocmap_device(STABLE + 0x8000) != 2;
    wrong += !cl_allocmap_find(STABLE + 0xffff, &s, &e) || s != STABLE ||
             e != STABLE + 0x10000;
    wrong += !cl_allocmap_device_reach(STABLE, &s, &e) || s != STABLE;
    wrong += cl_allocmap_kind(STABLE + 0x10000, 8) != CL_MEMKIND_UNKNOWN;
    lookups += 5;
  }
  pthread_join(t, NULL);
  CHECK(wrong == 0, "%ld of %ld lookups wrong while the map changed", wrong,
        lookups);
  cl_allocmap_remove(STABLE);
  return 0;
}

int main(void)
{
  uint64_t s = 0, e = 0;
  const uint64_t MiB = 1 << 20;
  cl_allocmap_add(0x10000000, MiB, CL_MEMKIND_MANAGED, 1, -1);
  cl_allocmap_add(0x20000000, MiB, CL_MEMKIND_PINNED, 2, -1);
  cl_allocmap_add(0x30000000, MiB, CL_MEMKIND_REGISTERED, 0x08, -1);
  cl_allocmap_add(0x40000000, MiB, CL_MEMKIND_DEVICE, 0, 1);

  CHECK(cl_allocmap_device_reach(0x10000010, &s, &e));
  CHECK(s == 0x10000000 && e == 0x10000000 + MiB);
  CHECK(cl_allocmap_device_reach(0x20000000 + MiB - 1, &s, &e));
  CHECK(s == 0x20000000);
  CHECK(!cl_allocmap_device_reach(0x20000000 + MiB, &s, &e)); /* past it */
  CHECK(!cl_allocmap_device_reach(0x30000010, &s, &e));  /* read-only */
  CHECK(!cl_allocmap_device_reach(0x40000010, &s, &e));  /* device memory */
  CHECK(cl_allocmap_device(0x40000010) == 1);
  CHECK(cl_allocmap_device(0x40000000 + MiB) == -1);       /* past it */
  CHECK(cl_allocmap_device(0x20000010) == -1);             /* host memory */

  /* attached to the host: the host's; attached globally again: guarded */
  cl_allocmap_attach(0x10000000, 2);
  CHECK(!cl_allocmap_device_reach(0x10000010, &s, &e));
  cl_allocmap_attach(0x10000000, 4);
  CHECK(cl_allocmap_device_reach(0x10000010, &s, &e));

  /* a device alias stands for the host allocation, and is not host memory */
  cl_allocmap_alias(0x7000001000, 0x20001000); /* alias of host + 4 KiB */
  CHECK(cl_allocmap_device_reach(0x7000000000 + 8, &s, &e));
  CHECK(s == 0x20000000 && e == 0x20000000 + MiB);
  CHECK(cl_allocmap_kind(0x7000000000, 8) == CL_MEMKIND_UNKNOWN);
  CHECK(cl_allocmap_kind(0x20000000, 8) == CL_MEMKIND_PINNED);
  /* the same address: unified addressing, nothing added */
  cl_allocmap_alias(0x20000000, 0x20000000);
  /* freeing the host allocation takes its aliases along */
  cl_allocmap_remove(0x20000000);
  CHECK(!cl_allocmap_device_reach(0x7000000000 + 8, &s, &e));
  CHECK(!cl_allocmap_device_reach(0x20000010, &s, &e));
  /* removing an alias by its own address does nothing */
  cl_allocmap_add(0x20000000, MiB, CL_MEMKIND_PINNED, 0, -1);
  cl_allocmap_alias(0x7000000000, 0x20000000);
  cl_allocmap_remove(0x7000000000);
  CHECK(cl_allocmap_device_reach(0x7000000010, &s, &e));

  /* three adjacent mappings: a pointer anywhere is found, in its own */
  const uint64_t va = 0x900000000;
  for (int i = 0; i < 3; i++)
    cl_allocmap_add(va + i * 2 * MiB, 2 * MiB, CL_MEMKIND_MAPPED, 0, 0);
  CHECK(cl_allocmap_find(va + 2 * MiB + 5, &s, &e));
  CHECK(s == va + 2 * MiB && e == va + 4 * MiB);
  CHECK(cl_allocmap_kind(va + 4 * MiB, 64) == CL_MEMKIND_MAPPED);
  CHECK(!cl_allocmap_device_reach(va + 8, &s, &e)); /* device memory */
  /* an unmap of the first two ends both, not the third */
  cl_allocmap_remove_range(va, 4 * MiB);
  CHECK(!cl_allocmap_find(va + 8, &s, &e));
  CHECK(!cl_allocmap_find(va + 3 * MiB, &s, &e));
  CHECK(cl_allocmap_find(va + 5 * MiB, &s, &e) && s == va + 4 * MiB);
  /* nor anything but mappings after them */
  cl_allocmap_add(va + 6 * MiB, MiB, CL_MEMKIND_DEVICE, 0, 0);
  cl_allocmap_remove_range(va + 4 * MiB, 4 * MiB);
  CHECK(!cl_allocmap_find(va + 4 * MiB, &s, &e));
  CHECK(cl_allocmap_find(va + 6 * MiB, &s, &e));

  CHECK(concurrent_lookups() == 0);
  UNIT_DONE();
}
