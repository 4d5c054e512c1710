#!/usr/bin/env python3
# torch_host_storm.py - issue 9 on the GPU: the host-access check must never
# kill the program.  Runs PROCS processes at once under the shim (and one
# without it, for the expected output), each ITERS iterations of PyTorch's
#     x = t.to("cpu", non_blocking=True); x.mean()
# on a 4 MiB tensor, with THREADS more Python threads reading x at the same
# time (torch releases the GIL: the reads run in parallel, like the OpenMP
# threads of x.mean() itself) and one thread synchronizing the stream
# meanwhile, optionally with CPU burners for load (the crash was seen "under
# load", 1 run in 8).  Values read before the synchronization are racy by
# design and only computed; after it, each iteration checks x.mean() against
# the GPU's value, and the digest printed at the end must equal the native
# run's.  Writes one line per process to SUMMARY (exit code, signal, output
# check, host accesses recorded) and a TOTAL line; exits 0 only if every
# process exited 0 with the native output.
#
#   python3 tests/gpu/torch_host_storm.py SUMMARY [--shim .libs/libcudalens.so]
#       [--procs 8] [--iters 200] [--threads 4] [--burn 8] [--outdir DIR]
#
# e.g. on the H100, from a build directory:
#   python3 tests/gpu/torch_host_storm.py /tmp/storm-summary.txt --burn 8
import argparse
import glob
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def worker(iters, threads):
    import threading

    import torch

    torch.manual_seed(0)
    n = 1 << 20  # 4 MiB of floats
    t = torch.arange(n, device="cuda", dtype=torch.float32).remainder_(13)
    expect = float(t.double().mean())
    box = {}
    start = threading.Barrier(threads + 2)
    done = threading.Barrier(threads + 2)
    errors = []

    def reader(i):
        try:
            for _ in range(iters):
                start.wait()
                x = box["x"]
                # all readers start near the same pages, then the whole tensor
                float(x.chunk(threads)[i].sum())
                float(x.mean())
                done.wait()
        except Exception as e:  # a broken barrier ends everything
            errors.append(repr(e))
            start.abort()
            done.abort()

    def syncer():
        try:
            for it in range(iters):
                start.wait()
                for _ in range(it % 4):
                    time.sleep(0)
                torch.cuda.current_stream().synchronize()
                done.wait()
        except Exception as e:
            errors.append(repr(e))
            start.abort()
            done.abort()

    ts = [threading.Thread(target=reader, args=(i,)) for i in range(threads)]
    ts.append(threading.Thread(target=syncer))
    for th in ts:
        th.start()
    bad = 0
    digest = 0.0
    for it in range(iters):
        x = t.to("cpu", non_blocking=True)  # pinned, copy in flight
        box["x"] = x
        start.wait()
        float(x.mean())  # the pattern of the issue: before any sync
        done.wait()
        torch.cuda.synchronize()
        m = float(x.double().mean())
        if m != expect:
            bad += 1
        digest += m
    for th in ts:
        th.join()
    if errors:
        print("errors:", errors[:3], file=sys.stderr)
        return 1
    print("iterations %d threads %d mismatches %d digest %.6f" % (iters, threads, bad, digest))
    return 1 if bad else 0


def burn(seconds):
    end = time.time() + seconds
    x = 0
    while time.time() < end:
        x += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("summary")
    ap.add_argument("--shim", default=os.path.join(TOP, ".libs", "libcudalens.so"))
    ap.add_argument("--procs", type=int, default=8)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--burn", type=int, default=8, help="CPU burner processes")
    ap.add_argument("--outdir", default=None)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        sys.exit(worker(a.iters, a.threads))

    shim = os.path.abspath(a.shim)
    if not os.path.exists(shim):
        sys.exit("no shim at %s (--shim)" % shim)
    out = a.outdir or tempfile.mkdtemp(prefix="cudalens-storm.")
    os.makedirs(out, exist_ok=True)
    me = [sys.executable, os.path.abspath(__file__), a.summary, "--worker",
          "--iters", str(a.iters), "--threads", str(a.threads)]
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    native = subprocess.run(me, env=env, capture_output=True, text=True)
    if native.returncode != 0:
        sys.exit("native run failed (%d): %s" % (native.returncode, native.stderr[-2000:]))

    burners = [subprocess.Popen([sys.executable, "-c",
                                 "import sys; sys.path.insert(0, %r);"
                                 "import torch_host_storm as s; s.burn(3600)" %
                                 os.path.dirname(os.path.abspath(__file__))])
               for _ in range(a.burn)]
    procs = []
    try:
        for i in range(a.procs):
            e = dict(env, LD_PRELOAD=shim,
                     CUDALENS_OUTPUT=os.path.join(out, "storm-%d-%%p.db" % i))
            procs.append(subprocess.Popen(me, env=e, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
        results = [p.communicate() + (p.returncode, p.pid) for p in procs]
    finally:
        for b in burners:
            b.kill()
            b.wait()

    lines = []
    ok = crashed = 0
    for i, (so, se, rc, pid) in enumerate(results):
        sig = signal.Signals(-rc).name if rc < 0 else "-"
        same = so == native.stdout
        dbs = glob.glob(os.path.join(out, "storm-%d-*.db" % i))
        acc = 0
        for db in dbs:
            try:
                c = sqlite3.connect(db)
                acc += c.execute("SELECT count(*) FROM host_accesses").fetchone()[0]
                c.close()
            except sqlite3.Error:
                pass
        good = rc == 0 and same
        ok += good
        crashed += rc < 0
        lines.append("proc %d pid %d exit %d signal %s output %s host_accesses %d%s" %
                     (i, pid, rc, sig, "same" if same else "DIFFERS", acc,
                      "" if good else " stderr: " + se.strip().replace("\n", " | ")[-400:]))
    lines.append("TOTAL procs %d ok %d failed %d crashed %d iters %d threads %d burn %d "
                 "native: %s outdir %s" % (a.procs, ok, a.procs - ok, crashed, a.iters,
                                           a.threads, a.burn, native.stdout.strip(), out))
    with open(a.summary, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    sys.exit(0 if ok == a.procs else 1)


if __name__ == "__main__":
    main()
