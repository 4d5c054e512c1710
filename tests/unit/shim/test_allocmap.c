/* test_allocmap.c - unit test of what the host check reaches through a
 * kernel argument (cl_allocmap_device_reach): managed memory unless
 * attached to the host, pinned and registered memory unless registered
 * read-only, device aliases of pinned memory (cudaHostGetDevicePointer on a
 * system without unified addressing: not something the simulated runtime
 * produces), and never device memory; mappings of one reserved range
 * (cuMemMap), adjacent ranges that an unmap ends together; the device
 * whose memory an address is (cl_allocmap_device: a copy's devices). */
#include "shim/kparams.h"
#include "shim/shim.h"
#include "../unit.h"

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
  UNIT_DONE();
}
