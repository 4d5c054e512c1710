# check.sh - sourced by the tests/races/*.test scripts (after tests/lib.sh):
# runs the catalogue program named after the script under the shim and the
# simulated CUDA runtime, reports it with `cudalens-report --format=json`,
# and checks the race findings (every kind ending in -race) against the
# `// expect: KIND` marks of its source: every mark has a finding of that
# kind located at that line, and there is no other race finding.  A program without
# marks (a correct twin) must have none.  The report is made twice and must
# be the same (the analysis is deterministic).
#
# Also used by tests/gpu/races.sh: RACES_LIB_ONLY=1 only defines
# races_check; RACES_BIN (the built programs), RACES_SRC (their sources) and
# RACES_REAL=1 (run against the real CUDA, not the simulator).
# RACES_KINDS: the finding kinds checked (an extended regular expression),
# the race kinds unless told.  The marks are read and compared by
# tests/marks.sh (marks_want, marks_got), sourced by tests/lib.sh.
# RACES_FOOTPRINTS: a footprint fixture (FILE.fp.sql, hand-written rows of
# the footprint tables, built with sql2db --footprints) given to the report
# with --footprints; the marks are then the source's `// expect-footprints:
# KIND` ones (its `// expect:` marks are the findings without footprints).
RACES_KINDS=${RACES_KINDS:--race\$}
marks_can_read || skip "neither jq nor python3"
RACES_SRC=${RACES_SRC:-$CL_TOP_SRCDIR/tests/races}
RACES_BIN=${RACES_BIN:-$CL_TOP_BUILDDIR/tests/races}

# races_check NAME: run and check one program
races_check() {
  name=$1
  src=$RACES_SRC/$name.cu
  [ -f "$src" ] || fail "no source $src"
  [ -x "$RACES_BIN/$name" ] || skip "$name not built (no nvcc?)"
  rm -f "$CL_TMP/$name"-*.db
  if [ -n "${RACES_REAL:-}" ]; then
    env LD_PRELOAD="$CL_SHIM" CUDALENS_OUTPUT="$CL_TMP/$name-%p.db" \
      "$RACES_BIN/$name" >"$CL_TMP/$name.out" 2>"$CL_TMP/$name.err"
  else
    [ -e "$CL_SIMLIB/libcudart.so.13" ] || skip "simulated runtime not built"
    env LD_LIBRARY_PATH="$CL_SIMLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      LD_PRELOAD="$CL_SHIM" CUDALENS_OUTPUT="$CL_TMP/$name-%p.db" \
      "$RACES_BIN/$name" >"$CL_TMP/$name.out" 2>"$CL_TMP/$name.err"
  fi
  rc=$?
  [ "$rc" -eq 0 ] || { cat "$CL_TMP/$name.err" >&2; fail "$name exited $rc"; }
  db=$(ls -t "$CL_TMP/$name"-*.db 2>/dev/null | head -n 1)
  [ -n "$db" ] || fail "$name: no recording"
  set --
  marks_src=$src
  if [ -n "${RACES_FOOTPRINTS:-}" ]; then
    "$CL_SQL2DB" --footprints "$CL_TMP/$name.clfp" "$RACES_FOOTPRINTS" ||
      fail "sql2db --footprints $RACES_FOOTPRINTS"
    set -- --footprints="$CL_TMP/$name.clfp"
    mkdir -p "$CL_TMP/fp-marks"
    marks_src=$CL_TMP/fp-marks/$name.cu
    sed -e 's#// expect: #// expect-without-footprints: #g' \
      -e 's#// expect-footprints: #// expect: #g' "$src" >"$marks_src"
  fi
  "$CL_REPORT" --format=json "$@" "$db" >"$CL_TMP/$name.json" 2>"$CL_TMP/$name.rerr" ||
    [ $? -eq 1 ] || { cat "$CL_TMP/$name.rerr" >&2; fail "cudalens-report failed"; }
  "$CL_REPORT" --format=json "$@" "$db" >"$CL_TMP/$name.json2" 2>/dev/null
  cmp -s "$CL_TMP/$name.json" "$CL_TMP/$name.json2" || fail "$name: two reports differ"
  # the race findings as "kind line" (line of the location when the file is
  # this source), sorted and unique
  marks_got "$CL_TMP/$name.json" "$name.cu" "$RACES_KINDS" >"$CL_TMP/$name.got"
  marks_want "$marks_src" >"$CL_TMP/$name.want"
  if ! cmp -s "$CL_TMP/$name.want" "$CL_TMP/$name.got"; then
    echo "--- expected (kind line) / +++ reported:" >&2
    diff -u "$CL_TMP/$name.want" "$CL_TMP/$name.got" >&2
    cat "$CL_TMP/$name.json" >&2
    fail "$name: race findings differ from the // expect: marks"
  fi
  n=$(wc -l <"$CL_TMP/$name.want")
  echo "ok: $name${RACES_FOOTPRINTS:+ with footprints}: $n expected race finding(s), and nothing else"
}

if [ -z "${RACES_LIB_ONLY:-}" ]; then
  races_check "$(basename "$0" .test)"
  exit 0
fi
