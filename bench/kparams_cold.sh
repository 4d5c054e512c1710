#!/bin/sh
# kparams_cold.sh - the kernel-parameters phase (kparams.c's scan) per
# launch, in ns, with warm and with cold caches, without a GPU (issue 25):
# bench/launch_mix.cu's `torch` launches (79 words, 2 map searches, 19
# host-code lookups, as PyTorch's on the H100) on the simulated runtime
# (tests/sim, a test double), with LIBS tiny objects loaded (PyTorch loads a
# few hundred), under a selftime build of the shim (bench/selftime.sh
# build).  Cold: the benchmark writes EVICT MiB of its own memory before
# each launch, so that the shim's data is no longer in the caches, as
# between two CUDA calls of a Python program, where the cost of a call is
# about the distinct cache lines it touches (bench/README.md, "Cold
# caches").  Prints, for each shim, warm and cold, the median of RUNS runs
# and every run's selftime line; with several shims (before and after),
# each round runs each of them once, in turn, so that the machine's
# drifts hit all alike.
#   bench/kparams_cold.sh BUILD_DIR SELFTIME_SHIM [SELFTIME_SHIM...]
#   N=2000 EVICT=32 LIBS=300 RUNS=5 (defaults)
set -eu
build=$(cd "${1:?usage: kparams_cold.sh BUILD_DIR SELFTIME_SHIM}" && pwd)
[ $# -ge 2 ] || { echo "usage: kparams_cold.sh BUILD_DIR SELFTIME_SHIM..." >&2; exit 2; }
shift
here=$(cd "$(dirname "$0")" && pwd)
sim=$build/tests/sim/lib
n=${N:-2000} evict=${EVICT:-32} libs=${LIBS:-300} runs=${RUNS:-5}
[ -e "$sim/libcudart.so.13" ] || { echo "no sim in $build (make sim)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${NVCC:-nvcc} -O2 -arch=sm_90 -cudart shared "$here/launch_mix.cu" -o "$tmp/launch_mix"
mkdir "$tmp/libs"
echo 'int launch_mix_lib_fn(int x) { return x * 3 + 1; }' >"$tmp/lib.c"
${CC:-cc} -shared -fPIC -O2 "$tmp/lib.c" -o "$tmp/lib.so"
i=0
while [ "$i" -lt "$libs" ]; do
  cp "$tmp/lib.so" "$tmp/libs/l$i.so"  # one object each: other files
  i=$((i + 1))
done
for mib in 0 "$evict"; do
  r=0
  while [ "$r" -lt "$runs" ]; do
    k=0
    for shim in "$@"; do
      k=$((k + 1))
      env LD_LIBRARY_PATH="$sim" LAUNCH_MIX_LIBS="$tmp/libs" LAUNCH_MIX_EVICT_MIB="$mib" \
        CUDALENS_OUTPUT="$tmp/m-%p.db" "$here/selftime.sh" run "$shim" \
        "$tmp/launch_mix" torch "$n" >"$tmp/out" 2>"$tmp/err" ||
        { cat "$tmp/out" "$tmp/err" >&2; exit 1; }
      rm -f "$tmp"/m-*.db
      grep "kernel parameters" "$tmp/out" >>"$tmp/kp.$mib.$k"
    done
    r=$((r + 1))
  done
done
for mib in 0 "$evict"; do
  [ "$mib" = 0 ] && what=warm || what="cold ($mib MiB written before each launch)"
  k=0
  for shim in "$@"; do
    k=$((k + 1))
    med=$(awk '{ print $3 * 1000 }' "$tmp/kp.$mib.$k" |
          awk "$(cat "$here/stats.awk")"'{ v[NR] = $1 } END { printf "%.0f", median(v, NR) }')
    echo "$what, $shim: kernel parameters $med ns a launch (median of $runs)"
    sed 's/^ */    /' "$tmp/kp.$mib.$k"
  done
done
