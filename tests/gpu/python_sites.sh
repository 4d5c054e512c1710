#!/bin/sh
# python_sites.sh BUILD_DIR - GPU check of Python call sites (needs a GPU,
# python3 with torch; not part of make check).  Runs a small PyTorch
# program under BUILD_DIR/.libs/libcudalens.so and checks that the
# recording names the Python lines of `x.to("cuda", non_blocking=True)`
# (a cudaMemcpyAsync) and of the matmul (kernel launches, cuBLAS's through
# the driver API) in calls.pystack, innermost frame first; prints how the
# report's resolver (BUILD_DIR/tests/python/pysites, built by make check)
# places those calls, and the cost of recording Python stacks
# (CUDALENS_PYTHON=1 vs 0 on a loop of small ops).
# PYTHON=python3.12 picks the interpreter.  Exit 0 when all checks pass.
set -u
B=${1:?usage: python_sites.sh BUILD_DIR}
B=$(cd "$B" && pwd)
SHIM=$B/.libs/libcudalens.so
PY=${PYTHON:-python3}
PY=$("$PY" -c 'import sys; print(sys.executable)') || exit 2
[ -e "$SHIM" ] || { echo "no $SHIM (build first)"; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/cl-pysites.XXXXXX")
echo "work dir: $T, python: $PY"
# (the resolver's libdw and libelf, where a kit brought them: as nccl.sh)
LD_LIBRARY_PATH=$B/lib-extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

cat >"$T/train.py" <<'PYEOF'
import sys, time
import torch


def step(x_cpu, w):
    x = x_cpu.to("cuda", non_blocking=True)  # at:to
    y = x @ w  # at:matmul
    return y


def small_ops(n):
    a = torch.ones(1024, 1024, device="cuda")
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        a.add_(1.0)  # at:add
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6


w = torch.randn(512, 512, device="cuda")
x_cpu = torch.randn(512, 512).pin_memory()
for _ in range(3):
    y = step(x_cpu, w)
torch.cuda.synchronize()
n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
print("small op: %.2f us/op" % small_ops(n))
PYEOF

run() { # run NAME [VAR=VALUE...]: train.py under the shim -> $T/NAME-*.db
  name=$1
  shift
  env "$@" LD_PRELOAD="$SHIM" CUDALENS_OUTPUT="$T/$name-%p.db" \
    "$PY" "$T/train.py" >"$T/$name.out" 2>"$T/$name.err"
  rc=$?
  cat "$T/$name.out"
  grep -i "cudalens" "$T/$name.err"
  [ $rc -eq 0 ] || { echo "FAIL: train.py exited $rc"; cat "$T/$name.err"; exit 1; }
  DB=$(ls -t "$T/$name"-*.db | head -n 1)
}

echo "== unrecorded"
"$PY" "$T/train.py" || { echo "FAIL: train.py does not run without the shim"; exit 1; }
echo "== CUDALENS_PYTHON=1"
run on CUDALENS_DEBUGLEVEL=2
DB_ON=$DB
echo "== CUDALENS_PYTHON=0"
run off CUDALENS_PYTHON=0

"$PY" - "$DB_ON" "$T/train.py" <<'PYEOF'
import sqlite3, sys
db, script = sys.argv[1:3]
con = sqlite3.connect(db)
mark = {}
for i, text in enumerate(open(script), 1):
    if "# at:" in text:
        mark[text.split("# at:")[1].strip()] = i
total, withpy = con.execute("SELECT count(*), count(pystack) FROM calls").fetchone()
print("calls: %d, with a Python stack: %d" % (total, withpy))
rows = con.execute(
    "SELECT c.seq, a.name, s.value FROM calls c JOIN api a ON a.id = c.api"
    " LEFT JOIN strings s ON s.id = c.pystack").fetchall()
print("most frequent innermost Python frames:")
for first, api, n in con.execute(
        "SELECT substr(s.value, 1, instr(s.value || char(10), char(10)) - 1) AS f,"
        " group_concat(DISTINCT a.name), count(*) AS n FROM calls c"
        " JOIN api a ON a.id = c.api JOIN strings s ON s.id = c.pystack"
        " GROUP BY f ORDER BY n DESC LIMIT 12"):
    print("  %6d  %s  [%s]" % (n, first, api[:100]))
bad = 0
for name, func, apis in (("to", "step", ("cudaMemcpyAsync",)),
                         ("matmul", "step", ("cuLaunchKernel", "cudaLaunchKernel")),
                         ("add", "small_ops", ("cudaLaunchKernel", "cuLaunchKernel"))):
    want = "%s:%d:%s" % (script, mark[name], func)
    hits = [r for r in rows if r[2] and r[2].split("\n")[0] == want]
    kinds = sorted({r[1] for r in hits})
    ok = any(k.startswith(apis) for k in kinds)
    print("%s: %s: %d calls %s" % ("ok" if ok else "FAIL", want, len(hits), kinds))
    bad += not ok
sys.exit(1 if bad else 0)
PYEOF
rc=$?
if [ -x "$B/tests/python/pysites" ]; then
  echo "== call sites as the report resolves them (first 3 per line)"
  "$B/tests/python/pysites" "$DB_ON" | awk '{k=$3; if (c[k]++ < 3) print}' | head -n 40
fi
[ $rc -eq 0 ] && echo "PASS: python_sites" || echo "FAIL: python_sites"
exit $rc
