#!/bin/sh
# probe.sh - issue 23, first step, on a GPU machine: can the Compute
# Sanitizer API (instruction patching: every global memory access of a
# launch) run in the same process as CUPTI, which the cudalens shim
# subscribes to?  And what does instrumenting every launch cost, next to
# compute-sanitizer memcheck?  Nothing is compiled here: the probe comes
# built (tests/gpu/footprint/build.sh).
#
#   sh tests/gpu/footprint/probe.sh KIT_OR_BUILD OUTDIR
#
# KIT_OR_BUILD: a GPU kit (tests/gpu/kit.sh; its build/ is used) or a build
# tree (.libs/libcudalens.so).  FP_DIR: the probe's folder (default
# .carry/footprint of this tree: libclfootprint_probe.so,
# footprint_patches.fatbin, fp_test, sanitizer/).  SANITIZER_DIR: where
# libsanitizer-public.so is loaded from (default: the toolkit's
# compute-sanitizer folder when it has one, else FP_DIR/sanitizer).  LOOP:
# launches of the timing loop (default 20000).  PYTHON: a Python with sqlite3.
#
# Runs (each under timeout; its probe output in OUTDIR/RUN.fp):
#   native  fp_test check without anything preloaded
#   a       the Sanitizer API alone
#   aE      the same with CUDA_MODULE_LOADING=EAGER (no lazy loading)
#   aw      the same with FP_DIR/sanitizer's library (when another was used)
#   a0      the same without looking up kernel parameters (absolute ranges)
#   b       CUPTI subscribed first (runtime and driver API domains), then the
#           Sanitizer API
#   c       the Sanitizer API first, then CUPTI
#   shim    libcudalens.so alone (the control for d)
#   d       LD_PRELOAD="libcudalens.so libclfootprint_probe.so"
#   d2      LD_PRELOAD="libclfootprint_probe.so libcudalens.so"
# and the timing loop natively, with the probe (every launch instrumented),
# with the shim, with both, and under compute-sanitizer --tool memcheck.
# OUTDIR/verdicts.txt: one line per run (the probe's verdict, the program's
# exit status and check, whether the expected footprints were seen, what the
# shim recorded) and the timings.  Exit 0 when every run finished.
set -u
[ $# -eq 2 ] || { echo "usage: $0 KIT_OR_BUILD OUTDIR" >&2; exit 2; }
kit=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
if [ -e "$kit/build/.libs/libcudalens.so" ]; then build=$kit/build; else build=$kit; fi
shim=$build/.libs/libcudalens.so
FP_DIR=${FP_DIR:-$top/.carry/footprint}
fp=$(cd "$FP_DIR" && pwd) || { echo "$0: no $FP_DIR" >&2; exit 2; }
if [ ! -x "$fp/fp_test" ]; then # carried without its mode bits
  rm -rf "$out/fpbin" && cp -r "$fp" "$out/fpbin" && chmod +x "$out/fpbin/fp_test"
  fp=$out/fpbin
fi
probe=$fp/libclfootprint_probe.so
prog=$fp/fp_test
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
cs=$CUDA_HOME/compute-sanitizer
if [ -z "${SANITIZER_DIR:-}" ]; then
  if [ -e "$cs/libsanitizer-public.so" ]; then SANITIZER_DIR=$cs; else SANITIZER_DIR=$fp/sanitizer; fi
fi
LOOP=${LOOP:-20000}
PYTHON=${PYTHON:-python3}
export CL_FP_PATCHES="$fp/footprint_patches.fatbin"
ld="$SANITIZER_DIR:$build/lib-extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}:$CUDA_HOME/lib64"
# shellcheck source=expect.sh
. "$here/expect.sh"
v=$out/verdicts.txt
: >"$v"
say() { echo "$*" | tee -a "$v"; }
fails=0

say "# probe.sh $(date -u +%FT%TZ) sanitizer=$SANITIZER_DIR fp=$fp shim=$shim"
say "# driver: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
say "# compute-sanitizer: $("$cs/compute-sanitizer" --version 2>&1 | tail -1)"
[ -e "$shim" ] || say "# no $shim: runs shim, d, d2 will fail"

# since T0: seconds from T0 (date +%s.%N) to now
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }
# run NAME PRELOAD MODE [ENV...] -- ARGS: fp_test ARGS with PRELOAD and the
# probe's mode; OUTDIR/NAME.out (program), NAME.fp (probe), NAME.db (shim)
run() {
  name=$1 pre=$2 mode=$3
  shift 3
  envs=""
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs="$envs $1"; shift; done
  shift
  rm -f "$out/$name.fp" "$out/$name.db"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  timeout 120 env LD_LIBRARY_PATH="$ld" LD_PRELOAD="$pre" CL_FP_MODE="$mode" \
    CL_FP_OUT="$out/$name.fp" CUDALENS_OUTPUT="$out/$name.db" $envs \
    "$prog" "$@" >"$out/$name.out" 2>&1
  rc=$?
  wall=$(since "$t0")
}

