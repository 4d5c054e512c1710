#!/bin/sh
# kit.sh - packs what the GPU scripts of tests/gpu need, built on this
# machine (which has nvcc but no GPU), so that the GPU machine compiles
# nothing: the device tool carries one folder, and the scripts there take
# their programs from it (CL_GPU_KIT).
#
#   tests/gpu/kit.sh BUILD_DIR KIT_DIR
#
# BUILD_DIR is a configured cudalens tree after `make check` (so that the
# test programs of tests/ exist: nvcc builds them for sm_90 with the shared
# cudart).  KIT_DIR receives:
#   build/    the build tree's executables, shared libraries and fatbins at
#             their paths (.libs/libcudalens.so, cudalens-report, tests/dbcheck,
#             tests/races/..., tests/capture/hostile..., where built
#             .libs/libcudalens-footprint.so and its patches), without objects;
#             usable as CL_TOP_BUILDDIR and as BUILD_DIR of the GPU scripts
#   build/lib-extra/  libdw.so.1 and libelf.so.1 of this machine (the two
#             must be of one elfutils release; the GPU machine has another)
#   static/races/, static/semantics/  the two catalogues again, linked with
#             the static cudart (nvcc's default, what CMake projects get)
#   apps-shared/, apps-static/  tests/apps built by tests/apps/build.sh
#   nccl/     the NCCL programs of tests/nccl built against the real NCCL
#             (NCCL_HOME: a folder with include/nccl.h and lib/libnccl.so.2,
#             such as nvidia/nccl of the nvidia-nccl-cu13 wheel unpacked;
#             left out without it), for tests/gpu/nccl.sh.  NCCL itself is
#             not copied: the GPU machine has its own.
# Environment: CUDA_HOME, NVCC, ARCH as in tests/apps/build.sh; JOBS
# (parallel nvcc runs, default 2); NCCL_HOME.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR KIT_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
mkdir -p "$2"
kit=$(cd "$2" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
ARCH=${ARCH:--arch=sm_90}
JOBS=${JOBS:-2}
export CUDA_HOME NVCC ARCH
[ -e "$build/.libs/libcudalens.so" ] || { echo "$0: $build is not built" >&2; exit 2; }

# ---- the build tree, executables and shared objects only --------------------
rm -rf "$kit/build"
mkdir -p "$kit/build/lib-extra"
# (the kit itself left out when it lies inside the build tree, and the
# usual kit folders)
case $kit in "$build"/*) inside=./${kit#"$build"/} ;; *) inside=./.gpukit ;; esac
(cd "$build" && find . \( -path "$inside" -o -path ./.gpukit -o -path ./.gpucarry \) \
   -prune -o -type f \
   \( -perm -u+x -o -name '*.so' -o -name '*.so.*' -o -name '*.fatbin' \) \
   ! -name '*.o' ! -name '*.lo' ! -name '*.la' ! -name '*.sh' ! -name '*.test' \
   ! -name '*.py' ! -name 'config.*' ! -name configure \
   ! -name libtool ! -name autogen.sh ! -path './build-aux/*' \
   ! -path './autom4te.cache/*' ! -path './.git/*' -print) |
  while read -r f; do
    case $(head -c 4 "$build/$f" | od -An -c | tr -d ' ') in
      177ELF) ;;
      P355U272) ;; # a fatbin: the footprint collector's patches, beside it
      *) continue ;; # a libtool wrapper script or a source file
    esac
    mkdir -p "$kit/build/$(dirname "$f")"
    cp -p "$build/$f" "$kit/build/$f"
  done
for lib in libdw.so.1 libelf.so.1; do
  p=$(ldd "$build/cudalens-report" | awk -v l="$lib" '$1 == l { print $3 }')
  [ -n "$p" ] && cp -L "$p" "$kit/build/lib-extra/$lib"
done

# ---- the catalogues with the static cudart ----------------------------------
for suite in races semantics; do
  mkdir -p "$kit/static/$suite"
  for src in "$top"/tests/$suite/*.cu; do
    # programs linked with a library of the tests (`// needs:`) stay shared
    grep -q '^// needs:' "$src" || echo "$suite $(basename "$src" .cu)"
  done
done | T=$top K=$kit xargs -P "$JOBS" -n 2 sh -c '
  # `// link: FLAGS`: what the program links besides the runtime (-lcuda)
  link=$(sed -n "s|^// link: *||p" "$T/tests/$0/$1.cu")
  [ -n "$link" ] && link="-L$CUDA_HOME/lib64/stubs $link"
  "$NVCC" -g -lineinfo $ARCH --no-compress -cudart static -I"$T/tests/races" \
    -I"$T/tests/apps" "$T/tests/$0/$1.cu" -o "$K/static/$0/$1" -lpthread $link ||
  echo "$0/$1: nvcc failed" >&2'

# ---- the NCCL programs, against the real nccl.h ------------------------------
rm -rf "$kit/nccl" "$kit/build/tests/nccl/lib" # the test double stays here
if [ -n "${NCCL_HOME:-}" ] && [ -e "$NCCL_HOME/include/nccl.h" ]; then
  mkdir -p "$kit/nccl"
  nccl_flags="-g -lineinfo $ARCH --no-compress -cudart shared -I$NCCL_HOME/include \
    -I$top/tests/races -I$top/tests/apps"
  for src in "$top"/tests/nccl/*.cu "$top"/tests/nccl/nccl_plugin.cpp; do
    name=$(basename "$src" .cu)
    out=$kit/nccl/$name extra= lnccl="-L$NCCL_HOME/lib -Xlinker -l:libnccl.so.2"
    case $name in
      nccl_plugin.cpp) out=$kit/nccl/libnccl_plugin.so extra="-x cu -shared -Xcompiler -fPIC" ;;
      no_nccl|dlopen_nccl) lnccl= ;; # NCCL comes by dlopen, or not at all
    esac
    # shellcheck disable=SC2086
    "$NVCC" $nccl_flags $extra "$src" -o "$out" -ldl $lnccl ||
      echo "nccl/$name: nvcc failed" >&2
  done
fi

# ---- the sample apps ----------------------------------------------------------
for mode in shared static; do
  sh "$top/tests/apps/build.sh" "$kit/apps-$mode" "$mode" >/dev/null
done
du -sh "$kit"
