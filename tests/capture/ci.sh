# ci.sh - helpers of the tests/capture/*.test scripts (CI): run a program
# natively and under the shim against the simulated CUDA runtime (a TEST
# DOUBLE, tests/sim), then check its recording with capture.sh.  Sourced
# after run-test.sh has set CL_* and made the test's temporary directory
# the current one.

. "$CL_TOP_SRCDIR/tests/lib.sh"
CAP_DIR=$CL_TOP_SRCDIR/tests/capture
CAP_APPSRC=$CL_TOP_SRCDIR/tests/apps
CAP_DBCHECK=$CL_TOP_BUILDDIR/tests/dbcheck
CAP_CALLSITES=$CL_TOP_BUILDDIR/tests/capture/callsites
CAP_REPORT=$CL_REPORT
CAP_BEHAVE=$CL_TOP_BUILDDIR/tests/capture/behave
CAP_HOSTILE=$CL_TOP_BUILDDIR/tests/capture/hostile
. "$CAP_DIR/capture.sh"

# cap_need PROGRAM...: skip unless the programs and the sim are built
cap_need() {
  [ -e "$CL_SIMLIB/libcudart.so.13" ] || skip "simulated runtime not built"
  [ -e "$CL_SHIM" ] || skip "libcudalens.so not built"
  for _p in "$CAP_DBCHECK" "$CAP_CALLSITES" "$CL_REPORT" "$@"; do
    [ -x "$_p" ] || skip "$_p not built (no nvcc?)"
  done
}

# native OUT PROGRAM ARGS...: runs PROGRAM on the sim without the shim;
# stdout/stderr in OUT.out/OUT.err, exit status in $rc
native() {
  _o=$1
  shift
  env LD_LIBRARY_PATH="$CL_SIMLIB" "$@" >"$_o.out" 2>"$_o.err"
  rc=$?
}

# shimmed OUT PATTERN PROGRAM ARGS...: the same under the shim, recording
# to CUDALENS_OUTPUT=PATTERN (extra CUDALENS_* settings come from the
# environment of the caller)
shimmed() { preloaded "$CL_SHIM" "$@"; }

# preloaded PRELOAD OUT PATTERN PROGRAM ARGS...: as shimmed, with
# LD_PRELOAD=PRELOAD (the shim and libraries before or after it)
preloaded() {
  _pre=$1 _o=$2 _pat=$3
  shift 3
  env LD_LIBRARY_PATH="$CL_SIMLIB" LD_PRELOAD="$_pre" \
    CUDALENS_OUTPUT="$_pat" "$@" >"$_o.out" 2>"$_o.err"
  rc=$?
}

# dbs DIR: the recordings in DIR, one a line
dbs() { ls "$1" 2>/dev/null | grep '\.db$' | sed "s|^|$1/|"; }

# pid_of DB: the pid in a NAME-PID.db file name
pid_of() { basename "$1" .db | sed 's/.*-//'; }

# no_shim_lines ERRFILE: the shim printed nothing
no_shim_lines() {
  if grep -q '^cudalens:' "$1"; then
    cat "$1" >&2
    fail "the shim printed messages"
  fi
}

# cap_ci_app APP [NAME=VALUE...]: runs tests/apps/APP natively and under
# the shim (same output, exit 0, no messages), expects exactly one
# recording and checks it (capture.sh).  Sets DB.  NDEV and PEER are taken
# from multidev's output; extra NAME=VALUE pairs go to dbcheck.
cap_ci_app() {
  _app=$1
  shift
  _bin=$CL_APPS/$_app
  cap_need "$_bin"
  native native "$_bin"
  [ "$rc" -eq 0 ] || fail "$_app fails without cudalens: $(cat native.err)"
  rm -rf rec
  mkdir rec
  shimmed "$_app" "$CL_TMP/rec/$_app-%p.db" "$_bin"
  [ "$rc" -eq 0 ] || fail "$_app fails under cudalens (exit $rc): $(cat "$_app.err")"
  # timings printed by the app (streams: "0.123 ms") differ from run to run
  sed -E 's/[0-9]+\.[0-9]+ ms/N ms/' native.out >native.cmp
  sed -E 's/[0-9]+\.[0-9]+ ms/N ms/' "$_app.out" >"$_app.cmp"
  cmp -s native.cmp "$_app.cmp" || fail "output differs under cudalens"
  echo "ok: same output and exit status under the shim"
  no_shim_lines "$_app.err"
  n=$(dbs rec | grep -c .)
  [ "$n" -eq 1 ] || fail "$n recordings written, expected 1: $(dbs rec)"
  DB=$(dbs rec)
  echo "ok: one recording, $DB"
  _exe=$(cd "$CL_APPS" && pwd -P)/$_app
  _ndev=$(sed -n 's/^multidev: ok (\([0-9]*\) devices)$/\1/p' "$_app.out")
  _peer=0
  grep -q 'peer access on' "$_app.out" && _peer=1
  cap_check "$_app" "$DB" "EXE=$_exe" "PID=$(pid_of "$DB")" \
    "NDEV=${_ndev:-1}" "PEER=$_peer" "$@"
  echo "$cap_pass checks passed, $cap_fail failed"
  [ "$cap_fail" -eq 0 ] || fail "$cap_fail checks failed"
}