# shimrec DB: what the shim recorded: "calls=N launches=N"
shimrec() {
  [ -e "$1" ] || { echo "shim-db=none"; return; }
  "$PYTHON" - "$1" <<'EOF' 2>&1 | tail -1
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
calls = c.execute("SELECT count(*) FROM calls").fetchone()[0]
launches = c.execute("SELECT count(*) FROM calls c JOIN api a ON a.id = c.api"
                     " WHERE a.name LIKE '%aunch%ernel%'").fetchone()[0]
print("shim-calls=%d shim-launches=%d" % (calls, launches))
EOF
}
verdict() { grep '^verdict' "$1" 2>/dev/null | tail -1 | cut -c9-; }
check() { grep -o 'check [a-zA-Z]*' "$out/$1.out" | head -1; }

# ---- coexistence --------------------------------------------------------------
run native "" a -- check
say "native: rc=$rc $(check native) ${wall}s"
for m in a b c; do
  run "$m" "$probe" "$m" -- check
  say "$m: rc=$rc $(check "$m") $(expect "$out/$m.fp") | $(verdict "$out/$m.fp")"
  [ "$rc" -ge 124 ] && fails=$((fails + 1))
done
run aE "$probe" a CUDA_MODULE_LOADING=EAGER -- check
say "aE: rc=$rc $(check aE) $(expect "$out/aE.fp") | $(verdict "$out/aE.fp")"
if [ "$SANITIZER_DIR" != "$fp/sanitizer" ]; then # the wheel's library (13.0.85)
  ld0=$ld
  ld="$fp/sanitizer:$build/lib-extra:$CUDA_HOME/lib64"
  run aw "$probe" a -- check
  say "aw: rc=$rc $(check aw) $(expect "$out/aw.fp") | $(verdict "$out/aw.fp")"
  ld=$ld0
fi
run a0 "$probe" a CL_FP_PARAMS=0 -- check
say "a0: rc=$rc $(check a0) $(expect_abs "$out/a0.fp") | $(verdict "$out/a0.fp")"
run shim "$shim" a -- check
say "shim: rc=$rc $(check shim) $(shimrec "$out/shim.db") | $(grep -i 'cupti\|error' "$out/shim.out" | head -2 | tr '\n' ' ')"
control=$(shimrec "$out/shim.db")
# same: whether the shim recorded as much next to the probe as alone
same() { if [ "$1" = "$control" ] && [ "${1#shim-calls=}" != "$1" ]; then echo "shim-as-control=yes"; else echo "shim-as-control=NO"; fi; }
run d "$shim $probe" d -- check
r=$(shimrec "$out/d.db")
say "d: rc=$rc $(check d) $(expect "$out/d.fp") $r $(same "$r") | $(verdict "$out/d.fp")"
[ "$rc" -ge 124 ] && fails=$((fails + 1))
run d2 "$probe $shim" d -- check
r=$(shimrec "$out/d2.db")
say "d2: rc=$rc $(check d2) $(expect "$out/d2.fp") $r $(same "$r") | $(verdict "$out/d2.fp")"
grep -i 'cupti\|sanitizer' "$out/d.out" "$out/d2.out" | head -4 | sed 's/^/# /' | tee -a "$v"
if [ -e "$out/d.db" ] && [ -x "$build/cudalens-report" ]; then
  "$build/cudalens-report" "$out/d.db" >"$out/d.report" 2>&1
  say "d report: rc=$? $(wc -l <"$out/d.report") lines"
fi
say "# a's footprints:"
sed -n '/^launch /,$p' "$out/a.fp" | grep -v '^verdict' | head -20 | tee -a "$v"

# ---- cost: a launch-bound loop ------------------------------------------------
# loop NAME: the loop's own time (from fp_test) and the process's wall time
loop() { echo "$1 loop=$(grep -o 'launches [0-9.]* s' "$out/$1.out" | cut -d' ' -f2)s wall=${wall}s rc=$rc"; }
run t_native "" a -- loop "$LOOP"; n1=$(loop t_native)
run t_probe "$probe" a CL_FP_PRINT=0 -- loop "$LOOP"; p1=$(loop t_probe)
run t_shim "$shim" a -- loop "$LOOP"; s1=$(loop t_shim)
run t_both "$shim $probe" d CL_FP_PRINT=0 -- loop "$LOOP"; b1=$(loop t_both)
t0=$(date +%s.%N)
timeout 300 env LD_LIBRARY_PATH="$build/lib-extra:$CUDA_HOME/lib64" "$cs/compute-sanitizer" --tool memcheck \
  "$prog" loop "$LOOP" >"$out/t_memcheck.out" 2>&1
rc=$?
wall=$(since "$t0")
m1=$(loop t_memcheck)
run t_native2 "" a -- loop "$LOOP"; n2=$(loop t_native2)
say "timing ($LOOP launches of a 32-thread kernel, one stream):"
for l in "$n1" "$p1" "$s1" "$b1" "$m1" "$n2"; do say "  $l"; done
say "# t_probe: $(verdict "$out/t_probe.fp")"
say "# t_both: $(verdict "$out/t_both.fp")"
echo "finished: $fails runs timed out"
[ "$fails" -eq 0 ]
