"""torch_train.py - benchmark of real PyTorch training: the training loops
of tests/gpu/torch_models.py (resnet18, resnet18-loader, transformer, ...),
WARMUP (5) steps untimed (cuDNN autotuning, allocator growth, kernel
loading), then STEPS (default 40) timed between two
torch.cuda.synchronize() calls.  Prints `elapsed SECONDS s (...)`.
With BLOCK, also the GPU time of each block of BLOCK steps (CUDA events
recorded between steps, no added synchronization): `blocks MS MS ...`,
to see how much a run's time varies inside one process.  With
CUDALENS_BENCH_PHASES=1 under libcudalens.so, the blocks run in the shim's
phases instead (off, floor, on: bench/phases.py), each printed as
`block PHASE SECONDS`; bench/phases.sh pairs them.
bench/run.sh --train runs it natively, under the CUPTI floor, under
libcudalens.so and with TORCH_CUDA_SANITIZER=1.

    python3 torch_train.py MODEL [STEPS [BLOCK]]
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "gpu"))
import torch  # noqa: E402
import torch_models  # noqa: E402
from phases import Blocks  # noqa: E402

WARMUP = 5


def main():
    if len(sys.argv) not in (2, 3, 4) or sys.argv[1] not in torch_models.MODELS:
        sys.exit("usage: torch_train.py {%s} [STEPS [BLOCK]]"
                 % ",".join(torch_models.MODELS))
    if not torch.cuda.is_available():
        sys.exit("torch_train: no CUDA device")
    model = sys.argv[1]
    steps = int(sys.argv[2]) if len(sys.argv) >= 3 else 40
    block = int(sys.argv[3]) if len(sys.argv) == 4 else 0
    torch.manual_seed(0)
    start = []
    marks = []
    phases = Blocks(torch.cuda.synchronize)
    if phases.active and not block:
        sys.exit("torch_train: CUDALENS_BENCH_PHASES=1 needs BLOCK")

    def on_step(i):
        if i == WARMUP - 1:
            torch.cuda.synchronize()
            start.append(time.perf_counter())
        if not block or i < WARMUP - 1 or (i - WARMUP + 1) % block:
            return
        if phases.active:
            phases.boundary(last=i == WARMUP + steps - 1)
        else:
            marks.append(torch.cuda.Event(enable_timing=True))
            marks[-1].record()

    torch_models.on_step = on_step
    loss = torch_models.MODELS[model](WARMUP + steps)
    torch.cuda.synchronize()
    if not start:
        sys.exit(f"torch_train: {model} does not report its steps")
    dt = time.perf_counter() - start[0]
    if loss != loss:
        sys.exit("torch_train: loss is NaN")
    print(f"elapsed {dt:.6f} s ({steps} steps after {WARMUP} warm-up, "
          f"{dt / steps * 1e3:.2f} ms/step)")
    if len(marks) > 1:
        print("blocks " + " ".join("%.3f" % a.elapsed_time(b)
                                   for a, b in zip(marks, marks[1:])))


if __name__ == "__main__":
    main()
