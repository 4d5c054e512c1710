/* devices.c - describes each device a context is created on (name, UUID, PCI
 * bus id, compute capability, memory), once per device, through the driver
 * API the program already loaded. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#include "devices.h"
#include "driver.h"
#include "ring.h"
#include "shim.h"

void cl_device_describe(int ordinal)
{
  static _Atomic uint64_t described;
  if (ordinal < 0 || ordinal >= 64)
    return;
  uint64_t bit = 1ULL << ordinal;
  if (atomic_fetch_or(&described, bit) & bit)
    return;
  CUresult (*get)(CUdevice *, int) = cl_driver_sym("cuDeviceGet");
  CUresult (*name)(char *, int, CUdevice) = cl_driver_sym("cuDeviceGetName");
  CUresult (*uuid)(CUuuid *, CUdevice) = cl_driver_sym("cuDeviceGetUuid_v2");
  CUresult (*attr)(int *, CUdevice_attribute, CUdevice) =
      cl_driver_sym("cuDeviceGetAttribute");
  CUresult (*mem)(size_t *, CUdevice) = cl_driver_sym("cuDeviceTotalMem_v2");
  CUresult (*pci)(char *, int, CUdevice) = cl_driver_sym("cuDeviceGetPCIBusId");
  struct cl_record *r = cl_ring_reserve(CL_REC_DEVICE);
  if (!r)
    return;
  r->type = CL_REC_DEVICE;
  struct cl_device_rec *d = &r->u.dev;
  memset(d, 0, sizeof *d);
  d->ordinal = ordinal;
  d->cc_major = d->cc_minor = -1;
  CUdevice dev;
  if (get && get(&dev, ordinal) == CUDA_SUCCESS) {
    if (name)
      name(d->name, (int)sizeof d->name, dev);
    CUuuid u;
    if (uuid && uuid(&u, dev) == CUDA_SUCCESS) {
      const unsigned char *b = (const unsigned char *)u.bytes;
      snprintf(d->uuid, sizeof d->uuid,
               "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
               "%02x%02x%02x%02x%02x%02x",
               b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
               b[10], b[11], b[12], b[13], b[14], b[15]);
    }
    if (attr) {
      attr(&d->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
      attr(&d->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    }
    size_t total;
    if (mem && mem(&total, dev) == CUDA_SUCCESS)
      d->total_mem = total;
    if (pci)
      pci(d->pci_bus_id, (int)sizeof d->pci_bus_id, dev);
  }
  cl_ring_commit();
}
