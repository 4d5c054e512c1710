"""torch_small_ops.py - benchmark of per-op overhead in PyTorch: N (default
20,000) in-place a.add_(1.0) on a 1024x1024 CUDA tensor; prints the elapsed
seconds and microseconds per op.  bench/run.sh --torch runs it natively, under
libcudalens.so and with TORCH_CUDA_SANITIZER=1.  With CUDALENS_BENCH_PHASES=1
under libcudalens.so the ops run in blocks of BLOCK (default 2,000) in the
shim's phases (bench/phases.py; bench/phases.sh pairs them).

    python3 torch_small_ops.py [N [BLOCK]]"""
import sys
import time

import torch
from phases import Blocks


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    block = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    if not torch.cuda.is_available():
        sys.exit("torch_small_ops: no CUDA device")
    a = torch.zeros(1024, 1024, device="cuda")
    for _ in range(100):  # warm up: context, allocator, kernel loading
        a.add_(1.0)
    torch.cuda.synchronize()
    phases = Blocks(torch.cuda.synchronize)
    t0 = time.perf_counter()
    for i in range(n):
        if phases.active and i % block == 0:
            phases.boundary()
        a.add_(1.0)
    if phases.active:
        phases.boundary(last=True)
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    want = 100.0 + n
    got = a[0, 0].item()
    if got != want:
        sys.exit(f"torch_small_ops: wrong result {got}, want {want}")
    print(f"elapsed {dt:.6f} s ({n} ops, {dt / n * 1e6:.2f} us/op)")


if __name__ == "__main__":
    main()
