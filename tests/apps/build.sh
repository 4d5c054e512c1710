#!/bin/sh
# build.sh - builds the cudalens sample apps standalone (e.g. on the GPU
# machine), with the shared cudart (what the simulated CUDA of tests/sim
# needs, and what LD_PRELOAD interposition needs) or nvcc's default static
# cudart (CUPTI sees both).
#
#   tests/apps/build.sh OUTDIR [shared|static]
#
# Environment: CUDA_HOME (default /usr/local/cuda), NVCC, ARCH (default
# -arch=sm_90), APPS (the apps to build, default all; driver_api is one of
# them; builds into different OUTDIRs, or of different APPS into one, may
# run in parallel).  Device code is left uncompressed (--no-compress) so
# that the simulator can read kernel parameter layouts out of the fatbin.
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 OUTDIR [shared|static]" >&2
    exit 2
fi
out=$1
mode=${2:-shared}
case $mode in shared|static) ;; *) echo "$0: mode must be shared or static" >&2; exit 2;; esac
here=$(cd "$(dirname "$0")" && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
ARCH=${ARCH:--arch=sm_90}
flags="-g -lineinfo $ARCH --no-compress -cudart $mode"
APPS=${APPS:-basic streams pinned kernel_args multidev managed_async threads fork_exec driver_api}
mkdir -p "$out"
for app in $APPS; do
    [ "$app" = driver_api ] && continue
    echo "  NVCC $out/$app"
    $NVCC $flags -I"$here" "$here/$app.cu" -o "$out/$app" -lpthread
done
case " $APPS " in *" driver_api "*) ;; *) exit 0 ;; esac
echo "  NVCC $out/driver_api"
$NVCC -fatbin $ARCH --no-compress "$here/driver_kernels.cu" -o "$out/driver_kernels.fatbin"
"$CUDA_HOME/bin/bin2c" --name driver_kernels_fatbin --type longlong --const \
    "$out/driver_kernels.fatbin" > "$out/driver_kernels_fatbin.h"
$NVCC -g $ARCH -cudart none -I"$out" "$here/driver_api.cpp" -o "$out/driver_api" \
    -L"$CUDA_HOME/lib64/stubs" -lcuda
