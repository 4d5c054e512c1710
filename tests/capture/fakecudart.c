/* fakecudart.c - stands in for a pip wheel's CUDA runtime in
 * tests/capture/cuptifind.test: a library with no dependencies that the test
 * copies to site-packages/nvidia/.../libcudart.so.N, so that loading it makes
 * the shim look for the matching CUPTI next to it.  It makes no CUDA call. */
int cl_fake_cudart(void) { return 0; }
