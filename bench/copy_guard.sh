#!/bin/sh
# copy_guard.sh - what the host check costs per async copy, without a GPU
# (issue 25): bench/copy_bound.cu built with nvcc against the simulated
# runtime (tests/sim, a test double, with CUDALENS_SIM_DMA=1: its copies
# pass the CPU's page protection as a GPU's DMA does) and run under the
# shim with the check on (eager, the default, and CUDALENS_HOSTGUARD=lazy)
# and off.  Prints, per copy of the loop: the
# mprotect calls (strace), those that changed some page's protection, the
# rt_sigaction calls, and the shim's instructions (callgrind, when valgrind
# is there).  Times under the sim are not the GPU's: see bench/README.md.
#   bench/copy_guard.sh BUILD_DIR [ROUNDS]      (ROUNDS default 500)
#   SHIM=/other/libcudalens.so bench/copy_guard.sh BUILD_DIR   (compare)
set -eu
build=$(cd "${1:?usage: copy_guard.sh BUILD_DIR [ROUNDS]}" && pwd)
rounds=${2:-500}
here=$(cd "$(dirname "$0")" && pwd)
shim=${SHIM:-$build/.libs/libcudalens.so}
sim=$build/tests/sim/lib
[ -e "$sim/libcudart.so.13" ] || { echo "no sim in $build (make sim)" >&2; exit 1; }
command -v strace >/dev/null || { echo "needs strace" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${NVCC:-nvcc} -O2 -arch=sm_90 -cudart shared "$here/copy_bound.cu" -o "$tmp/copy_bound"
copies=$((2 * rounds + 4)) # the loop and the warm-up

run() { # HOSTGUARD [TOOL...]
  hg=$1
  shift
  env LD_LIBRARY_PATH="$sim" LD_PRELOAD="$shim" CUDALENS_SIM_DMA=1 \
    CUDALENS_HOSTGUARD="$hg" CUDALENS_OUTPUT="$tmp/cb-%p.db" "$@" >/dev/null
}
for hg in 1 lazy 0; do
  run $hg strace -f -qq -e trace=mprotect,rt_sigaction -o "$tmp/trace.$hg" "$tmp/copy_bound" "$rounds"
  python3 - "$tmp/trace.$hg" >"$tmp/calls.$hg" <<'PY'
import re, sys
prot, n, changed, sig = {}, 0, 0, 0
for line in open(sys.argv[1]):
    if "rt_sigaction(" in line:
        sig += 1
        continue
    m = re.search(r"mprotect\((0x[0-9a-f]+), (\d+), ([A-Z_|]+)\) = 0", line)
    if not m:
        continue
    a, size, p = int(m.group(1), 16), int(m.group(2)), m.group(3)
    n += 1
    pages = range(a >> 12, (a + size + 4095) >> 12)
    changed += any(prot.get(q, "PROT_READ|PROT_WRITE") != p for q in pages)
    for q in pages:
        prot[q] = p
print(n, changed, sig)
PY
  ir=-
  if command -v valgrind >/dev/null; then
    run $hg valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$hg" "$tmp/copy_bound" "$rounds" 2>/dev/null
    ir=$(callgrind_annotate --threshold=100 "$tmp/cg.$hg" |
      awk '/libcudalens\.so\]/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
  fi
  echo "$(cat "$tmp/calls.$hg") $ir" >"$tmp/sum.$hg"
done
read -r m0 c0 s0 i0 <"$tmp/sum.0"
echo "copy_bound $rounds rounds ($copies copies) under the sim, shim $shim"
for hg in 1 lazy 0; do
  read -r m c s i <"$tmp/sum.$hg"
  echo "  CUDALENS_HOSTGUARD=$hg: mprotect $m (changing $c), rt_sigaction $s, shim instructions $i"
done
for hg in 1 lazy; do
  read -r m1 c1 s1 i1 <"$tmp/sum.$hg"
  awk -v hg=$hg -v c=$copies -v m=$((m1 - m0)) -v ch=$((c1 - c0)) -v s=$((s1 - s0)) -v i1="$i1" -v i0="$i0" 'BEGIN {
    printf "  the check (%s), per copy: %.2f mprotect (%.2f changing a page), %.2f rt_sigaction", hg, m / c, ch / c, s / c
    if (i1 != "-") printf ", %.0f shim instructions", (i1 - i0) / c
    printf "\n" }'
done
