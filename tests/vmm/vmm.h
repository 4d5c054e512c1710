// vmm.h - helpers of the memory-mapping and access-rights catalogue
// (tests/vmm): device memory mapped the way PyTorch's expandable segments
// and NCCL map it (cuMemAddressReserve, cuMemCreate, cuMemMap,
// cuMemSetAccess), with the kernels of tests/races.  The programs run on a
// real GPU (two for the peer programs) and under the simulated CUDA of
// tests/sim.
#pragma once
#include <cuda.h>
#include "races.h"

#define CU(call)                                                                 \
    do {                                                                         \
        CUresult r_ = (call);                                                    \
        if (r_ != CUDA_SUCCESS) {                                                \
            const char *s_ = "?";                                                \
            cuGetErrorName(r_, &s_);                                             \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,   \
                         #call, s_);                                             \
            std::exit(1);                                                        \
        }                                                                        \
    } while (0)

static inline CUmemAllocationProp device_prop(int device)
{
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    return prop;
}

static inline size_t granularity(int device)
{
    CUmemAllocationProp prop = device_prop(device);
    size_t g = 0;
    CU(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    return g;
}

// reserve BYTES of address space
static inline CUdeviceptr reserve(size_t bytes)
{
    CUdeviceptr va = 0;
    CU(cuMemAddressReserve(&va, bytes, 0, 0, 0));
    return va;
}

// map BYTES of new physical memory of DEVICE at VA (the handle released
// at once: the mapping keeps the memory)
static inline void map_at(CUdeviceptr va, size_t bytes, int device)
{
    CUmemAllocationProp prop = device_prop(device);
    CUmemGenericAllocationHandle h;
    CU(cuMemCreate(&h, bytes, &prop, 0));
    CU(cuMemMap(va, bytes, 0, h, 0));
    CU(cuMemRelease(h));
}

// let DEVICE read and write [VA, VA + BYTES)
static inline void grant(CUdeviceptr va, size_t bytes, int device)
{
    CUmemAccessDesc d = {};
    d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = device;
    d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU(cuMemSetAccess(va, bytes, &d, 1));
}

static inline int device_count()
{
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    return n;
}
