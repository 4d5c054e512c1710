// library_user_stream.cu - the same library calls, but the setup runs on a
// non-blocking stream the program created and gave to the library (as with
// cudnnSetStream): the ordering is the program's to make, and it is
// missing, so this stays a stream-race error.
// needs: lib/cudnn_cltest
// rule: STREAM_ORDER
#include "races.h"
#include "cltest.h"

int main()
{
    cudaStream_t s = nonblocking_stream();
    if (cltest_create_on(s))
        return 1;
    if (cltest_run(0)) // expect: stream-race
        return 1;
    CHECK(cudaDeviceSynchronize());
    std::printf("library_user_stream: done\n");
    return 0;
}
