#!/bin/sh
# samples_kit.sh - builds a kit of NVIDIA's public CUDA samples on a machine
# without a GPU, so that tests/gpu/nvidia_samples.sh can run them on a GPU
# machine without compiling there.  The samples are not part of cudalens:
# pass a checkout of github.com/NVIDIA/cuda-samples (Samples/ and Common/).
#
#   tests/gpu/samples_kit.sh SAMPLES_SRC KIT_DIR
#
# KIT_DIR gets one folder per sample, KIT_DIR/<name>/<name> (built with
# nvcc -O2 -g -lineinfo -arch=sm_90 -std=c++17 --extended-lambda, nothing
# stripped, with nvcc's default static cudart, as CMake builds get it) plus
# the files the sample reads at run time (data/, fatbin/PTX modules, NVRTC
# kernel sources), and KIT_DIR/samples.list: one line per sample that built,
# "<name> <args...>"; lines starting with '#' are skipped by the runner
# unless SAMPLES names them ("# extra: NAME ARGS", "# slow? NAME ARGS").
# Builds run two at a time (JOBS=N to change), niced; a sample that fails to
# build is left out and its log kept as KIT_DIR/<name>.build.log (the kit's
# runner ignores those).  Made with CUDA 13.0's nvcc on Debian 12 (glibc
# 2.36; the binaries need glibc 2.34): 103 samples in about 10 minutes on
# two cores, 156 MB, 20 MB as `tar -cJf`.  ONLY="a b" builds just those
# samples (ONLY=none: none, samples.list is written again).  The samples'
# libraries (cuBLAS, cuFFT, cuRAND, cuSPARSE, NVRTC, libgomp) are not in the
# kit: the GPU machine's CUDA provides them, of the same major version.
set -u
# name|folder under Samples|sources (empty: every .cu/.cpp/.c there)|
#   extra nvcc options and libraries|run-time files (paths in the folder;
#   fatbin:K.cu:OUT or ptx:K.cu:OUT builds a module; cg copies the CUDA
#   cooperative_groups headers and the libcu++ ones they use, for NVRTC)|
#   args for samples.list
# A name starting with '+' is built but listed as "# extra: NAME ARGS" (not
# run unless named in SAMPLES: little CUDA API use beyond one kernel and its
# copies, kept out of the default run to save GPU time); one starting with
# '#' is listed as "# slow? NAME ARGS" (might run past ~20 s).
table() {
  cat <<'EOF'
asyncAPI|0_Introduction/asyncAPI||||
+clock|0_Introduction/clock||||
clock_nvrtc|0_Introduction/clock_nvrtc|clock.cpp|-lcuda -lnvrtc|clock_kernel.cu|
cudaOpenMP|0_Introduction/cudaOpenMP||-Xcompiler -fopenmp -lgomp||
+fp16ScalarProduct|0_Introduction/fp16ScalarProduct||||
matrixMul|0_Introduction/matrixMul||||
matrixMulDrv|0_Introduction/matrixMulDrv|matrixMulDrv.cpp|-lcuda|fatbin:matrixMul_kernel.cu:matrixMul_kernel64.fatbin|
matrixMul_nvrtc|0_Introduction/matrixMul_nvrtc|matrixMul.cpp|-lcuda -lnvrtc|matrixMul_kernel.cu cg|
mergeSort|0_Introduction/mergeSort||||
+simpleAWBarrier|0_Introduction/simpleAWBarrier||||
simpleAssert|0_Introduction/simpleAssert||||
+simpleAssert_nvrtc|0_Introduction/simpleAssert_nvrtc|simpleAssert.cpp|-lcuda -lnvrtc|simpleAssert_kernel.cu|
+simpleAtomicIntrinsics|0_Introduction/simpleAtomicIntrinsics||||
+simpleAtomicIntrinsics_nvrtc|0_Introduction/simpleAtomicIntrinsics_nvrtc||-lcuda -lnvrtc|simpleAtomicIntrinsics_kernel.cuh|
simpleAttributes|0_Introduction/simpleAttributes||||
simpleCallback|0_Introduction/simpleCallback||-lpthread||
simpleCooperativeGroups|0_Introduction/simpleCooperativeGroups||||
+simpleCubemapTexture|0_Introduction/simpleCubemapTexture||||
simpleDrvRuntime|0_Introduction/simpleDrvRuntime|simpleDrvRuntime.cpp|-lcuda|fatbin:vectorAdd_kernel.cu:vectorAdd_kernel64.fatbin|
simpleHyperQ|0_Introduction/simpleHyperQ||||
simpleIPC|0_Introduction/simpleIPC|simpleIPC.cu ../../../Common/helper_multiprocess.cpp|||
+simpleLayeredTexture|0_Introduction/simpleLayeredTexture||||
simpleMultiCopy|0_Introduction/simpleMultiCopy||||
simpleOccupancy|0_Introduction/simpleOccupancy||||
simpleP2P|0_Introduction/simpleP2P||||
+simplePitchLinearTexture|0_Introduction/simplePitchLinearTexture||||
simplePrintf|0_Introduction/simplePrintf||||
simpleStreams|0_Introduction/simpleStreams||||
+simpleSurfaceWrite|0_Introduction/simpleSurfaceWrite|||data|
+simpleTemplates|0_Introduction/simpleTemplates||||
simpleTexture|0_Introduction/simpleTexture|||data|
simpleTextureDrv|0_Introduction/simpleTextureDrv|simpleTextureDrv.cpp|-lcuda|data fatbin:simpleTexture_kernel.cu:simpleTexture_kernel64.fatbin|
+simpleVoteIntrinsics|0_Introduction/simpleVoteIntrinsics||||
simpleZeroCopy|0_Introduction/simpleZeroCopy||||
systemWideAtomics|0_Introduction/systemWideAtomics||||
+template|0_Introduction/template||||
UnifiedMemoryStreams|0_Introduction/UnifiedMemoryStreams||-Xcompiler -fopenmp -lgomp -lcublas||
vectorAdd|0_Introduction/vectorAdd||||
vectorAddDrv|0_Introduction/vectorAddDrv|vectorAddDrv.cpp|-lcuda|fatbin:vectorAdd_kernel.cu:vectorAdd_kernel64.fatbin|
vectorAddMMAP|0_Introduction/vectorAddMMAP|vectorAddMMAP.cpp multidevicealloc_memmap.cpp|-lcuda|fatbin:vectorAdd_kernel.cu:vectorAdd_kernel64.fatbin|
vectorAdd_nvrtc|0_Introduction/vectorAdd_nvrtc|vectorAdd.cpp|-lcuda -lnvrtc|vectorAdd_kernel.cu|
deviceQuery|1_Utilities/deviceQuery||||
convolutionSeparable|2_Concepts_and_Techniques/convolutionSeparable||||
+convolutionTexture|2_Concepts_and_Techniques/convolutionTexture||||
+dct8x8|2_Concepts_and_Techniques/dct8x8|||data/teapot512.bmp|
+eigenvalues|2_Concepts_and_Techniques/eigenvalues|||data|
histogram|2_Concepts_and_Techniques/histogram||||
+inlinePTX|2_Concepts_and_Techniques/inlinePTX||||
+inlinePTX_nvrtc|2_Concepts_and_Techniques/inlinePTX_nvrtc|inlinePTX.cpp|-lcuda -lnvrtc|inlinePTX_kernel.cu|
+interval|2_Concepts_and_Techniques/interval||||
+MC_EstimatePiInlineP|2_Concepts_and_Techniques/MC_EstimatePiInlineP|src/main.cpp src/piestimator.cu src/test.cpp|-Iinc||
+MC_EstimatePiInlineQ|2_Concepts_and_Techniques/MC_EstimatePiInlineQ|src/main.cpp src/piestimator.cu src/test.cpp|-Iinc -lcurand||
MC_EstimatePiP|2_Concepts_and_Techniques/MC_EstimatePiP|src/main.cpp src/piestimator.cu src/test.cpp|-Iinc -lcurand||
+MC_EstimatePiQ|2_Concepts_and_Techniques/MC_EstimatePiQ|src/main.cpp src/piestimator.cu src/test.cpp|-Iinc -lcurand||
MC_SingleAsianOptionP|2_Concepts_and_Techniques/MC_SingleAsianOptionP|src/main.cpp src/pricingengine.cu src/test.cpp|-Iinc -lcurand||
radixSortThrust|2_Concepts_and_Techniques/radixSortThrust||||
reduction|2_Concepts_and_Techniques/reduction||||
reductionMultiBlockCG|2_Concepts_and_Techniques/reductionMultiBlockCG||||
+scalarProd|2_Concepts_and_Techniques/scalarProd||||
scan|2_Concepts_and_Techniques/scan||||
#segmentationTreeThrust|2_Concepts_and_Techniques/segmentationTreeThrust|||data|
+shfl_scan|2_Concepts_and_Techniques/shfl_scan||||
sortingNetworks|2_Concepts_and_Techniques/sortingNetworks||||
streamOrderedAllocation|2_Concepts_and_Techniques/streamOrderedAllocation||||
streamOrderedAllocationP2P|2_Concepts_and_Techniques/streamOrderedAllocationP2P||||
streamOrderedAllocationIPC|2_Concepts_and_Techniques/streamOrderedAllocationIPC|streamOrderedAllocationIPC.cu ../../../Common/helper_multiprocess.cpp|-lcuda||
threadFenceReduction|2_Concepts_and_Techniques/threadFenceReduction||||
threadMigration|2_Concepts_and_Techniques/threadMigration|threadMigration.cpp|-lcuda -lpthread|fatbin:threadMigration_kernel.cu:threadMigration_kernel64.fatbin|
StreamPriorities|3_CUDA_Features/StreamPriorities||||
+bf16TensorCoreGemm|3_CUDA_Features/bf16TensorCoreGemm||||
+binaryPartitionCG|3_CUDA_Features/binaryPartitionCG||||
cdpAdvancedQuicksort|3_CUDA_Features/cdpAdvancedQuicksort||-rdc=true -lcudadevrt||
+cdpBezierTessellation|3_CUDA_Features/cdpBezierTessellation||-rdc=true -lcudadevrt||
cdpQuadtree|3_CUDA_Features/cdpQuadtree||-rdc=true -lcudadevrt||
cdpSimplePrint|3_CUDA_Features/cdpSimplePrint||-rdc=true -lcudadevrt||
+cdpSimpleQuicksort|3_CUDA_Features/cdpSimpleQuicksort||-rdc=true -lcudadevrt||
cudaCompressibleMemory|3_CUDA_Features/cudaCompressibleMemory||-lcuda||
cudaTensorCoreGemm|3_CUDA_Features/cudaTensorCoreGemm||||
+dmmaTensorCoreGemm|3_CUDA_Features/dmmaTensorCoreGemm||||
globalToShmemAsyncCopy|3_CUDA_Features/globalToShmemAsyncCopy||||
graphConditionalNodes|3_CUDA_Features/graphConditionalNodes||||
graphMemoryFootprint|3_CUDA_Features/graphMemoryFootprint||||
graphMemoryNodes|3_CUDA_Features/graphMemoryNodes||||
+immaTensorCoreGemm|3_CUDA_Features/immaTensorCoreGemm||||
jacobiCudaGraphs|3_CUDA_Features/jacobiCudaGraphs||||
memMapIPCDrv|3_CUDA_Features/memMapIPCDrv|memMapIpc.cpp ../../../Common/helper_multiprocess.cpp|-lcuda -lrt|ptx:memMapIpc_kernel.cu:memMapIpc_kernel64.ptx|
newdelete|3_CUDA_Features/newdelete||||
ptxjit|3_CUDA_Features/ptxjit|ptxjit.cpp|-lcuda|ptx:ptxjit_kernel.cu:ptxjit_kernel64.ptx|
simpleCudaGraphs|3_CUDA_Features/simpleCudaGraphs||||
+tf32TensorCoreGemm|3_CUDA_Features/tf32TensorCoreGemm||||
+warpAggregatedAtomicsCG|3_CUDA_Features/warpAggregatedAtomicsCG||||
LargeKernelParameter|6_Performance/LargeKernelParameter||||
UnifiedMemoryPerf|6_Performance/UnifiedMemoryPerf||||-kernel-iterations=4
alignedTypes|6_Performance/alignedTypes||||
cudaGraphsPerfScaling|6_Performance/cudaGraphsPerfScaling||||
p2pBandwidthLatencyTest|5_Domain_Specific/p2pBandwidthLatencyTest||||
transpose|6_Performance/transpose||||
simpleCUBLAS|4_CUDA_Libraries/simpleCUBLAS||-lcublas||
simpleCUFFT|4_CUDA_Libraries/simpleCUFFT||-lcufft||
matrixMulCUBLAS|4_CUDA_Libraries/matrixMulCUBLAS||-lcublas||
batchCUBLAS|4_CUDA_Libraries/batchCUBLAS||-lcublas||
MersenneTwisterGP11213|4_CUDA_Libraries/MersenneTwisterGP11213||-lcurand||
conjugateGradient|4_CUDA_Libraries/conjugateGradient||-lcublas -lcusparse||
conjugateGradientCudaGraphs|4_CUDA_Libraries/conjugateGradientCudaGraphs||-lcublas -lcusparse||
conjugateGradientUM|4_CUDA_Libraries/conjugateGradientUM||-lcublas -lcusparse||
conjugateGradientMultiBlockCG|4_CUDA_Libraries/conjugateGradientMultiBlockCG||-lcublas -lcusparse||
EOF
}

