#!/bin/sh
# launch_pages.sh - the distinct data pages libcudalens.so's own code touches
# per kernel launch, without a GPU (issue 25): bench/launch_mix.cu's `torch`
# launches on the simulated runtime (tests/sim, a test double) under
# Valgrind's lackey, which traces every memory access; launch_pages.py
# counts, launch by launch, the pages the shim's instructions read or
# write, and lists one median launch's pages by mapping and variable.  A
# call's cost on the GPU machines is mostly the cache lines and pages the
# program's own work evicted between two calls (bench/README.md, sessions
# 8-11): the pages are TLB entries, which a virtual machine's nested page
# walks make dear.  The writer is kept asleep (CUDALENS_FLUSH_MS) so that
# its accesses do not count.  Slow: ~1 minute and ~500 MB of trace for
# the default 60 launches.
#   bench/launch_pages.sh BUILD_DIR [N]
#   SHIM=/other/libcudalens.so bench/launch_pages.sh BUILD_DIR   (compare)
set -eu
build=$(cd "${1:?usage: launch_pages.sh BUILD_DIR [N]}" && pwd)
n=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
shim=$(cd "$(dirname "${SHIM:-$build/.libs/libcudalens.so}")" && pwd)/$(basename "${SHIM:-libcudalens.so}")
sim=$build/tests/sim/lib
[ -e "$sim/libcudart.so.13" ] || { echo "no sim in $build (make sim)" >&2; exit 1; }
[ -r "$shim" ] || { echo "no shim at $shim" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${NVCC:-nvcc} -O2 -arch=sm_90 -cudart shared "$here/launch_mix.cu" -o "$tmp/launch_mix"
# the process's mappings, written at its exit (lackey's trace has addresses only)
cat >"$tmp/maps.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((destructor)) static void dump(void)
{
  const char *out = getenv("LAUNCH_PAGES_MAPS");
  FILE *in = fopen("/proc/self/maps", "r"), *o = out ? fopen(out, "w") : NULL;
  int c;
  while (in && o && (c = getc(in)) != EOF)
    putc(c, o);
  if (in)
    fclose(in);
  if (o)
    fclose(o);
}
C
${CC:-cc} -shared -fPIC -O2 "$tmp/maps.c" -o "$tmp/maps.so"
env LD_LIBRARY_PATH="$sim" LD_PRELOAD="$shim $tmp/maps.so" LAUNCH_PAGES_MAPS="$tmp/maps" \
  CUDALENS_FLUSH_MS=60000 CUDALENS_OUTPUT="$tmp/m-%p.db" \
  valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/trace" \
  "$tmp/launch_mix" torch "$n" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
echo "shim $shim, $n launches (launch_mix torch, the sim)"
python3 "$here/launch_pages.py" "$tmp/trace" "$tmp/maps" "$shim"
