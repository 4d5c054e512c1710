#!/bin/sh
# collector_selftest.sh - libcudalens-footprint.so (footprint/collector.c)
# against the TEST DOUBLE of the Sanitizer library (double/: never
# shipped), without a GPU: fake_app plays fp_test's three kernels through
# the Sanitizer's callbacks, and the footprint file the collector writes at
# exit must hold their footprints (sqlite3), as fp_test's are on a GPU;
# then a training loop through the same double, which must run patched code
# only around its sampled launches (the collector unpatches modules between
# them) with the same footprints:
#   tests/gpu/footprint/collector_selftest.sh SANITIZER_DIR WORKDIR [BUILDDIR]
# SANITIZER_DIR as for selftest.sh (include/sanitizer.h); BUILDDIR: a built
# cudalens (its .libs/libcudalens-sqlite.so).  Needs nvcc (the patches are
# built too) and sqlite3.
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
sh "$top/footprint/build.sh" "$san/include" "$w/collector" "${3:-$top}" >/dev/null
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
# a full buffer: the patches stop counting but say that accesses were
# dropped (the double's access_() does as patches.cu's record()); with room
# for 256 accesses, fp_atomic's 256 and fp_gather's 192 are whole (exact),
# fp_halfwrite's 6144 are not
rm -f "$w/cap.clfp"
timeout 60 env LD_LIBRARY_PATH="$w/fake" LD_PRELOAD="$w/collector/libcudalens-footprint.so" \
  CUDALENS_SANITIZER_LIB="$w/fake/libsanitizer-public.so" CUDALENS_FOOTPRINT_CAPACITY=256 \
  CUDALENS_FOOTPRINT_OUTPUT="$w/cap.clfp" CUDALENS_FOOTPRINT_PATCHES=/dev/null \
  "$w/fake_app" >"$w/cap.out" 2>&1 || { echo "FAIL: cap: fake_app exited"; fails=$((fails + 1)); }
got=$(sqlite3 "$w/cap.clfp" "SELECT group_concat(name||':'||e, ' ') FROM (SELECT name, min(exact) AS e FROM fp_ranges GROUP BY name ORDER BY name)" 2>&1)
want="fp_atomic:1 fp_gather:1 fp_halfwrite:0"
[ "$got" = "$want" ] && echo "ok: full buffer: exact only where nothing was dropped" ||
  { echo "FAIL: full buffer: got '$got', want '$want'"; fails=$((fails + 1)); }
# the cost: a training loop, fp_halfwrite 100 times.  Sampled: launches
# 1-4, 8, 16, 32, 64.  Every module patched for good (as before, and with
# CUDALENS_FOOTPRINT_UNPATCH=0), all 100 launches run patched code; the
# collector keeps a module patched only for its sampled launches: 8 of 100,
# with the same footprints.
loop() { # NAME K ENV...: the loop, the stream synchronized every K launches
  name=$1 k=$2; shift 2
  rm -f "$w/$name.clfp"
  timeout 60 env LD_LIBRARY_PATH="$w/fake" LD_PRELOAD="$w/collector/libcudalens-footprint.so" \
    CUDALENS_SANITIZER_LIB="$w/fake/libsanitizer-public.so" CUDALENS_DEBUGLEVEL=1 \
    CUDALENS_FOOTPRINT_OUTPUT="$w/$name.clfp" CUDALENS_FOOTPRINT_PATCHES=/dev/null \
    "$@" "$w/fake_app" loop 100 "$k" >"$w/$name.out" 2>&1 ||
    { echo "FAIL: $name: fake_app exited $?"; cat "$w/$name.out"; fails=$((fails + 1)); }
}
has() { # WHAT FILE TEXT
  if grep -qF -- "$3" "$2"; then echo "ok: $1"; else
    echo "FAIL: $1: no '$3' in:"; cat "$2"; fails=$((fails + 1)); fi
}
same() { # WHAT FILE WANT: fp_halfwrite's ranges and counts
  got=$(sqlite3 "$2" "SELECT group_concat(param||':'||kind||':'||lo||':'||hi||':'||exact, ' ') FROM (SELECT * FROM fp_ranges WHERE name='fp_halfwrite' ORDER BY param, kind)" \
    "SELECT launches||':'||instrumented FROM fp_kernels WHERE name='fp_halfwrite'" 2>&1 | tr '\n' ' ')
  if [ "$got" = "$3" ]; then echo "ok: $1"; else
    echo "FAIL: $1: got '$got', want '$3'"; fails=$((fails + 1)); fi
}
want="0:write:0:8192:1 1:read:0:16384:1 100:8 "
# a program synchronizing every 10 launches: the collector waits at the
# launch after each sampled one (5, 9, 17, 33, 65), reads back and
# unpatches, and waits again before patching for 8, 16, 32, 64 (the
# launches before them ran unpatched): 9 waits
loop cost 10 env
has "unpatched between samples: 8 of 100 launches patched" "$w/cost.out" \
  "fake: 100 launches, 8 ran patched code, 5 patch calls, 5 unpatch calls"
