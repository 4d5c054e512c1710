#!/bin/sh
# collector_selftest.sh - libcudalens-footprint.so (footprint/collector.c)
# against the TEST DOUBLE of the Sanitizer library (double/: never
# shipped), without a GPU: fake_app plays fp_test's three kernels through
# the Sanitizer's callbacks, and the footprint file the collector writes at
# exit must hold their footprints (sqlite3), as fp_test's are on a GPU:
#   tests/gpu/footprint/collector_selftest.sh SANITIZER_DIR WORKDIR [BUILDDIR]
# SANITIZER_DIR as for selftest.sh (include/sanitizer.h); BUILDDIR (default:
# the source tree): a cudalens built with the collector (configure found
# sanitizer.h: footprint/local.mk), whose .libs/libcudalens-footprint.so,
# with libcudalens-sqlite.so beside it, is tested.  Needs sqlite3.
set -u
[ $# -ge 2 ] || { echo "usage: $0 SANITIZER_DIR WORKDIR [BUILDDIR]" >&2; exit 2; }
san=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && w=$(cd "$2" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
CC=${CC:-gcc}
flags="-std=gnu11 -g -Wall -Wextra -Werror -I$CUDA_HOME/include -I$san/include -I$here -I$top/footprint"
set -e
col=$(cd "${3:-$top}" && pwd)/.libs
[ -f "$col/libcudalens-footprint.so" ] || {
  echo "$0: no $col/libcudalens-footprint.so: configure with sanitizer.h (--with-sanitizer=DIR), make" >&2
  exit 2; }
# the checks below preload WORKDIR/collector/libcudalens-footprint.so
rm -rf "$w/collector" && ln -s "$col" "$w/collector"
mkdir -p "$w/fake"
# shellcheck disable=SC2086
$CC $flags -fPIC -shared -o "$w/fake/libsanitizer-public.so" "$here/double/fake_sanitizer.c"
# shellcheck disable=SC2086
$CC $flags -rdynamic -o "$w/fake_app" "$here/double/fake_app.c" \
  -L"$w/fake" -lsanitizer-public
set +e
fails=0
check() { # WHAT SQL EXPECTED
  got=$(sqlite3 "$w/fp.clfp" "$2" 2>&1)
  if [ "$got" = "$3" ]; then echo "ok: $1"; else
    echo "FAIL: $1: got '$got', want '$3'"; fails=$((fails + 1)); fi
}
rm -f "$w/fp.clfp"
timeout 60 env LD_LIBRARY_PATH="$w/fake" LD_PRELOAD="$w/collector/libcudalens-footprint.so" \
  CUDALENS_SANITIZER_LIB="$w/fake/libsanitizer-public.so" \
  CUDALENS_FOOTPRINT_OUTPUT="$w/fp.clfp" CUDALENS_FOOTPRINT_PATCHES=/dev/null \
  "$w/fake_app" >"$w/app.out" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: fake_app exited $rc"; cat "$w/app.out"; fails=$((fails + 1)); }
check "format" "SELECT value FROM meta WHERE key='format'" "cudalens-footprint"
check "halfwrite" "SELECT group_concat(param||':'||kind||':'||lo||':'||hi||':'||exact, ' ') FROM (SELECT * FROM fp_ranges WHERE name='fp_halfwrite' ORDER BY param, kind)" \
  "0:write:0:8192:1 1:read:0:16384:1"
check "gather" "SELECT group_concat(param||':'||kind||':'||lo||':'||hi, ' ') FROM (SELECT * FROM fp_ranges WHERE name='fp_gather' ORDER BY param, kind)" \
  "0:write:0:256 1:read:0:8"
check "gather through the table" "SELECT kind||':'||alloc_size||':'||alloc_index||':'||lo||':'||hi FROM fp_unattributed WHERE name='fp_gather'" \
  "read:256:1:0:256"
check "atomic" "SELECT group_concat(param||':'||kind||':'||lo||':'||hi, ' ') FROM fp_ranges WHERE name='fp_atomic'" \
  "0:atomic:0:4"
check "kernels" "SELECT group_concat(name||':'||launches||':'||instrumented||':'||unattributed, ' ') FROM (SELECT * FROM fp_kernels ORDER BY name)" \
  "fp_atomic:1:1:0 fp_gather:1:1:1 fp_halfwrite:1:1:0"
# without the Sanitizer library: one line, the program unchanged
rm -f "$w/fp2.clfp"
timeout 60 env LD_LIBRARY_PATH="$w/fake" LD_PRELOAD="$w/collector/libcudalens-footprint.so" \
  CUDALENS_SANITIZER_LIB="$w/nowhere/libsanitizer-public.so" \
  CUDALENS_FOOTPRINT_OUTPUT="$w/fp2.clfp" "$w/fake_app" >"$w/app2.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^check ok' "$w/app2.out" && [ ! -e "$w/fp2.clfp" ]; then
  echo "ok: without the Sanitizer library the program runs unchanged"
else echo "FAIL: without the Sanitizer library: rc=$rc"; cat "$w/app2.out"; fails=$((fails + 1)); fi
echo "$fails failed"
[ "$fails" -eq 0 ]
