#!/usr/bin/env python3
"""real_stacks.py - point a bench/gen_recording recording's native stacks
at real, large shared libraries (a PyTorch installation's libtorch_cuda.so,
libtorch_cpu.so, libcudnn*, libcublasLt, the Python interpreter, libc), so
that cudalens-report symbolizes frames the way it does on a real PyTorch
recording.

    bench/real_stacks.py DB SITE_PACKAGES [PYTHON]

rewrites DB in place: its modules table gets the libraries found under
SITE_PACKAGES (torch/lib, nvidia/*/lib), PYTHON (default: this
interpreter, resolved; its libpython when it has one) and the system libc, with their build ids as the
shim records them (hex of the NT_GNU_BUILD_ID note) and made-up load
addresses; every stack becomes 20 to 32 frames, innermost first: cudart,
sometimes cuBLASLt or cuDNN, c10_cuda, libtorch_cuda, libtorch_cpu, the
generator's own frame where the stack had one (the user's code),
libtorch_python, the interpreter, libc.  Frames are return addresses inside
real functions (nm --defined-only: .symtab, else .dynsym), each library's functions drawn from
a pool of 300 so that stacks share frames as a real run's do.  The Python
stacks are left as the generator wrote them.  Needs binutils (nm,
readelf)."""
import glob
import os
import random
import re
import sqlite3
import subprocess
import sys


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True,
                         text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else None


def load_span(path):
    out = subprocess.run(["readelf", "-lW", path], capture_output=True,
                         text=True).stdout
    lo, hi = None, 0
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            vaddr, memsz = int(f[2], 16), int(f[5], 16)
            lo = vaddr if lo is None else min(lo, vaddr)
            hi = max(hi, vaddr + memsz)
    return lo or 0, hi


def functions(path):
    """functions of the symbol table (.symtab), else of .dynsym"""
    out = subprocess.run(["nm", "--defined-only", "-S", path],
                         capture_output=True, text=True).stdout
    if not out.strip():
        out = subprocess.run(["nm", "-D", "--defined-only", "-S", path],
                             capture_output=True, text=True).stdout
    fns = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "TtWw":
            value, size = int(f[0], 16), int(f[1], 16)
            if size > 8:
                fns.append((value, size))
    return sorted(set(fns))


def libpython(python):
    """the interpreter's libpython, when it is linked with one"""
    out = subprocess.run(["ldd", python], capture_output=True,
                         text=True).stdout
    m = re.search(r"libpython\S* => (\S+)", out)
    return os.path.realpath(m.group(1)) if m else None


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: real_stacks.py DB SITE_PACKAGES [PYTHON]")
    db, sp = sys.argv[1], sys.argv[2]
    python = os.path.realpath(sys.argv[3] if len(sys.argv) > 3
                              else sys.executable)
    rnd = random.Random(11)

    def one(pattern):
        hits = sorted(glob.glob(os.path.join(sp, pattern)))
        return hits[0] if hits else None

    groups = [  # (name, paths, frames min, max, probability)
        ("cudart", [one("nvidia/cu*/lib/libcudart.so*") or
                    one("nvidia/cuda_runtime/lib/libcudart.so*")], 1, 2, 1),
        ("vendor", [p for p in [one("nvidia/cu*/lib/libcublasLt.so*") or
                                one("nvidia/cublas/lib/libcublasLt.so*"),
                                one("nvidia/cudnn/lib/libcudnn_engines_"
                                    "precompiled.so*"),
                                one("nvidia/cudnn/lib/libcudnn_graph.so*"),
                                one("nvidia/cudnn/lib/libcudnn.so*")] if p],
         1, 3, 0.5),
        ("c10_cuda", [one("torch/lib/libc10_cuda.so")], 1, 1, 1),
        ("torch_cuda", [one("torch/lib/libtorch_cuda.so")], 4, 8, 1),
        ("torch_cpu", [one("torch/lib/libtorch_cpu.so"),
                       one("torch/lib/libc10.so")], 4, 8, 1),
        ("user", [], 0, 0, 1),
        ("torch_python", [one("torch/lib/libtorch_python.so")], 2, 3, 1),
        ("python", [libpython(python) or python], 6, 10, 1),
        ("libc", ["/lib/x86_64-linux-gnu/libc.so.6"], 1, 2, 1),
    ]
    con = sqlite3.connect(db)
    exe = con.execute("SELECT id, start, end FROM modules WHERE path NOT LIKE"
                      " '/opt/venv/%' AND path NOT LIKE '/usr/%'").fetchone()
    con.execute("DELETE FROM modules WHERE id <> ?", (exe[0],))
    mods = {}  # path -> (start, functions pool)
    next_start, next_id = 0x7f0000000000, 100
    for name, paths, *_ in groups:
        for p in paths:
            if not p or p in mods:
                continue
            lo, hi = load_span(p)
            fns = functions(p)
            if not fns:
                continue
            bias = next_start - (lo & ~0xfff)
            mods[p] = (bias, rnd.sample(fns, min(300, len(fns))))
            con.execute("INSERT INTO modules VALUES(?,?,?,?,?,?)",
                        (next_id, p, bias + lo, bias + hi, bias,
                         build_id(p)))
            print(f"{os.path.getsize(p) >> 20:6d} MB {len(fns):7d} functions"
                  f"  {p}", file=sys.stderr)
            next_id += 1
            next_start = (bias + hi + 0x200000) & ~0xfffff
    stacks = con.execute("SELECT id, frames FROM stacks").fetchall()
    total = 0
    for sid, blob in stacks:
        old = [int.from_bytes(blob[i:i + 8], "little")
               for i in range(0, len(blob), 8)]
        user = [a for a in old if exe[1] <= a < exe[2]]
        frames = []
        for name, paths, lo, hi, prob in groups:
            if name == "user":
                frames += user
                continue
            paths = [p for p in paths if p in mods]
            if not paths or rnd.random() >= prob:
                continue
            for _ in range(rnd.randint(lo, hi)):
                bias, pool = mods[rnd.choice(paths)]
                value, size = rnd.choice(pool)
                frames.append(bias + value + 1 + rnd.randrange(size - 1))
        total += len(frames)
        con.execute("UPDATE stacks SET frames=? WHERE id=?",
                    (b"".join(a.to_bytes(8, "little") for a in frames), sid))
    con.commit()
    print(f"{len(stacks)} stacks, {total} frames", file=sys.stderr)


main()
