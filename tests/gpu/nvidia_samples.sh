#!/bin/sh
# nvidia_samples.sh - runs NVIDIA's public CUDA samples under cudalens on a
# GPU machine and counts their findings: correct real programs must give no
# error findings, and must behave the same with and without the shim.  The
# samples are not part of cudalens and are not compiled here: they come
# prebuilt as a kit made by tests/gpu/samples_kit.sh from a checkout of
# github.com/NVIDIA/cuda-samples (on a machine without a GPU).
#
#   tests/gpu/nvidia_samples.sh KIT_SAMPLES_DIR BUILD_DIR OUTDIR
#
# KIT_SAMPLES_DIR holds samples.list ("<name> <args...>" a line; blank and
# '#' lines skipped, except that SAMPLES may name the samples of "# extra:"
# and "# slow?" lines) and one folder per sample, <name>/<name> plus the data
# it reads.  BUILD_DIR has .libs/libcudalens.so and cudalens-report (with
# BUILD_DIR/lib-extra or BUILD_DIR/extra-libs on LD_LIBRARY_PATH for the
# report's own libraries).  For each sample, in a scratch copy of its folder
# (so data files are found and the kit stays clean), with TIMEOUT (60) s
# each: run natively, then under the shim into OUTDIR/<name>.db; compare the
# exit status and the final verdict line (digits masked: timings differ);
# write OUTDIR/<name>.report.txt and <name>.report.json (and <name>.N.* for
# the recordings of child processes, <name>.N.db); count the findings per
# kind and severity.  A sample whose shared libraries are missing here
# (cuBLAS, NVRTC, ...) is SKIPped.  SAMPLES="a b" runs just those; PART=I/N
# runs the I-th of N interleaved shares of the list (to fit a time limit).
# Everything lands in OUTDIR as it goes (a timeout still leaves partial
# results): <name>.native.out, <name>.shim.out, summary.txt (one line per
# sample plus its findings), findings.tsv (sample, kind, severity) and
# table.txt (kind x severity over all samples, also printed at the end).
# Exit status: 0 when every sample behaved the same and gave no errors.
set -u
[ $# -eq 3 ] || { echo "usage: $0 KIT_SAMPLES_DIR BUILD_DIR OUTDIR" >&2; exit 2; }
kit=$(cd "$1" && pwd) || exit 2
build=$(cd "$2" && pwd) || exit 2
mkdir -p "$3" && out=$(cd "$3" && pwd) || exit 2
[ -f "$kit/samples.list" ] || { echo "$0: no $kit/samples.list" >&2; exit 2; }
shim=$build/.libs/libcudalens.so
[ -f "$shim" ] || shim=$build/libcudalens.so
[ -f "$shim" ] || { echo "$0: no libcudalens.so in $build" >&2; exit 2; }
[ -x "$build/cudalens-report" ] || { echo "$0: no $build/cudalens-report" >&2; exit 2; }
T=${TIMEOUT:-60}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
# the samples' libraries (cuBLAS, cuFFT, NVRTC ...) and the shim's CUPTI
LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$CUDA_HOME/lib64:$CUDA_HOME/extras/CUPTI/lib64
export LD_LIBRARY_PATH
report() {
  LD_LIBRARY_PATH="$build/lib-extra:$build/extra-libs:$LD_LIBRARY_PATH" \
    "$build/cudalens-report" "$@"
}
scratch=${TMPDIR:-/tmp}/cl-samples.$$
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$scratch" || exit 2
summary=$out/summary.txt tsv=$out/findings.tsv
: >"$summary"
printf 'sample\tkind\tseverity\n' >"$tsv"
say() { echo "$*" | tee -a "$summary"; }
verdict() { # the last line that reads like a verdict, digits masked
  grep -iE 'pass|fail|result|error|correct|done|complete' "$1" | tail -n 1 |
    sed 's/[0-9][0-9.]*/N/g' | cut -c1-120
}
status=0 nrun=0 nskip=0 nbad=0 idx=0
part=${PART:-1/1}; nparts=${part#*/}; part=${part%/*}

while read -r line; do
  # "# extra: NAME ARGS" and "# slow? NAME ARGS" run only when named
  case $line in
    '# extra: '*|'# slow? '*) [ -n "${SAMPLES:-}" ] || continue; line=${line#\# * } ;;
    ''|'#'*) continue ;;
  esac
  # shellcheck disable=SC2086
  set -- $line
  name=$1; shift
  if [ -n "${SAMPLES:-}" ]; then
    case " $SAMPLES " in *" $name "*) ;; *) continue ;; esac
  fi
  idx=$((idx + 1))
  [ $(((idx - 1) % nparts + 1)) -eq "$part" ] || continue
  bin=$kit/$name/$name
  [ -x "$bin" ] || { say "$name: MISSING from the kit"; status=1; nbad=$((nbad + 1)); continue; }
  # libraries, or symbol versions of them, that this machine lacks
  libs=$(ldd "$bin" 2>&1 | sed -n 's/^[[:space:]]*\([^ ]*\) => not found.*/\1/p
    s/.*version .\([^ ]*\). not found.*/\1/p' | sort -u | tr '\n' ' ')
  libs=${libs% }
  [ -z "$libs" ] || { say "$name: SKIP (missing here: $libs)"; nskip=$((nskip + 1)); continue; }
  nrun=$((nrun + 1))
  w=$scratch/$name
  rm -rf "$w" && cp -R "$kit/$name" "$w" || { say "$name: cannot copy to $w"; status=1; continue; }
  t0=$(date +%s)
  (cd "$w" && exec timeout -k 5 "$T" "./$name" "$@" </dev/null >"$out/$name.native.out" 2>&1); n=$?
  t1=$(date +%s)
  rm -f "$out/$name.db" "$out/$name".[0-9]*.db
  (cd "$w" && LD_PRELOAD=$shim CUDALENS_OUTPUT=$out/$name.db \
    exec timeout -k 5 "$T" "./$name" "$@" </dev/null >"$out/$name.shim.out" 2>&1); c=$?
  t2=$(date +%s)
  verdict_n=$(verdict "$out/$name.native.out")
  verdict_c=$(verdict "$out/$name.shim.out")
  # one recording per process: NAME.db, then NAME.1.db ... for the others
  # (samples that spawn children); each gets its reports
  : >"$scratch/f"; r=0 ndb=0
  for db in "$out/$name.db" "$out/$name".[0-9]*.db; do
    [ -f "$db" ] || continue
    ndb=$((ndb + 1)) tag=${db%.db}
    report "$db" >"$tag.report.txt" 2>"$tag.report.err" || r=$?
    report --format=json "$db" >"$tag.report.json" 2>>"$tag.report.err" || r=$?
    # "LOCATION: SEVERITY: [KIND] message": top-level findings only (a
    # related note has no [KIND])
    sed -n -E 's/.*: (error|warning|note): \[([^]]*)\].*/\2 \1/p' "$tag.report.txt" |
      awk -v s="$name" '{ printf "%s\t%s\t%s\n", s, $1, $2 }' >>"$scratch/f"
  done
  cat "$scratch/f" >>"$tsv"
  errors=$(grep -c '	error$' "$scratch/f") warnings=$(grep -c '	warning$' "$scratch/f")
  notes=$(grep -c '	note$' "$scratch/f")
  kinds=$(cut -f2 "$scratch/f" | sort | uniq -c | awk '{ printf "%s%s=%s", sep, $2, $1; sep = " " }')
  same=same
  if [ "$n" != "$c" ] || [ "$verdict_n" != "$verdict_c" ]; then same=DIFFERENT; status=1; fi
  [ "$n" != 124 ] && [ "$n" != 137 ] || same="$same, native TIMEOUT"
  [ "$c" != 124 ] && [ "$c" != 137 ] || same="$same, cudalens TIMEOUT"
  [ "$r" -eq 0 ] || { same="$same, report failed $r"; status=1; }
  [ "$ndb" -gt 0 ] || { same="$same, no recording"; status=1; }
  [ "$ndb" -le 1 ] || same="$same, $ndb recordings"
  [ "$errors" -eq 0 ] || status=1
  case $same in same|'same, '[0-9]*' recordings') bad=$errors ;; *) bad=1 ;; esac
  [ "$bad" -eq 0 ] || nbad=$((nbad + 1))
  say "$name: exit native $n cudalens $c ($same: '$verdict_c'), time $((t1 - t0))s/$((t2 - t1))s, $errors errors, $warnings warnings, $notes notes${kinds:+ [$kinds]}"
  cat "$out/$name.report.txt" "$out/$name".[0-9]*.report.txt 2>/dev/null |
    grep -E ': (error|warning|note): \[' | cut -c1-220 | sed 's/^/    /' |
    tee -a "$summary"
  rm -rf "$w"
done <"$kit/samples.list"

# kind x severity over all samples: findings (samples with the kind)
awk -F '\t' 'NR > 1 {
    k[$2] = 1; n[$2, $3]++
    if (!(($1, $2) in seen)) { seen[$1, $2] = 1; ns[$2]++ }
  }
  END {
    printf "%-28s %7s %7s %7s %8s\n", "kind", "error", "warning", "note", "samples"
    for (x in k)
      printf "%-28s %7d %7d %7d %8d\n", x, n[x, "error"], n[x, "warning"], n[x, "note"], ns[x]
  }' "$tsv" | { IFS= read -r h; echo "$h"; sort; } >"$out/table.txt"
say "$nrun samples run, $nskip skipped, $nbad with differences or errors"
tee -a "$summary" <"$out/table.txt"
exit $status
