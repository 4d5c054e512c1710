#!/bin/sh
# run-test.sh - the one runner, the LOG_COMPILER of every .test script:
# gives each test a fresh temporary directory (kept when the test fails),
# tells it where the build's pieces are, and runs it.  Tests preload
# the shim themselves, per command, through the helpers in tests/lib.sh.
# Exit 77 means skipped, and the test prints why; 99 a hard error.
set -u
script=$1
shift
case $script in /*) ;; *) script=$PWD/$script ;; esac # before the cd below
: "${CL_TOP_BUILDDIR:?run through make check}"
CL_SHIM=$CL_TOP_BUILDDIR/.libs/libcudalens${CL_SAN_SUFFIX:-}.so # -san: check-sanitize
# the CUDA libraries the tests run against: the simulated runtime (a test
# double), or, from tests/gpu/realtests.sh, a folder of links to the real one
CL_SIMLIB=${CL_CUDA_LIBDIR:-$CL_TOP_BUILDDIR/tests/sim/lib}
CL_APPS=$CL_TOP_BUILDDIR/tests/apps
CL_REPORT=$CL_TOP_BUILDDIR/cudalens-report${CL_SAN_SUFFIX:-} # -san: check-sanitize
CL_LAUNCHER=$CL_TOP_BUILDDIR/cudalens
# the recordings' tests (tests/recordings/common.sh): hand-written
# recordings, the tools that build them and the analyzer's test programs
CL_RECDIR=$CL_TOP_SRCDIR/tests/recordings
CL_SQL2DB=$CL_TOP_BUILDDIR/tests/recordings/sql2db
CL_GEN=$CL_TOP_BUILDDIR/bench/gen_recording
CL_TEST_MODEL=$CL_TOP_BUILDDIR/tests/unit/analyzer/test_model${CL_SAN_SUFFIX:-}
CL_FUZZ=$CL_TOP_BUILDDIR/tests/fuzz/fuzz_report${CL_SAN_SUFFIX:-}
CL_TMP=$(mktemp -d "${TMPDIR:-/tmp}/cudalens-test.XXXXXX") || exit 99
export CL_SHIM CL_SIMLIB CL_APPS CL_REPORT CL_LAUNCHER CL_TMP \
  CL_RECDIR CL_SQL2DB CL_GEN CL_TEST_MODEL CL_FUZZ
cd "$CL_TMP" || exit 99
${SHELL:-/bin/sh} "$script" "$@"
rc=$?
if [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]; then
  chmod -R u+w "$CL_TMP" 2>/dev/null # a test's read-only folders
  rm -rf "$CL_TMP"
else
  echo "test directory kept: $CL_TMP"
fi
exit "$rc"
