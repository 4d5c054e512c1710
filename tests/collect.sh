#!/bin/sh
# collect.sh - writes tests/tests.mk, the lists of the test scripts of each
# folder of tests/ (*.test, also in its subfolders), from the
# folders themselves: a new test is a new file and a run of this script
# (autogen.sh runs it; tests/collected.test fails while tests.mk is not
# what it writes).
#   tests/collect.sh [OUT]      (OUT: tests/tests.mk; - for stdout)
# Each folder's list keeps the name its local.mk and tests/sanitize.mk use.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/tests/tests.mk}
# folder, variable
lists="capture CAPTURE_TESTS
footprint FOOTPRINT_TESTS
fuzz FUZZ_TESTS
hostsync HOSTSYNC_TESTS
nccl NCCL_TESTS
packaging PACKAGING_TESTS
python PYTHON_SCRIPT_TESTS
races RACE_TESTS
recordings RECORDING_TESTS
semantics SEM_TESTS
signals SIGNALS_TESTS
transfers TR_TESTS
unit UNIT_SCRIPT_TESTS
vmm VMM_TESTS"
write() {
  echo "# tests.mk - written by tests/collect.sh (do not edit): the test scripts"
  echo "# of each folder of tests/, listed in full (automake must see the names)."
  echo "$lists" | while read -r dir var; do
    echo
    printf '%s =' "$var"
    (cd "$top" && LC_ALL=C ls tests/"$dir"/*.test tests/"$dir"/*/*.test 2>/dev/null) |
      while read -r t; do printf ' \\\n\t%s' "$t"; done
    echo
  done
  echo
  echo "COLLECTED_TESTS = tests/collected.test"
}
if [ "$out" = - ]; then write; else write >"$out.tmp" && mv "$out.tmp" "$out"; fi
