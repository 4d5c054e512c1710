# siglib.sh - sourced by tests/signals/*.test after tests/lib.sh: runs
# tests/signals/sigprobe (or any program) natively and under the shim on the
# simulated CUDA runtime and compares what the two runs print and how they
# end.
SIGPROBE=$CL_TOP_BUILDDIR/tests/signals/sigprobe
[ -e "$CL_SIMLIB/libcudart.so.13" ] || skip "simulated runtime not built"
[ -e "$CL_SHIM" ] || skip "libcudalens.so not built"
[ -x "$SIGPROBE" ] || skip "$SIGPROBE not built"

# both NAME CMD [ARGS...]: CMD natively (NAME.native.out/.err, $nrc) and
# under the shim (NAME.shim.out/.err, $src, recording in rec-NAME/), with
# every signal at its default action at the start; $SIG_PRELOAD, when set,
# is preloaded in both runs (after the shim)
both() {
  _n=$1
  shift
  "$SIGPROBE" default-signals env LD_LIBRARY_PATH="$CL_SIMLIB" \
    ${SIG_PRELOAD:+LD_PRELOAD="$SIG_PRELOAD"} "$@" \
    >"$_n.native.out" 2>"$_n.native.err"
  nrc=$?
  rm -rf "rec-$_n"
  mkdir "rec-$_n"
  "$SIGPROBE" default-signals env LD_LIBRARY_PATH="$CL_SIMLIB" \
    LD_PRELOAD="$CL_SHIM${SIG_PRELOAD:+ $SIG_PRELOAD}" \
    CUDALENS_OUTPUT="$CL_TMP/rec-$_n/%p.db" "$@" \
    >"$_n.shim.out" 2>"$_n.shim.err"
  src=$?
}

# same NAME CMD [ARGS...]: both, and the runs must print the same and end
# the same way
same() {
  both "$@"
  if ! cmp -s "$1.native.out" "$1.shim.out"; then
    diff "$1.native.out" "$1.shim.out" >&2
    fail "$1: output differs under the shim"
  fi
  [ "$nrc" = "$src" ] || fail "$1: exit status $src under the shim, $nrc natively"
  if grep -q '^cudalens:' "$1.shim.err"; then
    cat "$1.shim.err" >&2
    fail "$1: the shim printed messages"
  fi
  echo "ok: $1: same output and exit status ($nrc) under the shim"
}
