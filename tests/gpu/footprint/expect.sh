# expect.sh - the footprints that fp_test.cu's kernels have, as the probe
# prints them (probe.c); sourced by probe.sh (on the GPU) and selftest.sh
# (the probe's host side against a test double).  Each function prints one
# word per kernel: NAME=ok or NAME=NO.
# block FILE KERNEL: the lines of the first launch of KERNEL in a probe output
block() {
  awk -v k="$2" '/^launch /{on = ($3 == k && !seen); if (on) seen = 1} on' "$1"
}
# expect: the footprints fp_test's kernels have (fp_test.cu); one word each
expect() {
  f=$1 r=""
  b=$(block "$f" fp_halfwrite)
  if echo "$b" | grep -qF '  W arg0+[0,8192)' && echo "$b" | grep -qF '  R arg1+[0,16384)' &&
     ! echo "$b" | grep -q '^  [WA] arg1'; then r="halfwrite=ok"; else r="halfwrite=NO"; fi
  b=$(block "$f" fp_gather)
  if echo "$b" | grep -qF '  W arg0+[0,256)' && echo "$b" | grep -qF '  R arg1+[0,8)' &&
     echo "$b" | grep -q '^  R alloc@0x[0-9a-f]*(256 bytes)+\[0,256) no-argument'; then
    r="$r gather=ok"; else r="$r gather=NO"; fi
  b=$(block "$f" fp_atomic)
  if echo "$b" | grep -q '^  [AW] arg0+\[0,4)'; then r="$r atomic=ok"; else r="$r atomic=NO"; fi
  echo "$r"
}
# expect_abs: without parameters, the same kernels' footprints by allocation
expect_abs() {
  b=$(block "$1" fp_halfwrite)
  if echo "$b" | grep -q '^  W alloc@0x[0-9a-f]*(16384 bytes)+\[0,8192) no-argument' &&
     echo "$b" | grep -q '^  R alloc@0x[0-9a-f]*(16384 bytes)+\[0,16384) no-argument'; then
    echo "halfwrite-abs=ok"; else echo "halfwrite-abs=NO"; fi
}
