// double/fake_nccl_kernels.cu - TEST DOUBLE's device code (fake_nccl.c, never
// shipped): the kernel the double launches for each collective, the way NCCL
// launches its own (cuLaunchKernelEx with its arguments in one buffer:
// extra, shorter than the structure it starts), compiled on its own into a
// fatbin the double embeds.  Its arguments are the double's internal state,
// as NCCL's are: the communicator's device memory and a pinned work slot
// the host fills.
struct fake_nccl_args {
    unsigned long long *state; // device memory of the communicator
    unsigned long long *work;  // pinned host memory: this launch's work
    unsigned char unused[4080]; // declared 4 KiB, as NCCL's; not passed
};

extern "C" __global__ void fake_nccl_kernel(fake_nccl_args a)
{
    a.state[0] += a.work[0];
}
