// library_stream.cu - a race inside a library: the library zeroes its work
// buffer on a non-blocking stream it created for itself and later uses the
// buffer on the program's legacy default stream, with nothing between
// (measured on the H100: cuDNN's handle setup and its batch-norm kernels in
// PyTorch's resnet18).  Unordered by CUDA's stream rules, but not the
// program's code or stream: a library-race warning, not an error.
// needs: lib/cudnn_cltest
// rule: STREAM_ORDER
#include "races.h"
#include "cltest.h"

int main()
{
    if (cltest_create())
        return 1;
    if (cltest_run(0)) // expect: library-race
        return 1;
    CHECK(cudaDeviceSynchronize());
    std::printf("library_stream: done\n");
    return 0;
}
