#!/bin/sh
# build.sh - builds the footprint probe of issue 23 on a machine without a
# GPU (nvcc for sm_90), into one folder the GPU machine runs it from:
#   tests/gpu/footprint/build.sh SANITIZER_DIR OUTDIR
# SANITIZER_DIR holds include/sanitizer.h and lib/libsanitizer-public.so (the
# nvidia-cuda-sanitizer-api wheel unpacked: nvidia/cu13) or is a toolkit's
# compute-sanitizer folder (sanitizer.h under include/, the library beside).
# OUTDIR receives libclfootprint_probe.so, footprint_patches.fatbin, fp_test
# and sanitizer/libsanitizer-public.so (a fallback for a GPU machine without
# compute-sanitizer; never committed).  Environment: CUDA_HOME, NVCC, CC,
# ARCH (default sm_90).
set -eu
[ $# -eq 2 ] || { echo "usage: $0 SANITIZER_DIR OUTDIR" >&2; exit 2; }
san=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
CC=${CC:-gcc}
ARCH=${ARCH:-sm_90}
lib=$san/lib
[ -e "$lib/libsanitizer-public.so" ] || lib=$san
[ -e "$lib/libsanitizer-public.so" ] || { echo "$0: no libsanitizer-public.so in $san" >&2; exit 2; }
cc=$(echo "$ARCH" | sed 's/^sm_//')

# the patches: device functions compiled as a tools patch (SASS for ARCH)
"$NVCC" --fatbin --keep-device-functions -Xptxas --compile-as-tools-patch \
  -gencode "arch=compute_$cc,code=$ARCH" -I"$san/include" -I"$top/footprint" \
  -o "$out/footprint_patches.fatbin" "$top/footprint/patches.cu"
# the probe: C, warnings on, nothing exported but what it means to
"$CC" -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
  -I"$CUDA_HOME/include" -I"$san/include" -I"$here" -I"$top/footprint" \
  -o "$out/libclfootprint_probe.so" "$here/probe.c" "$here/probe_cupti.c" \
  -L"$lib" -lsanitizer-public -ldl -lpthread
# the test program: shared cudart, as most programs are built
"$NVCC" -arch="$ARCH" -cudart shared -Xcompiler -Wall,-Wextra -Werror all-warnings \
  -o "$out/fp_test" "$here/fp_test.cu"
mkdir -p "$out/sanitizer"
cp -p "$lib/libsanitizer-public.so" "$out/sanitizer/"
ls -l "$out" "$out/sanitizer"
