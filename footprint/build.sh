#!/bin/sh
# build.sh - builds libcudalens-footprint.so, the footprint collector
# (collector.c, fp_summary.c; cudalens run --footprint), and its device
# patches, on a machine with or without a GPU:
#   footprint/build.sh SANITIZER_INCLUDE OUTDIR [BUILDDIR]
# SANITIZER_INCLUDE holds NVIDIA's sanitizer.h (a toolkit's
# compute-sanitizer/include, or the nvidia-cuda-sanitizer-api wheel's
# nvidia/cu13/include); the library itself is loaded at run time
# (CUDALENS_SANITIZER_LIB), not linked.  OUTDIR receives
# libcudalens-footprint.so, cudalens-footprint-patches.fatbin (nvcc, ARCH,
# default sm_90) and, from BUILDDIR (default: the source tree's build), the
# libcudalens-sqlite.so it writes the footprint file with.  Environment:
# CUDA_HOME, NVCC, CC, ARCH.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 SANITIZER_INCLUDE OUTDIR [BUILDDIR]" >&2; exit 2; }
inc=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${3:-$top}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
CC=${CC:-gcc}
ARCH=${ARCH:-sm_90}
cc=$(echo "$ARCH" | sed 's/^sm_//')
[ -e "$inc/sanitizer.h" ] || { echo "$0: no sanitizer.h in $inc" >&2; exit 2; }

# the patches: device functions compiled as a tools patch (SASS for ARCH)
"$NVCC" --fatbin --keep-device-functions -Xptxas --compile-as-tools-patch \
  -gencode "arch=compute_$cc,code=$ARCH" -I"$inc" -I"$here" \
  -o "$out/cudalens-footprint-patches.fatbin" "$here/patches.cu"
# the collector: hidden visibility, warnings are errors
"$CC" -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
  -I"$top/include" -I"$top/shim" -I"$here" -I"$CUDA_HOME/include" -I"$inc" \
  -o "$out/libcudalens-footprint.so" "$here/collector.c" "$here/fp_summary.c" \
  "$top/common/format.c" "$top/common/tables.c" -ldl -lpthread
sqlite=$build/.libs/libcudalens-sqlite.so
if [ -e "$sqlite" ]; then
  cp -pL "$sqlite" "$out/libcudalens-sqlite.so"
else
  echo "$0: no $sqlite (build cudalens first); put libcudalens-sqlite.so beside the collector" >&2
fi
ls -l "$out"
