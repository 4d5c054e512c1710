// cltest.h - the interface of tests/semantics/lib/cudnn_cltest.cu, a
// stand-in for a closed NVIDIA library (linked as libcudnn_cltest.so).
#include <cuda_runtime.h>
extern "C" int cltest_create(void);
extern "C" int cltest_create_on(cudaStream_t s);
extern "C" int cltest_run(cudaStream_t s);
