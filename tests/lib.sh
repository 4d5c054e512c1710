# lib.sh - helpers for the end-to-end tests (sourced by tests/*.test).
# Programs run against the simulated CUDA runtime (tests/sim, a test double)
# with libcudalens.so preloaded; databases land in the test's own directory.

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

need_apps() {
  [ -x "$CL_APPS/$1" ] || skip "sample app $1 not built (no nvcc?)"
  [ -e "$CL_SIMLIB/libcudart.so.13" ] || skip "simulated runtime not built"
  command -v sqlite3 >/dev/null || skip "sqlite3 command-line tool missing"
}

# cl_run APP [ARGS...]: run a sample app under the shim; its stdout and
# stderr go to APP.out / APP.err; the database is DB afterwards.
cl_run() {
  app=$1
  shift
  rm -f ./*.db
  env LD_LIBRARY_PATH="$CL_SIMLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    LD_PRELOAD="$CL_SHIM" CUDALENS_OUTPUT="$CL_TMP/$app-%p.db" \
    "$CL_APPS/$app" "$@" >"$app.out" 2>"$app.err"
  rc=$?
  DB=$(ls -t "$CL_TMP"/"$app"-*.db 2>/dev/null | head -n 1)
  return $rc
}

# q SQL: one query against DB
q() { sqlite3 -batch -noheader "$DB" "$1"; }

# expect NAME ACTUAL EXPECTED
expect() {
  [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
  echo "ok: $1 = $2"
}

# expect_ge NAME ACTUAL MIN
expect_ge() {
  [ "$2" -ge "$3" ] 2>/dev/null || fail "$1: got '$2', expected at least $3"
  echo "ok: $1 = $2 (>= $3)"
}
