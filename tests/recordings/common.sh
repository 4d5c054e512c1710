# common.sh - sourced by the tests/recordings/*.test scripts (and
# tests/unit/analyzer/model.test): assertion helpers over tests/lib.sh
# (fail, skip, error: exit 1, 77, 99).  The runner, tests/run-test.sh,
# gives the paths (CL_REPORT, CL_SQL2DB, CL_TEST_MODEL, CL_RECDIR, CL_GEN:
# the generator bench/gen_recording, CL_FUZZ) and the test's temporary
# directory, $tmp here.

. "$CL_TOP_SRCDIR/tests/lib.sh"
for v in CL_REPORT CL_SQL2DB CL_RECDIR CL_TMP; do
  eval "val=\${$v:-}"
  [ -n "$val" ] || error "$v is not set (run through make check)"
done

# the caller's suppression files must not change the reports
unset CUDALENS_SUPPRESSIONS

tmp=$CL_TMP
trap 'exit 99' HUP INT TERM

# build [--bare] [--wal-leftover] OUT.db FILE.sql...: a recording from SQL
build() {
  "$CL_SQL2DB" "$@" || error "sql2db $*"
}

# report STATUS ARGS...: run cudalens-report, check the exit status;
# stdout in $tmp/out, stderr in $tmp/err.  A report still running after
# CL_HANG_LIMIT seconds (default 120) hangs: killed, exit 124, a failure.
report() {
  want=$1
  shift
  timeout -s KILL "${CL_HANG_LIMIT:-120}" "$CL_REPORT" "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  [ "$got" != 137 ] || got="124 (killed after ${CL_HANG_LIMIT:-120} s: a hang)"
  if [ "$got" != "$want" ]; then
    echo "--- stderr:" >&2
    cat "$tmp/err" >&2
    fail "cudalens-report $* exited $got, expected $want"
  fi
}

# same EXPECTED ACTUAL: files must be identical
same() {
  diff -u "$1" "$2" >&2 || fail "$2 differs from $1"
}

# error_line PATTERN: stderr is exactly one line, matching the grep -E
# PATTERN (anchored), and stdout is empty
error_line() {
  n=$(wc -l <"$tmp/err")
  [ "$n" -eq 1 ] || { cat "$tmp/err" >&2; fail "stderr has $n lines, expected 1"; }
  grep -Eq "^$1\$" "$tmp/err" || { cat "$tmp/err" >&2; fail "stderr does not match: $1"; }
  [ ! -s "$tmp/out" ] || fail "stdout is not empty on error"
}

# no_stderr: nothing on stderr
no_stderr() {
  [ ! -s "$tmp/err" ] || { cat "$tmp/err" >&2; fail "unexpected stderr"; }
}
