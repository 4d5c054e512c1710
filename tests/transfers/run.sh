# run.sh - sourced by the tests/transfers/*.test scripts (after
# tests/lib.sh): runs one sample app of tests/transfers under the shim
# against the simulated CUDA (tests/sim), reports the recording as JSON and
# checks it with tr_check (check.sh).
. "$CL_TOP_SRCDIR/tests/transfers/check.sh"

# tr_test APP [ARGS...]
tr_test() {
  app=$1
  shift
  CL_APPS=$CL_TOP_BUILDDIR/tests/transfers
  src=$CL_TOP_SRCDIR/tests/transfers/$app.cu
  [ -x "$CL_APPS/$app" ] || skip "sample app $app not built (no nvcc?)"
  [ -e "$CL_SIMLIB/libcudart.so.13" ] || skip "simulated runtime not built"
  [ -x "$CL_REPORT" ] || skip "cudalens-report not built"
  marks_can_read || skip "neither jq nor python3"
  CUDALENS_SIM_DEVICES=${CUDALENS_SIM_DEVICES:-2}
  export CUDALENS_SIM_DEVICES
  cl_run "$app" "$@"
  rc=$?
  [ "$rc" -eq 77 ] && skip "$(cat "$app.out")"
  if [ "$rc" -ne 0 ]; then
    cat "$app.out" "$app.err" >&2
    fail "$app exited $rc"
  fi
  [ -n "$DB" ] && [ -s "$DB" ] || fail "$app left no recording"
  "$CL_REPORT" --format=json "$DB" >"$app.json" 2>"$app.report.err" ||
    { cat "$app.report.err" >&2; fail "cudalens-report --format=json failed"; }
  "$CL_REPORT" "$DB" >"$app.txt" 2>>"$app.report.err" ||
    fail "cudalens-report failed"
  tr_check "$src" "$app.json"
  st=$?
  if [ "$st" -ne 0 ]; then
    sed -n '1,/^Process /p' "$app.txt" >&2
    fail "$app: the findings do not match the marks in $app.cu"
  fi
  # a buggy app fails --fail-on at the severity of its findings
  if tr_expectations "$src" | grep -q .; then
    "$CL_REPORT" --fail-on=note "$DB" >/dev/null 2>&1
    rc=$?
    [ "$rc" -eq 1 ] || fail "--fail-on=note exited $rc on a buggy app, expected 1"
    echo "ok: --fail-on=note exits 1"
  fi
  return 0
}
