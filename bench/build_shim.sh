#!/bin/sh
# build_shim.sh - the shim of SRC_DIR's committed HEAD, built apart with
# the given preprocessor flags (an experiment's build: selftime.sh's
# -DCUDALENS_SELFTIME, ladder.sh's -DCUDALENS_ABLATE=MASK), into OUT_DIR:
# libcudalens.so and libcudalens-sqlite.so, to carry to a GPU machine.
#   bench/build_shim.sh SRC_DIR OUT_DIR [CPPFLAGS]
set -u
die() { echo "build_shim.sh: $*" >&2; exit 2; }
[ $# -eq 2 ] || [ $# -eq 3 ] || die "usage: build_shim.sh SRC_DIR OUT_DIR [CPPFLAGS]"
src=$1 out=$2 flags=${3:-}
tree=$(mktemp -d "${TMPDIR:-/tmp}/build_shim.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$tree" "$tree.log"' EXIT
git -C "$src" archive HEAD | tar x -C "$tree" || die "$src: not a git tree"
(cd "$tree" && ./autogen.sh && ./configure CPPFLAGS="$flags" &&
  make libcudalens.la libcudalens-sqlite.la) >"$tree.log" 2>&1 ||
  { tail -n 20 "$tree.log" >&2; die "the build failed"; }
mkdir -p "$out" || exit 2
cp "$tree/.libs/libcudalens.so" "$tree/.libs/libcudalens-sqlite.so" "$out/" || exit 2
echo "build_shim.sh: $out/libcudalens.so${flags:+ ($flags)}"
