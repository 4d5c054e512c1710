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
# with libcudalens-sqlite.so beside it, is tested.  Needs sqlite3.  Then the
# settle (the collector unpatches the modules once no new kernel function
# came for CUDALENS_FOOTPRINT_SETTLE launches): "fake_app loop 2000", whose
# launches the double counts as patched or not.
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
  -L"$w/fake" -lsanitizer-public -lpthread
set +e
fails=0
db=fp
check() { # WHAT SQL EXPECTED (on $w/$db.clfp)
  got=$(sqlite3 "$w/$db.clfp" "$2" 2>&1)
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
# the settle: fake_app loop 2000 (fp_halfwrite 2,000 times, then fp_gather
# and fp_atomic once); NAME ENV...: $w/NAME.clfp, .out (stdout and stderr)
settle_run() {
  name=$1; shift
  rm -f "$w/$name.clfp"
  timeout 60 env LD_LIBRARY_PATH="$w/fake" LD_PRELOAD="$w/collector/libcudalens-footprint.so" \
    CUDALENS_SANITIZER_LIB="$w/fake/libsanitizer-public.so" \
    CUDALENS_FOOTPRINT_OUTPUT="$w/$name.clfp" CUDALENS_FOOTPRINT_PATCHES=/dev/null \
    CUDALENS_DEBUGLEVEL=1 "$@" "$w/fake_app" loop 2000 >"$w/$name.out" 2>&1
  rc=$?
  [ $rc -eq 0 ] || { echo "FAIL: fake_app loop ($name) exited $rc"; cat "$w/$name.out"; fails=$((fails + 1)); }
}
line() { # WHAT NAME PATTERN: a line of $w/NAME.out matches PATTERN (grep -E)
  if grep -Eq "$3" "$w/$2.out"; then echo "ok: $1"; else
    echo "FAIL: $1: no line '$3' in:"; cat "$w/$2.out"; fails=$((fails + 1)); fi
}
halfwrite_sql="SELECT group_concat(param||':'||offset||':'||kind||':'||lo||':'||hi||':'||exact, ' ') FROM (SELECT * FROM fp_ranges WHERE name='fp_halfwrite' ORDER BY param, offset, kind)"
settle_run s0 CUDALENS_FOOTPRINT_SETTLE=0
settle_run s100 CUDALENS_FOOTPRINT_SETTLE=100
settle_run rep CUDALENS_FOOTPRINT_SETTLE=100 CUDALENS_FOOTPRINT_REPATCH=1
settle_run late CUDALENS_FOOTPRINT_SETTLE=100 CUDALENS_FOOTPRINT_REPATCH=1 FAKE_LATE_PATCH=1
settle_run open CUDALENS_FOOTPRINT_SETTLE=100 FAKE_OPEN=60
settle_run capture CUDALENS_FOOTPRINT_SETTLE=100 FAKE_CAPTURE=90:150
# (a) SETTLE=0: every launch ran patched code (the old behaviour); 12 of
# fp_halfwrite's launches instrumented (1-4, then 8 .. 1024)
line "SETTLE=0: all 2,002 launches ran patched code, no unpatch" s0 \
  '^fake: launches=2002 patched_launches=2002 patch_calls=1 unpatch_calls=0 '
line "SETTLE=0: the cost line" s0 \
  '^cudalens: footprint: launches=2002 patched_launches=2002 instrumented=14 modules_patched=1 modules_unpatched=0 modules_repatched=0 modules_still_patched=1 modules_unknown=0 functions_missed=0 lost=0 samples_skipped=0 settles=0 stream_waits=0 errors=0$'
# SETTLE=100: launches 2..101 brought no new function: the module is
# unpatched at the entry of the next launch call (launch 103's: no launch
# of the thread open there), after a wait for stream 1 and the graph's
# stream 3 (stream 2 was destroyed); launches 103.. ran unpatched, their
# samples (128 .. 1024) skipped
line "SETTLE=100: 102 of 2,002 launches ran patched code, one unpatch" s100 \
  '^fake: launches=2002 patched_launches=102 patch_calls=1 unpatch_calls=1 '
line "SETTLE=100: two waits (8 more at instrumented launches' ends), none for the destroyed stream" s100 \
  ' waits=10 waits_destroyed=0$'
line "SETTLE=100: the cost line" s100 \
  '^cudalens: footprint: launches=2002 patched_launches=102 instrumented=8 modules_patched=1 modules_unpatched=1 modules_repatched=0 modules_still_patched=0 modules_unknown=0 functions_missed=2 lost=0 samples_skipped=4 settles=1 stream_waits=2 errors=0$'
db=s100 check "SETTLE=100: the sample in the file" "SELECT value FROM meta WHERE key='footprint_sample'" "4,1,100"
db=s0 check "SETTLE=0: fp_halfwrite's footprint" "$halfwrite_sql" \
  "0:0:write:0:8192:1 1:0:read:0:16384:1"
s0=$(sqlite3 "$w/s0.clfp" "$halfwrite_sql" 2>&1)
db=s100 check "SETTLE=100: fp_halfwrite's footprint as with SETTLE=0" "$halfwrite_sql" "$s0"
db=s100 check "SETTLE=100: fp_halfwrite 8 of 2,000 launches instrumented" \
  "SELECT launches||':'||instrumented FROM fp_kernels WHERE name='fp_halfwrite'" "2000:8"
# a launch of the module open in another thread (the 61st launch: its
# LAUNCH_BEGIN after main's 60th, its LAUNCH_END after main's 160th): the
# module is not unpatched at launch 103, but at the next look, SETTLE
# launches later (launch 203 of 2,003)
line "SETTLE=100, a launch open in another thread: unpatched only after it ended" open \
  '^fake: launches=2003 patched_launches=202 patch_calls=1 unpatch_calls=1 '
line "SETTLE=100, a launch open: the cost line" open \
  '^cudalens: footprint: launches=2003 patched_launches=202 .* modules_unpatched=1 .* settles=1 stream_waits=2 errors=0$'
# stream 1 being captured at launches 90..150: no wait at launch 103 (a
# capture may not be synchronized), the settle at launch 203 (202 of 2,002
# patched); launch 128, into the capture, not instrumented
line "SETTLE=100, a stream being captured: no wait then, unpatched later" capture \
  '^fake: launches=2002 patched_launches=202 patch_calls=1 unpatch_calls=1 waits=10 '
line "SETTLE=100, a stream being captured: the cost line" capture \
  '^cudalens: footprint: launches=2002 patched_launches=202 instrumented=8 .* modules_unpatched=1 .* settles=2 stream_waits=2 errors=0$'
# (b) fp_gather and fp_atomic, first launched after the unpatch: missed,
# no footprint (the report falls back to its guess)
db=s100 check "SETTLE=100: late functions launched, not instrumented" \
  "SELECT group_concat(name||':'||launches||':'||instrumented, ' ') FROM (SELECT * FROM fp_kernels WHERE name<>'fp_halfwrite' ORDER BY name)" \
  "fp_atomic:1:0 fp_gather:1:0"
db=s100 check "SETTLE=100: no footprint for the late functions" \
  "SELECT count(*) FROM fp_ranges WHERE name<>'fp_halfwrite'" "0"
# REPATCH=1: fp_gather's launch patches the module again (the double
# applies it at once) and is instrumented; fp_atomic runs patched
line "REPATCH=1: the module patched again for fp_gather" rep \
  '^fake: launches=2002 patched_launches=104 patch_calls=2 unpatch_calls=1 '
line "REPATCH=1: the cost line" rep \
  '^cudalens: footprint: launches=2002 patched_launches=104 instrumented=10 modules_patched=1 modules_unpatched=1 modules_repatched=1 modules_still_patched=1 modules_unknown=0 functions_missed=0 lost=0 samples_skipped=4 settles=1 stream_waits=2 errors=0$'
db=rep check "REPATCH=1: fp_gather's footprint" "SELECT group_concat(param||':'||kind||':'||lo||':'||hi, ' ') FROM (SELECT * FROM fp_ranges WHERE name='fp_gather' ORDER BY param, kind)" \
  "0:write:0:256 1:read:0:8"
db=rep check "REPATCH=1: fp_atomic's footprint" "SELECT group_concat(param||':'||kind||':'||lo||':'||hi, ' ') FROM fp_ranges WHERE name='fp_atomic'" \
  "0:atomic:0:4"
# the other reading of the documentation (a patch made in LAUNCH_BEGIN
# applies from the next launch): fp_gather's launch records nothing, lost
line "REPATCH=1, late patch: fp_gather lost, fp_atomic instrumented" late \
  ' instrumented=9 .* functions_missed=0 lost=1 '
db=late check "REPATCH=1, late patch: no footprint for fp_gather" \
  "SELECT group_concat(name||':'||launches||':'||instrumented, ' ') FROM (SELECT * FROM fp_kernels WHERE name<>'fp_halfwrite' ORDER BY name)" \
  "fp_atomic:1:1 fp_gather:1:0"
# launches naming a module never announced (MODULE_LOADED): sampled as
# before the settle (instrumented, not missed); the double runs them
# unpatched, so they record nothing
rm -f "$w/unseen.clfp"
timeout 60 env LD_LIBRARY_PATH="$w/fake" LD_PRELOAD="$w/collector/libcudalens-footprint.so" \
  CUDALENS_SANITIZER_LIB="$w/fake/libsanitizer-public.so" \
  CUDALENS_FOOTPRINT_OUTPUT="$w/unseen.clfp" CUDALENS_FOOTPRINT_PATCHES=/dev/null \
  CUDALENS_DEBUGLEVEL=1 FAKE_UNSEEN_MODULE=1 "$w/fake_app" >"$w/unseen.out" 2>&1
line "a module never announced: instrumented as before, counted" unseen \
  '^cudalens: footprint: launches=3 patched_launches=3 instrumented=3 .* modules_still_patched=1 modules_unknown=1 functions_missed=0 '
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
