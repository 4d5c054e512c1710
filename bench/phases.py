"""phases.py - the benchmark's side of in-process pairing (issue 25;
shim/benchphase.c).  Under libcudalens.so with CUDALENS_BENCH_PHASES=1, a
loop calls Blocks.boundary() between blocks of its steps: it synchronizes,
prints the block just ended as `block PHASE SECONDS` (0 off, 1 floor,
2 on), and lets the shim switch to the next phase of its rotation.
With CUDALENS_BENCH_PHASES=native (no shim: bench/phases.sh NATIVE=1)
the blocks are timed the same way and printed as phase 3, for a native
process's blocks to set beside the off phase's.  Without the variable,
Blocks.active is False and the loop runs as before.  bench/phases.sh runs a
benchmark so and reads the lines."""
import ctypes
import os
import sys
import time


class Blocks:
    def __init__(self, sync):
        self.sync = sync
        self.fn = None
        self.phase = -1
        self.t0 = 0.0
        self.native = os.environ.get("CUDALENS_BENCH_PHASES") == "native"
        if os.environ.get("CUDALENS_BENCH_PHASES") != "1":
            return
        try:
            fn = ctypes.CDLL(None).cudalens_bench_phase
        except AttributeError:
            sys.exit("phases: CUDALENS_BENCH_PHASES=1 without libcudalens.so")
        fn.argtypes = [ctypes.c_int]
        fn.restype = ctypes.c_int
        self.fn = fn

    @property
    def active(self):
        return self.fn is not None or self.native

    def boundary(self, last=False):
        self.sync()
        t = time.perf_counter()
        if self.phase >= 0:
            print("block %d %.6f" % (self.phase, t - self.t0), flush=True)
        if self.native:
            self.phase = 3
        else:
            self.phase = self.fn(2 if last else -1)
        if self.phase < 0:
            sys.exit("phases: the shim did not switch (not recording?)")
        self.t0 = time.perf_counter()
