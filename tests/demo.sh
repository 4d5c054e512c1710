#!/bin/sh
# demo.sh - the job of the README's Quick start (`make demo`): records the
# bundled sample app tests/apps/pipeline with `cudalens run` and prints
# cudalens-report's findings and summary.  On a machine with an NVIDIA GPU it
# uses the real CUDA runtime; elsewhere the simulated one of tests/sim (a
# test double: copies and synchronization are real, kernels do not run).
set -u
top=${1:-.}
cd "$top" || exit 2
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "cudalens demo: recording on the GPU"
  LD_LIBRARY_PATH="@CUDA_HOME@/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  echo "cudalens demo: no GPU here; using the simulated CUDA runtime (tests/sim)"
  LD_LIBRARY_PATH="$PWD/tests/sim/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export LD_LIBRARY_PATH
rm -f demo-*.db
./cudalens run -o 'demo-%p.db' -- tests/apps/pipeline || exit 1
echo
./cudalens-report demo-*.db