has "cost line" "$w/cost.out" \
  "cudalens: footprint cost: 100 launches, 8 ran patched code, 8 instrumented, 0 lost (0 read back at the program's synchronizations, 8 by the collector), 0 skipped; modules: 1 patched at load, 5 unpatched, 4 patched again; 9 stream waits for patching"
same "footprints, unpatched between samples" "$w/cost.clfp" "$want"
# a program synchronizing after each launch: read back and unpatched at its
# synchronizations, patched again at each sampled launch, no wait of the
# collector's own
loop step 1 env
has "read back at the program's synchronizations" "$w/step.out" \
  "8 instrumented, 0 lost (8 read back at the program's synchronizations, 0 by the collector), 0 skipped; modules: 1 patched at load, 8 unpatched, 7 patched again; 0 stream waits"
has "8 of 100 patched" "$w/step.out" "fake: 100 launches, 8 ran patched code"
same "footprints, read back at synchronizations" "$w/step.clfp" "$want"
# CUDALENS_FOOTPRINT_PENDING=0: read back at each launch's end
loop now 1 env CUDALENS_FOOTPRINT_PENDING=0
has "CUDALENS_FOOTPRINT_PENDING=0: each read back at its end" "$w/now.out" \
  "8 instrumented, 0 lost (0 read back at the program's synchronizations, 8 by the collector)"
same "footprints, read back at once" "$w/now.clfp" "$want"
# CUDALENS_FOOTPRINT_UNPATCH=0: patched for good
loop keep 10 env CUDALENS_FOOTPRINT_UNPATCH=0
has "CUDALENS_FOOTPRINT_UNPATCH=0: all 100 patched" "$w/keep.out" \
  "fake: 100 launches, 100 ran patched code, 1 patch calls, 0 unpatch calls"
same "footprints, modules kept patched" "$w/keep.clfp" "$want"
# CUDALENS_FOOTPRINT_SPARSE=0: the first 4, then unpatched for good
loop first 10 env CUDALENS_FOOTPRINT_SPARSE=0
has "CUDALENS_FOOTPRINT_SPARSE=0: 4 patched" "$w/first.out" \
  "fake: 100 launches, 4 ran patched code, 1 patch calls, 1 unpatch calls"
# a Sanitizer where a module patched in LAUNCH_BEGIN runs patched only from
# the next launch (an unpatch too): launch 5 still runs patched, launch 8
# unpatched records nothing and is not taken as a footprint, and the module
# stays patched from then on (launches 9-100: 97 of 100), the footprints
# whole
loop late 10 env FAKE_LATE_PATCH=1
has "late re-patch: launch 8 lost, then kept patched" "$w/late.out" \
  "7 instrumented, 1 lost"
has "late re-patch: 1-5 and 9-100 patched" "$w/late.out" \
  "fake: 100 launches, 97 ran patched code, 2 patch calls, 1 unpatch calls"
same "footprints, late re-patch" "$w/late.clfp" "0:write:0:8192:1 1:read:0:16384:1 100:7 "
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
