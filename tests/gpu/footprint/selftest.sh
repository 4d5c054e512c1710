#!/bin/sh
# selftest.sh - checks the footprint probe's host side on a machine without
# a GPU: builds probe.c against a TEST DOUBLE of the Sanitizer library
# (double/fake_sanitizer.c) and runs a program that plays fp_test's kernels
# through it (double/fake_app.c), then checks the output with the same
# expectations probe.sh applies on the GPU (expect.sh).  It says nothing
# about the real Sanitizer API or CUPTI: that is probe.sh's job.
#   tests/gpu/footprint/selftest.sh SANITIZER_DIR WORKDIR
# SANITIZER_DIR: for the headers only (include/sanitizer.h).  Exit 0: passed.
set -u
[ $# -eq 2 ] || { echo "usage: $0 SANITIZER_DIR WORKDIR" >&2; exit 2; }
san=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && w=$(cd "$2" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
CC=${CC:-gcc}
flags="-std=gnu11 -g -Wall -Wextra -Werror -I$CUDA_HOME/include -I$san/include -I$here -I$here/../../../footprint"
set -e
mkdir -p "$w/fake"
# shellcheck disable=SC2086
$CC $flags -fPIC -shared -o "$w/fake/libsanitizer-public.so" "$here/double/fake_sanitizer.c"
# shellcheck disable=SC2086
$CC $flags -fPIC -shared -fvisibility=hidden -o "$w/libclfootprint_probe.so" \
  "$here/probe.c" "$here/probe_cupti.c" -L"$w/fake" -lsanitizer-public -ldl -lpthread
# shellcheck disable=SC2086
$CC $flags -rdynamic -o "$w/fake_app" "$here/double/fake_app.c" \
  -L"$w/fake" -lsanitizer-public -lpthread
set +e
# shellcheck source=expect.sh
. "$here/expect.sh"
fails=0
for params in 1 0; do
  rm -f "$w/run$params.fp"
  timeout 60 env LD_LIBRARY_PATH="$w/fake" \
    LD_PRELOAD="$w/libclfootprint_probe.so" CL_FP_OUT="$w/run$params.fp" \
    CL_FP_PATCHES=/dev/null CL_FP_PARAMS=$params \
    "$w/fake_app" >"$w/run$params.out" 2>&1
  rc=$?
  if [ $params = 1 ]; then r=$(expect "$w/run1.fp"); else r=$(expect_abs "$w/run0.fp"); fi
  echo "params=$params: rc=$rc $r"
  case "$rc $r" in
    0*NO*|[!0]*) fails=$((fails + 1)); cat "$w/run$params.fp" ;;
  esac
  grep -q '=> ACCESSES-REPORTED$' "$w/run$params.fp" || { echo "no verdict line"; fails=$((fails + 1)); }
done
echo "$((2 - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
