#!/bin/sh
# launch_cost.sh - the instructions libcudalens.so costs per call on the
# application thread, without a GPU (issue 25): bench/launch_mix.cu built
# with nvcc against the simulated runtime (tests/sim, a test double), run
# under callgrind with N1 and N2 calls of each mode; the difference of the
# two runs divided by N2 - N1 is one steady-state call.  Prints per call,
# for each mode: the application thread's instructions without the shim
# (the program and the sim), with it, the difference (the shim's cost on
# that thread, with the C library and loader functions it calls), those
# under the shim's CUPTI callback (on_callback, inclusive), and those of
# the writer thread; with
# FUNCS=N (default 12) the N functions of the application thread with the
# most inclusive instructions per call under the shim.  Instruction counts
# are not times: see bench/README.md ("Per-launch instructions").
#   bench/launch_cost.sh BUILD_DIR [MODE...]   (empty args event query copy)
#   SHIM=/other/libcudalens.so bench/launch_cost.sh BUILD_DIR   (compare)
#   N1=2000 N2=20000 (defaults)
#   FLOOR=cupti_floor.so: also under bench/cupti_floor.c built against the
#   sim (cc -shared -fPIC -O2 -I$CUDA/include -Iinclude bench/cupti_floor.c
#   -o cupti_floor.so -Ltests/sim/lib -l:libcupti.so.13), and the shim's
#   instructions above that floor
set -eu
build=$(cd "${1:?usage: launch_cost.sh BUILD_DIR [MODE...]}" && pwd)
shift
[ $# -gt 0 ] || set -- empty args event query copy
here=$(cd "$(dirname "$0")" && pwd)
shim=${SHIM:-$build/.libs/libcudalens.so}
sim=$build/tests/sim/lib
n1=${N1:-2000} n2=${N2:-20000} funcs=${FUNCS:-12}
[ -e "$sim/libcudart.so.13" ] || { echo "no sim in $build (make sim)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${NVCC:-nvcc} -O2 -arch=sm_90 -cudart shared "$here/launch_mix.cu" -o "$tmp/launch_mix"
echo "per call, steady state ($n1 vs $n2 calls), shim $shim"
for mode in "$@"; do
  for n in $n1 $n2; do
    env LD_LIBRARY_PATH="$sim" valgrind --tool=callgrind \
      --callgrind-out-file="$tmp/native.$mode.$n" "$tmp/launch_mix" "$mode" "$n" \
      >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    if [ -n "${FLOOR:-}" ]; then
      env LD_LIBRARY_PATH="$sim" LD_PRELOAD="$FLOOR" valgrind --tool=callgrind \
        --callgrind-out-file="$tmp/floor.$mode.$n" "$tmp/launch_mix" "$mode" "$n" \
        >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    fi
    env LD_LIBRARY_PATH="$sim" LD_PRELOAD="$shim" CUDALENS_OUTPUT="$tmp/m-%p.db" \
      valgrind --tool=callgrind --separate-threads=yes \
      --callgrind-out-file="$tmp/cg.$mode.$n" "$tmp/launch_mix" "$mode" "$n" \
      >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    rm -f "$tmp"/m-*.db
    # thread 1 is the application's; the other thread in the shim is the writer
    for f in "$tmp/cg.$mode.$n"-*; do
      callgrind_annotate --inclusive=yes --threshold=100 "$f" >"$f.inc" 2>/dev/null
    done
  done
  python3 - "$mode" "$((n2 - n1))" "$funcs" "$tmp/cg.$mode.$n1" "$tmp/cg.$mode.$n2" \
    "$tmp/native.$mode.$n1" "$tmp/native.$mode.$n2" \
    "$tmp/floor.$mode.$n1" "$tmp/floor.$mode.$n2" <<'PY'
import glob, re, sys
mode, dn, funcs, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
def summary(f):
    for line in open(f):
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
native = (summary(sys.argv[7]) - summary(sys.argv[6])) / dn
try:
    floor = (summary(sys.argv[9]) - summary(sys.argv[8])) / dn
except OSError:
    floor = None
def load(f):
    tot, fn = 0, {}
    for line in open(f):
        m = re.match(r"\s*([\d,]+) (\(\s*[\d.]+%\)\s+)?(.*)$", line)
        if not m or "file:function" in line:
            continue
        v = int(m.group(1).replace(",", ""))
        if m.group(3).startswith("PROGRAM TOTALS"):
            tot = v
        else:
            fn[m.group(3).strip()] = v
    return tot, fn
def threads(base):
    return sorted(glob.glob(base + "-*.inc"))
ta, tb = threads(a), threads(b)
(app_a, fa), (app_b, fb) = load(ta[0]), load(tb[0])
def per(x, y): return (y - x) / dn
cb = [k for k in fb if k.endswith("on_callback [" + k.split("[")[-1]) and "capture.c:on_callback" in k]
cbv = per(fa.get(cb[0], 0), fb[cb[0]]) if cb else 0
wr = sum(load(f)[0] for f in tb[1:]) - sum(load(f)[0] for f in ta[1:])
app = per(app_a, app_b)
print("%-6s app thread: native %5.0f, shim %5.0f, difference %5.0f; "
      "under the callback %5.0f; writer thread %6.0f" %
      (mode, native, app, app - native, cbv, wr / dn))
if floor is not None:
    print("%-6s   CUPTI floor %5.0f (%5.0f above native); the shim above the floor %5.0f" %
          (mode, floor, floor - native, app - floor))
rows = [(per(fa.get(k, 0), v), k) for k, v in fb.items()
        if "libcudalens" in k or "ld-linux" in k or "libc.so" in k]
rows = [r for r in rows if r[0] > 0 and "(below main)" not in r[1] and
        "libc_start" not in r[1] and "???:0x" not in r[1]]
for v, k in sorted(rows, reverse=True)[:funcs]:
    k = re.sub(r"^.*?([^/]+:)", r"\1", k.split(" [")[0]) + (" [" + k.split(" [")[-1].split("/")[-1] if " [" in k else "")
    print("    %8.0f  %s" % (v, k))
PY
done
