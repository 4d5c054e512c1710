#!/bin/sh
# run-all.sh - every C-program check of tests/gpu on a GPU machine, from a
# kit built elsewhere (tests/gpu/kit.sh): nothing is compiled here.
#
#   tests/gpu/run-all.sh KIT_DIR OUTDIR [LANE...]
#
# Lanes (default all), run side by side, each into OUTDIR/LANE.log:
#   real      tests/capture, tests/signals and tests/hostsync .test scripts
#             against the real runtime (realtests.sh)
#   races     the race and semantics catalogues, shared and static cudart,
#             and the PyTorch race cases (races.sh)
#   suite     capture suite of tests/apps, shared and static (run-gpu-suite.sh),
#             then transfers.sh, hostsync.sh and managed.sh
#   vmm       mapped memory and access rights (tests/vmm, its peer programs
#             on 2 GPUs) and the PyTorch race cases with expandable
#             segments beside the default allocator (vmm.sh)
#   hostfn    host functions and small buffers, JAX and CuPy (hostfn.sh;
#             not run by default)
# OUTDIR/summary.txt gets each lane's verdict lines.  Exit 0 when all passed.
set -u
[ $# -ge 2 ] || { echo "usage: $0 KIT_DIR OUTDIR [LANE...]" >&2; exit 2; }
kit=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$kit/build
CL_GPU_KIT=$kit
export CL_GPU_KIT
lanes=${*:-real races suite vmm}
lane() {
  case $1 in
  real)
    sh "$here/realtests.sh" "$build" "$out/real" \
      $(cd "$top" && ls tests/capture/*.test tests/signals/*.test tests/hostsync/*.test) ;;
  races)
    LD_LIBRARY_PATH=$build/lib-extra TMPDIR=$out sh "$here/races.sh" "$build" ;;
  suite)
    sh "$here/run-gpu-suite.sh" "$build" "$out/suite"
    sh "$here/transfers.sh" "$build" "$out/transfers"
    sh "$here/hostsync.sh" "$build" "$out/hostsync"
    sh "$here/managed.sh" "$build" "$out/managed" ;;
  vmm)
    TMPDIR=$out sh "$here/vmm.sh" "$build" ;;
  hostfn)
    sh "$here/hostfn.sh" "$build" "$out/hostfn" ;;
  *) echo "unknown lane $1" ;;
  esac
}
for l in $lanes; do
  (t0=$(date +%s); lane "$l" >"$out/$l.log" 2>&1; rc=$?
   echo "$l: exit $rc in $(($(date +%s) - t0)) s" >>"$out/summary.txt") &
done
wait
cat "$out/summary.txt"
! grep -qv ': exit 0 ' "$out/summary.txt"