# build_one LINE: builds one sample of the table into $kit/<name>.
build_one() {
  IFS='|' read -r name dir srcs opts files args <<EOF
$1
EOF
  name=${name#[+#]}
  d=$src/Samples/$dir
  log=$kit/$name.build.log
  [ -d "$d" ] || { echo "$name: no $dir" >"$log"; echo "$name: missing"; return 0; }
  rm -rf "${kit:?}/${name:?}" && mkdir -p "$kit/$name.tmp" || return 0
  (
    cd "$d" || exit 1
    [ -n "$srcs" ] || srcs=$(ls *.cu *.cpp *.c 2>/dev/null | tr '\n' ' ')
    set -x
    # shellcheck disable=SC2086
    nice -n 10 "$NVCC" $flags -I"$src/Common" -I. $srcs -o "$kit/$name.tmp/$name" $opts || exit 1
    for f in $files; do
      case $f in
        fatbin:*|ptx:*)
          kind=${f%%:*} rest=${f#*:}; k=${rest%%:*} o=${rest#*:}
          nice -n 10 "$NVCC" -arch=sm_90 -I"$src/Common" -"$kind" "$k" -o "$kit/$name.tmp/$o" || exit 1 ;;
        cg) # NVRTC gets one include path, where cooperative_groups.h is
          i=$CUDA_HOME/include c=$CUDA_HOME/include
          [ -d "$i/cccl/cuda" ] && c=$i/cccl
          cp -r "$i/cooperative_groups.h" "$i/cooperative_groups" "$c/cuda" \
            "$c/nv" "$kit/$name.tmp/" || exit 1 ;;
        *)
          mkdir -p "$kit/$name.tmp/$(dirname "$f")" &&
          cp -r "$f" "$kit/$name.tmp/$(dirname "$f")/" || exit 1 ;;
      esac
    done
  ) >"$log" 2>&1 || { echo "$name: build FAILED (see $log)"; rm -rf "$kit/$name.tmp"; return 0; }
  mv "$kit/$name.tmp" "$kit/$name" && rm -f "$log"
  echo "$name: built"
}


