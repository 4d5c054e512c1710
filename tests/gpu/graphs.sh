#!/bin/sh
# graphs.sh - CUDA graphs on a real GPU (issue 20), from a kit built
# elsewhere (tests/gpu/kit.sh): the graph programs of the race catalogue
# (a graph launch racing with another stream's kernel, a captured graph's
# replay racing with a side stream's refill, two kernel nodes of one graph
# without an edge, and their correct twins, plus graph_ok: a capture
# forked across two streams), each checked against its // expect: marks
# as make check does under the simulator (tests/races/check.sh); the host
# reading pinned memory a graph's memcpy node writes (hostsync, marks
# checked by tests/lib.sh's check_markers); and PyTorch's
# torch.cuda.graph / CUDAGraph.replay() racing with a side stream's
# refill (tests/gpu/races_torch/graph_replay.py: at least one stream-race,
# none with wait_stream).
#
#   tests/gpu/graphs.sh BUILD_DIR
#
# BUILD_DIR: the kit's build/ (or a built tree after make check;
# BUILD_DIR/lib-extra goes on the library path, for the report).
# Environment: PYTHON (python3).  Exit 0 when everything passed.
set -u
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PYTHON=${PYTHON:-python3}
CL_SHIM=$build/.libs/libcudalens.so
CL_REPORT=$build/cudalens-report
[ -f "$CL_SHIM" ] && [ -x "$CL_REPORT" ] || { echo "$0: $build is not built" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cl-graphs.XXXXXX") || exit 2
# (the report's libdw and libelf, where the kit brought them: as nccl.sh)
LD_LIBRARY_PATH=$build/lib-extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
export CL_SHIM CL_REPORT CL_TOP_SRCDIR="$top" RACES_SRC="$top/tests/races" \
  RACES_BIN="$build/tests/races" RACES_REAL=1 RACES_LIB_ONLY=1
failed="" passed=0

for name in graph_other_stream graph_other_stream_ok graph_replay_refill \
    graph_replay_refill_ok graph_unordered_nodes graph_unordered_nodes_ok graph_ok \
    graph_exec_update graph_exec_update_ok; do
  mkdir -p "$work/$name"
  if (CL_TMP=$work/$name; export CL_TMP
      . "$top/tests/lib.sh"; . "$top/tests/races/check.sh"; races_check "$name") \
      >"$work/$name.log" 2>&1; then
    passed=$((passed + 1)); echo "ok: races/$name"
  else
    failed="$failed races/$name"; echo "FAIL: races/$name (log: $work/$name.log)"
  fi
done

# the host check through a graph's memcpy node: the sample's marks (each
# `// expect: KIND` line reported at its line, no `// expect-none:` kind;
# tests/marks.sh)
. "$top/tests/marks.sh"
for name in graph_read_before_sync graph_read_after_sync capture_ok; do
  d=$work/hostsync-$name
  mkdir -p "$d"
  (cd "$d" && env LD_PRELOAD="$CL_SHIM" CUDALENS_OUTPUT="$d/run.db" \
      "$build/tests/hostsync/$name" >out 2>err) >"$d.log" 2>&1
  rc=$?
  "$CL_REPORT" "$d/run.db" >"$d/report.txt" 2>>"$d.log"
  if [ "$rc" -eq 0 ] && marks_text "$top/tests/hostsync/$name.cu" "$d/report.txt" >>"$d.log" 2>&1; then
    passed=$((passed + 1)); echo "ok: hostsync/$name"
  else
    failed="$failed hostsync/$name"; echo "FAIL: hostsync/$name (log: $d.log)"
  fi
done

# PyTorch: [mode] MIN MAX stream-race findings
torch_graph() {
  mode=$1 min=$2 max=$3 d=$work/torch-$1
  mkdir -p "$d"
  if ! (cd "$d" && env LD_PRELOAD="$CL_SHIM" CUDALENS_OUTPUT="$d/%p.db" \
        "$PYTHON" "$here/races_torch/graph_replay.py" "$mode" >out 2>err); then
    failed="$failed torch:graph_replay:$mode(run)"; tail -5 "$d/err"; return
  fi
  n=0
  for db in "$d"/*.db; do
    "$CL_REPORT" --format=json "$db" >"$db.json" 2>/dev/null
    "$CL_REPORT" "$db" >"$db.txt" 2>/dev/null
    k=$("$PYTHON" -c 'import json,sys; print(sum(1 for f in json.load(open(sys.argv[1]))["findings"] if f["kind"] == "stream-race"))' "$db.json")
    n=$((n + k))
  done
  if [ "$n" -ge "$min" ] && [ "$n" -le "$max" ]; then
    passed=$((passed + 1)); echo "ok: torch graph_replay $mode: $n stream-race(s)"
  else
    failed="$failed torch:graph_replay:$mode"
    echo "FAIL: torch graph_replay $mode: $n stream-race(s), expected $min..$max (reports in $d)"
  fi
}
if "$PYTHON" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  torch_graph bug 1 1000
  torch_graph wait 0 0
else
  echo "skip: PyTorch cases ($PYTHON cannot import torch with CUDA)"
fi
echo "graphs.sh: $passed passed${failed:+, failed:$failed}"
[ -z "$failed" ] || { echo "work directory kept: $work"; exit 1; }
rm -rf "$work"
