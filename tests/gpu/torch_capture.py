"""torch_capture.py - a PyTorch program with known CUDA work, for the GPU
suite (tests/gpu/run-gpu-suite.sh), which records it under libcudalens.so
and checks the recording against tests/gpu/torch.expect.

Phases, each closed by torch.cuda.synchronize() (cudaDeviceSynchronize),
so that the checks can count the calls of each phase exactly:
  1. set-up: tensors, a pinned buffer, a side stream, one warm-up add_ and
     matmul (cuBLAS handle and workspace), one of each copy
  2. N_ADD in-place a.add_(1.0): N_ADD elementwise kernels, nothing else
  3. N_MM torch.mm(x, y, out=z): N_MM cuBLAS GEMM kernels (launched by
     cuBLAS through the driver API)
  4. copies: H2D from pageable memory, H2D from pinned memory
     (non_blocking), D2H into pageable memory
  5. N_SIDE add_ on the side stream, then that stream's synchronize
Prints one line `torch_capture: NAME=VALUE ...` that the suite passes to
dbcheck, and a checksum (the same with and without the shim)."""
import sys

import torch

N_ADD = 50
N_MM = 4
N_SIDE = 7
DIM = 1024
COPY_ELEMS = 1 << 20  # floats: 4 MiB per copy


def main():
    if not torch.cuda.is_available():
        print("torch_capture: no CUDA device", file=sys.stderr)
        return 2
    dev = torch.device("cuda")
    torch.manual_seed(1)
    # phase 1: set-up
    a = torch.zeros(DIM, DIM, device=dev)
    x = torch.ones(DIM, DIM, device=dev)
    y = torch.ones(DIM, DIM, device=dev)
    z = torch.empty(DIM, DIM, device=dev)
    side = torch.cuda.Stream()
    b = torch.zeros(DIM, device=dev)
    pageable = torch.arange(COPY_ELEMS, dtype=torch.float32)
    pinned = torch.arange(COPY_ELEMS, dtype=torch.float32).pin_memory()
    dst = torch.empty(COPY_ELEMS, device=dev)
    a.add_(1.0)
    torch.mm(x, y, out=z)
    dst.copy_(pageable)
    dst.copy_(pinned, non_blocking=True)
    back = dst.cpu()
    with torch.cuda.stream(side):
        b.add_(2.0)
    side.synchronize()
    torch.cuda.synchronize()
    # phase 2: elementwise kernels on the default stream
    for _ in range(N_ADD):
        a.add_(1.0)
    torch.cuda.synchronize()
    # phase 3: cuBLAS
    for _ in range(N_MM):
        torch.mm(x, y, out=z)
    torch.cuda.synchronize()
    # phase 4: copies
    dst.copy_(pageable)
    dst.copy_(pinned, non_blocking=True)
    back = dst.cpu()
    torch.cuda.synchronize()
    # phase 5: the side stream
    with torch.cuda.stream(side):
        for _ in range(N_SIDE):
            b.add_(2.0)
    side.synchronize()
    torch.cuda.synchronize()
    print("torch_capture: N_ADD=%d N_MM=%d N_SIDE=%d COPY_BYTES=%d"
          % (N_ADD, N_MM, N_SIDE, COPY_ELEMS * 4))
    print("checksum: a=%g z=%g back=%g b=%g" % (a[0, 0].item(), z[0, 0].item(),
                                                 back[-1].item(), b[0].item()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
