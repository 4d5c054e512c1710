# lib.sh - the one shell library of the tests: sourced by the .test scripts
# (those of tests/recordings through its common.sh) and by the folders'
# libraries.  Exit 1 is a failure, 77 a skip (the test says
# why), 99 a hard error of the harness.  Programs run against the simulated
# CUDA runtime (tests/sim, a test double) with libcudalens.so preloaded;
# databases land in the test's own directory.

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
error() { echo "ERROR: $*" >&2; exit 99; }
. "${CL_TOP_SRCDIR:?run through make check}/tests/marks.sh"

# sim_faults: true when the CUDA libraries are the simulator's, whose
# CUDALENS_SIM_* settings produce what a real GPU cannot be told to (CUPTI
# held by another tool, two devices, queries that answer not-ready); false
# under tests/gpu/realtests.sh, which runs the tests on the real runtime
sim_faults() { [ -z "${CL_CUDA_LIBDIR:-}" ]; }

need_apps() {
  [ -x "$CL_APPS/$1" ] || skip "sample app $1 not built (no nvcc?)"
  [ -e "$CL_SIMLIB/libcudart.so.13" ] || skip "simulated runtime not built"
  command -v sqlite3 >/dev/null || command -v python3 >/dev/null ||
    skip "neither the sqlite3 command-line tool nor python3"
}

# cl_run APP [ARGS...]: run a sample app (a name in tests/apps, or a path)
# under the shim; its stdout and stderr go to APP.out / APP.err; the
# database is DB afterwards.
cl_run() {
  case $1 in */*) bin=$1 ;; *) bin=$CL_APPS/$1 ;; esac
  app=$(basename "$1")
  shift
  rm -f "$CL_TMP/$app"-*.db
  env LD_LIBRARY_PATH="$CL_SIMLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    LD_PRELOAD="$CL_SHIM" CUDALENS_OUTPUT="$CL_TMP/$app-%p.db" \
    "$bin" "$@" >"$app.out" 2>"$app.err"
  rc=$?
  DB=$(ls -t "$CL_TMP"/"$app"-*.db 2>/dev/null | head -n 1)
  return $rc
}

# check_markers SRC REPORT: the findings of a text report against the
# markers in the sample's source (tests/marks.sh): each `// expect: KIND`
# line must be reported as KIND at that line; `// expect-none: KIND...`
# lists kinds that must not be reported anywhere.
check_markers() {
  marks_text "$1" "$2" || fail "the report does not match the marks of $(basename "$1")"
}

# check_sample DIR APP: build products in tests/DIR, sources likewise; run
# APP without and with the shim (same output), report, check the markers.
check_sample() {
  src=$CL_TOP_SRCDIR/tests/$1/$2.cu
  bin=$CL_TOP_BUILDDIR/tests/$1/$2
  [ -x "$bin" ] || skip "$bin not built (no nvcc?)"
  [ -e "$CL_SIMLIB/libcudart.so.13" ] || skip "simulated runtime not built"
  env LD_LIBRARY_PATH="$CL_SIMLIB" "$bin" >native.out 2>native.err ||
    fail "$2 fails without cudalens: $(cat native.err)"
  cl_run "$bin" || fail "$2 fails under cudalens: $(cat "$2.err")"
  cmp -s native.out "$2.out" || fail "output differs under cudalens"
  [ -n "$DB" ] || fail "no database written"
  "$CL_REPORT" "$DB" >report.txt 2>report.err || fail "report failed"
  check_markers "$src" report.txt
}

# q SQL: one query against DB, through the sqlite3 tool or, where it is
# missing (the GPU machine, tests/gpu/realtests.sh), Python's sqlite3
# module: rows one a line, columns joined by '|', NULL as nothing
q() {
  if command -v sqlite3 >/dev/null; then
    sqlite3 -batch -noheader "$DB" "$1"
  else
    python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in r))' "$DB" "$1"
  fi
}

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