# Internal: xargs runs "sh samples_kit.sh --build-one LINE" per sample.
if [ "${1:-}" = --build-one ]; then [ -z "${2:-}" ] || build_one "$2"; exit 0; fi

[ $# -eq 2 ] || { echo "usage: $0 SAMPLES_SRC KIT_DIR" >&2; exit 2; }
src=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && kit=$(cd "$2" && pwd) || exit 2
[ -d "$src/Samples" ] && [ -d "$src/Common" ] ||
  { echo "$src: no Samples/ and Common/" >&2; exit 2; }
NVCC=${NVCC:-nvcc}

CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v "$NVCC")")")}
flags="-O2 -g -lineinfo -arch=sm_90 -std=c++17 --extended-lambda -Wno-deprecated-gpu-targets"
export src kit NVCC CUDA_HOME flags
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
if [ -n "${ONLY:-}" ]; then
  for n in $ONLY; do table | grep "^[+#]\{0,1\}$n|"; done
else
  table
fi | tr '\n' '\0' | xargs -0 -P "${JOBS:-2}" -n 1 sh "$self" --build-one

# samples.list in table order, for every sample of the table in the kit
{
  echo "# <name> <args...>: written by tests/gpu/samples_kit.sh; '#' lines are skipped"
  table | while IFS='|' read -r name dir srcs opts files args; do
    n=${name#[+#]}
    [ -x "$kit/$n/$n" ] || continue
    case $name in
      '#'*) echo "# slow? $n${args:+ $args}" ;;
      '+'*) echo "# extra: $n${args:+ $args}" ;;
      *) echo "$n${args:+ $args}" ;;
    esac
  done
} >"$kit/samples.list"
built=$(grep -c '^[^#]' "$kit/samples.list")
more=$(grep -c -E '^# (extra:|slow\?) ' "$kit/samples.list")
failed=$(ls "$kit"/*.build.log 2>/dev/null | wc -l)
echo "kit $kit: $built samples to run, $more more in the kit, $failed failed to build"
