#!/bin/sh
# hostfn.sh - issue 20 on a GPU machine: host functions as observed
# synchronization, and the host check on buffers smaller than a page.  From
# a kit built elsewhere (tests/gpu/kit.sh): nothing is compiled here.
#
#   tests/gpu/hostfn.sh BUILD_DIR OUTDIR
#
# BUILD_DIR: KIT/build (or a build tree after make check).  Checks:
#  1. the conformance rows tests/semantics/hostfn_* against their
#     // expect: marks (handoff through a host function: a warning; the
#     host function on the wrong stream: a stream-race);
#  2. tests/hostsync hostfn_* and small_* and step_storm natively and under
#     the shim: same output and exit status, findings as marked;
#  3. every host function of those programs was observed (host_func_runs
#     has a row per cudaLaunchHostFunc/cuLaunchHostFunc call, none
#     'host-functions-unobserved' dropped);
#  4. a JAX training loop fed from NumPy (jax_numpy_train.py,
#     XLA_PYTHON_CLIENT_PREALLOCATE=false) and a CuPy program
#     (cupy_hostfn.py): the same output, no error finding, host functions
#     observed.
# Exit 0 when everything passed; OUTDIR/summary.txt lists each check.
set -u
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR OUTDIR" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PYTHON=${PYTHON:-python3}
shim=$build/.libs/libcudalens.so
export LD_LIBRARY_PATH="$build/lib-extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
report() { "$build/cudalens-report" "$@"; }
fails=0
say() { echo "$*" | tee -a "$out/summary.txt"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }
ok() { say "ok: $*"; }
# sql DB QUERY
sql() { "$PYTHON" -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in r))' "$1" "$2"; }
# errors DB: the number of error findings
errors() {
  report --format=json "$1" 2>/dev/null | "$PYTHON" -c 'import json, sys
fs = json.load(sys.stdin)["findings"]
for f in fs:
    print("  %s %s %s" % (f["severity"], f["kind"], f["message"][:160]), file=sys.stderr)
print(sum(1 for f in fs if f["severity"] == "error"))'
}
# observed DB: host function calls and runs, "CALLS RUNS UNOBSERVED"
observed() {
  c=$(sql "$1" "SELECT count(*) FROM calls c JOIN api a ON a.id = c.api
                WHERE a.op = 'host-func' AND c.result = 0")
  r=$(sql "$1" "SELECT count(DISTINCT correlation) FROM host_func_runs")
  u=$(sql "$1" "SELECT coalesce(sum(count), 0) FROM drops
                WHERE reason = 'host-functions-unobserved'")
  echo "$c $r $u"
}
: >"$out/summary.txt"

# ---- 1. conformance rows ------------------------------------------------------
for name in hostfn_handoff hostfn_wrong_stream hostfn_xla; do
  if (CL_SHIM=$shim CL_REPORT=$build/cudalens-report CL_TOP_SRCDIR=$top \
      CL_TMP=$out/sem-$name RACES_SRC=$top/tests/semantics \
      RACES_BIN=$build/tests/semantics RACES_REAL=1 RACES_LIB_ONLY=1
      export CL_SHIM CL_REPORT CL_TOP_SRCDIR CL_TMP RACES_SRC RACES_BIN RACES_REAL RACES_LIB_ONLY
      mkdir -p "$CL_TMP"
      . "$top/tests/lib.sh"; . "$top/tests/races/check.sh"; races_check "$name") \
      >"$out/sem-$name.log" 2>&1; then
    ok "semantics/$name: race findings as marked"
  else
    fail "semantics/$name: $(grep -m 2 -i fail "$out/sem-$name.log" | tr '\n' ' ')"
  fi
done

# ---- 2. host check samples ----------------------------------------------------
# check SRC REPORT: the markers of a sample against its report (tests/marks.sh)
. "$top/tests/marks.sh"
check() { marks_text "$1" "$2" ok fail; }
for n in hostfn_read_early hostfn_handoff_ok hostfn_event_ok hostfn_no_wait \
         callback_ok small_managed_read \
         small_managed_sync small_pinned_read small_pinned_ok step_storm; do
  bin=$build/tests/hostsync/$n
  [ -x "$bin" ] || { fail "$n not in the kit"; continue; }
  "$bin" >"$out/$n.native" 2>&1; rn=$?
  LD_PRELOAD=$shim CUDALENS_OUTPUT="$out/$n.db" "$bin" >"$out/$n.shim" 2>&1; rs=$?
  if [ "$rn" = "$rs" ] && cmp -s "$out/$n.native" "$out/$n.shim"; then
    ok "$n: same output and exit status ($rs) under cudalens"
  else
    fail "$n: output or exit status differs under cudalens ($rn/$rs)"
  fi
  report "$out/$n.db" >"$out/$n.report" 2>&1
  check "$top/tests/hostsync/$n.cu" "$out/$n.report"
  case $n in hostfn*|callback_ok)
    set -- $(observed "$out/$n.db")
    [ "$1" -gt 0 ] && [ "$1" = "$2" ] && [ "$3" = 0 ] &&
      ok "$n: $1 host function(s) enqueued, $2 observed" ||
      fail "$n: host functions enqueued $1, observed $2, unobserved $3" ;;
  esac
done
# the step storm, a few processes at once
for p in 1 2 3; do
  (LD_PRELOAD=$shim CUDALENS_OUTPUT="$out/storm-$p.db" \
     "$build/tests/hostsync/step_storm" 300 6 >"$out/storm-$p.out" 2>&1
   echo $? >"$out/storm-$p.rc") &
done
wait
for p in 1 2 3; do
  [ "$(cat "$out/storm-$p.rc")" = 0 ] &&
    sed 's/results .*//' "$out/storm-$p.out" | grep -q 'counters 180000 traps 600' &&
    ok "step_storm process $p: $(cat "$out/storm-$p.out")" ||
    fail "step_storm process $p: rc $(cat "$out/storm-$p.rc"): $(tail -n 2 "$out/storm-$p.out")"
done

# ---- 3./4. JAX and CuPy ---------------------------------------------------------
py_case() { # NAME SCRIPT ARGS...
  name=$1 script=$2
  shift 2
  (cd "$out" && "$PYTHON" "$here/$script" "$@" >"$out/$name.native" 2>"$out/$name.native.err"); rn=$?
  (cd "$out" && LD_PRELOAD=$shim CUDALENS_OUTPUT="$out/$name.db" \
     "$PYTHON" "$here/$script" "$@" >"$out/$name.shim" 2>"$out/$name.shim.err"); rs=$?
  if [ "$rn" != 0 ]; then
    say "skip: $name fails natively: $(tail -n 1 "$out/$name.native.err")"
    return
  fi
  [ "$rs" = 0 ] && cmp -s "$out/$name.native" "$out/$name.shim" &&
    ok "$name: same output under cudalens" ||
    fail "$name: rc $rs, output differs: $(tail -n 2 "$out/$name.shim.err")"
  report --stack=6 "$out/$name.db" >"$out/$name.report" 2>&1
  e=$(errors "$out/$name.db" 2>"$out/$name.findings")
  [ "$e" = 0 ] && ok "$name: no error finding ($(wc -l <"$out/$name.findings") in all)" ||
    fail "$name: $e error finding(s): $(grep -m 3 ' error ' "$out/$name.findings" | tr '\n' ' ')"
  set -- $(observed "$out/$name.db")
  [ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "$3" = 0 ] &&
    ok "$name: $1 host function call(s), $2 observed" ||
    fail "$name: host functions enqueued $1, observed $2, unobserved $3"
}
XLA_PYTHON_CLIENT_PREALLOCATE=false py_case jax jax_numpy_train.py 20
py_case cupy cupy_hostfn.py

say "hostfn.sh: $fails failed"
[ "$fails" -eq 0 ]
