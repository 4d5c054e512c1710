#!/bin/sh
# run.sh - measures what libcudalens.so costs: builds (or takes) the benchmark
# programs of bench/, runs each natively and under the shim, interleaved
# (native, shim, then shim, native, ...: each round in another order), and
# prints the median times and the median of the per-pair ratios
# shim/native, with its 95% interval
# (bench/paired_ci.awk; "inconclusive" when wider than +-2%: more --runs).  With --torch, also
# torch_small_ops.py, and with --train torch_train.py's training loops,
# natively, under the shim, under the floors (--floor) and under PyTorch's
# CUDA sanitizer.  Needs a GPU; see bench/README.md.
set -u

usage() {
  cat <<'EOF'
Usage: bench/run.sh [OPTIONS] BUILD_DIR_OR_SHIM

BUILD_DIR_OR_SHIM: libcudalens.so itself, a build directory (its
.libs/libcudalens.so), or an installation prefix (its lib/libcudalens.so).

Options:
  --runs N      runs of each variant, interleaved (default 5)
  --budget S    then, while cudalens/native is inconclusive (its 95%
                interval wider than +-2%, or fewer than 6 pairs), more
                rounds of the benchmark until S seconds have passed since
                its first (default 0: exactly --runs)
  --bin DIR     take the benchmark programs from DIR, building the missing
                ones there (default: build them in a temporary directory)
  --arch ARCH   nvcc -arch for building them (default native)
  --torch       also run torch_small_ops.py (needs python3 with torch)
  --train       also run torch_train.py: 40 training steps (after 5 warm-up
                steps) of resnet18, resnet18 fed by a pinned DataLoader,
                a transformer, GPT-2 and ViT (needs torch, torchvision,
                transformers and timm)
  --steps N     training steps of each --train run (default 40; 4 with
                --quick): longer loops for ratios within 2%
  --no-cuda     skip the CUDA benchmarks (with --torch/--train: PyTorch only)
  --quick       a tenth of the work per run, for a smoke test
  --only LIST   run only these benchmarks (comma-separated names as
                printed: launch_bound, copy_bound, torch_small_ops,
                train_resnet18, train_resnet18-loader, train_transformer,
                train_gpt2, train_vit)
  --keep        keep the databases the shim wrote (their folder is printed)
  --no-sanitizer
                leave out the runs under PyTorch's CUDA sanitizer (7-17x
                slower: more pairs of the others in the same time)
  --with VAR=VALUE
                also run each benchmark under the shim, and under each
                floor, with VAR=VALUE in the environment (e.g.
                CUDALENS_HOSTGUARD=0), interleaved with the others
  --baseline LIB
                also run each benchmark under another build of the shim
                (e.g. main before a change), interleaved with the others:
                prints its ratio to native and the paired ratio
                cudalens/baseline with its interval (before and after, in
                one run)
  --floor LIB   also run each benchmark under LIB preloaded instead of the
                shim: the CUPTI floor (bench/cupti_floor.c built as a shared
                library: the same callbacks and activity kinds as the shim,
                doing nothing), or another experiment such as
                bench/driver_floor.c; may be given more than once, each
                printed under its file name, with the paired ratio
                cudalens/floor and its interval
  -h, --help    this help

Environment: NVCC (default nvcc on PATH, else /usr/local/cuda/bin/nvcc),
PYTHON (default python3).
EOF
}

die() { echo "run.sh: $*" >&2; exit 2; }

steps_opt='' runs=5 budget=0 bindir='' arch=native torch=0 train=0 cuda=1 quick=0 keep=0 target='' baseline='' floor='' with='' only='' sanitizer=1
while [ $# -gt 0 ]; do
  case $1 in
  --runs) [ $# -ge 2 ] || die "--runs needs a number"; runs=$2; shift ;;
  --runs=*) runs=${1#--runs=} ;;
  --budget) [ $# -ge 2 ] || die "--budget needs seconds"; budget=$2; shift ;;
  --budget=*) budget=${1#--budget=} ;;
  --steps) [ $# -ge 2 ] || die "--steps needs a number"; steps_opt=$2; shift ;;
  --steps=*) steps_opt=${1#--steps=} ;;
  --bin) [ $# -ge 2 ] || die "--bin needs a directory"; bindir=$2; shift ;;
  --bin=*) bindir=${1#--bin=} ;;
  --arch) [ $# -ge 2 ] || die "--arch needs an architecture"; arch=$2; shift ;;
  --arch=*) arch=${1#--arch=} ;;
  --torch) torch=1 ;;
  --train) train=1 ;;
  --no-cuda) cuda=0 ;;
  --quick) quick=1 ;;
  --only) [ $# -ge 2 ] || die "--only needs a list"; only=$2; shift ;;
  --only=*) only=${1#--only=} ;;
  --keep) keep=1 ;;
  --no-sanitizer) sanitizer=0 ;;
  --baseline) [ $# -ge 2 ] || die "--baseline needs the library"; baseline=$2; shift ;;
  --baseline=*) baseline=${1#--baseline=} ;;
  --floor) [ $# -ge 2 ] || die "--floor needs the library"; floor="$floor $2"; shift ;;
  --floor=*) floor="$floor ${1#--floor=}" ;;
  --with) [ $# -ge 2 ] || die "--with needs VAR=VALUE"; with=$2; shift ;;
  --with=*) with=${1#--with=} ;;
  -h | --help) usage; exit 0 ;;
  --) shift; break ;;
  -*) die "unknown option '$1' (try --help)" ;;
  *) break ;;
  esac
  shift
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
case $with in '' | [A-Za-z_]*=*) ;; *) die "--with wants VAR=VALUE, not '$with'" ;; esac
target=$1
case $runs in '' | *[!0-9]*) die "--runs wants a positive number, not '$runs'" ;; esac
[ "$runs" -ge 1 ] || die "--runs wants a positive number"
[ "$runs" -ge 5 ] || echo "run.sh: note: with fewer than 5 runs the medians are not reliable" >&2
case $budget in '' | *[!0-9]*) die "--budget wants seconds, not '$budget'" ;; esac

here=$(cd "$(dirname "$0")" && pwd) || exit 2

# ---- the shim -----------------------------------------------------------------
shim=
if [ -f "$target" ]; then
  shim=$target
elif [ -d "$target" ]; then
  for c in "$target/.libs/libcudalens.so" "$target/lib/libcudalens.so" "$target/libcudalens.so"; do
    if [ -f "$c" ]; then shim=$c; break; fi
  done
  [ -n "$shim" ] || die "no libcudalens.so in $target (.libs/, lib/ or itself)"
else
  die "$target: no such file or directory"
fi
shim=$(cd "$(dirname "$shim")" && pwd -P)/$(basename "$shim")
case $shim in *[:\ ]*) die "the shim's path contains a colon or blank: $shim" ;; esac
if [ -n "$baseline" ]; then
  [ -f "$baseline" ] || die "--baseline $baseline: no such file"
  baseline=$(cd "$(dirname "$baseline")" && pwd -P)/$(basename "$baseline")
  case $baseline in *[:\ ]*) die "the baseline's path contains a colon or blank: $baseline" ;; esac
fi
floors=
for f in $floor; do
  [ -f "$f" ] || die "--floor $f: no such file"
  f=$(cd "$(dirname "$f")" && pwd -P)/$(basename "$f")
  case $f in *:*) die "the floor's path contains a colon: $f" ;; esac
  floors="$floors $f"
done

# The variants run besides native, in this order each round: the shim, the
# baseline, each floor, and with --with the shim and each floor again with
# VAR=VALUE.
variants=cudalens
[ -z "$baseline" ] || variants="$variants baseline"
n=0
for f in $floors; do n=$((n + 1)); variants="$variants floor$n"; done
if [ -n "$with" ]; then
  variants="$variants with"
  n=0
  for f in $floors; do n=$((n + 1)); variants="$variants floorwith$n"; done
fi
floor_lib() { echo "$floors" | awk -v i="$1" '{ print $i }'; }
# what a variant is called in the output
label_of() {
  case $1 in
  native | cudalens) echo "$1" ;;
  baseline) echo "baseline ($baseline)" ;;
  with) echo "cudalens with $with" ;;
  floorwith*) echo "$(basename "$(floor_lib "${1#floorwith}")" .so) with $with" ;;
  floor*) basename "$(floor_lib "${1#floor}")" .so ;;
  esac
}
# the shim variant a floor variant is the floor of
shim_of() { case $1 in floorwith*) echo with ;; *) echo cudalens ;; esac; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cudalens-bench.XXXXXX") || die "mktemp failed"
dbdir=$work/db
mkdir -p "$dbdir" || exit 2
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
  if [ "$keep" = 1 ]; then
    echo "run.sh: kept the databases in $dbdir" >&2
    rm -rf "$work/out"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$work/out"

if [ "$quick" = 1 ]; then
  launches=20000 rounds=2000 ops=2000 steps=4
else
  launches=200000 rounds=20000 ops=20000 steps=40
fi
case $steps_opt in
'') ;;
*[!0-9]* | 0) die "--steps needs a positive number" ;;
*) steps=$steps_opt ;;
esac

# ---- helpers --------------------------------------------------------------------
# wanted NAME: NAME is to be run (--only)
wanted() { [ -z "$only" ] || case ",$only," in *",$1,"*) true ;; *) false ;; esac; }
now() { date +%s.%N; }

# median of the numbers on standard input
median() {
  awk "$(cat "$here/stats.awk")"'{ v[NR] = $1 } END { print NR ? median(v, NR) : "nan" }'
}

# the number after "elapsed" in a program's output
elapsed_of() { awk '$1 == "elapsed" { print $2; exit }' "$1"; }

# run_one MODE OUTFILE CMD...: runs CMD natively (MODE native), as one of the
# variants (cudalens, with, floorN, floorwithN) or with the CUDA sanitizer
# (MODE csan); appends "<elapsed> <wall>" to OUTFILE.times; returns the
# command's status.
run_one() {
  mode=$1 out=$2
  shift 2
  t0=$(now)
  case $mode in
  native)
    env -u CUDALENS_OUTPUT -u CUDALENS_MANIFEST "$@" >"$out.stdout" 2>"$out.stderr" ;;
  cudalens)
    env -u CUDALENS_MANIFEST LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" \
      CUDALENS_OUTPUT="$dbdir/$(basename "$out")-%p.db" \
      "$@" >"$out.stdout" 2>"$out.stderr" ;;
  csan)
    env -u CUDALENS_OUTPUT -u CUDALENS_MANIFEST TORCH_CUDA_SANITIZER=1 \
      "$@" >"$out.stdout" 2>"$out.stderr" ;;
  baseline)
    env -u CUDALENS_MANIFEST LD_PRELOAD="$baseline${LD_PRELOAD:+:$LD_PRELOAD}" \
      CUDALENS_OUTPUT="$dbdir/$(basename "$out")-%p.db" \
      "$@" >"$out.stdout" 2>"$out.stderr" ;;
  with)
    env -u CUDALENS_MANIFEST LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" \
      CUDALENS_OUTPUT="$dbdir/$(basename "$out")-%p.db" "$with" \
      "$@" >"$out.stdout" 2>"$out.stderr" ;;
  floorwith*)
    env -u CUDALENS_OUTPUT -u CUDALENS_MANIFEST \
      LD_PRELOAD="$(floor_lib "${mode#floorwith}")${LD_PRELOAD:+:$LD_PRELOAD}" \
      "$with" "$@" >"$out.stdout" 2>"$out.stderr" ;;
  floor*)
    env -u CUDALENS_OUTPUT -u CUDALENS_MANIFEST \
      LD_PRELOAD="$(floor_lib "${mode#floor}")${LD_PRELOAD:+:$LD_PRELOAD}" \
      "$@" >"$out.stdout" 2>"$out.stderr" ;;
  esac
  rc=$?
  t1=$(now)
  if [ $rc -ne 0 ]; then
    echo "run.sh: '$*' ($mode) failed with status $rc:" >&2
    tail -n 20 "$out.stderr" >&2
    return $rc
  fi
  e=$(elapsed_of "$out.stdout")
  if [ -z "$e" ]; then
    echo "run.sh: '$*' ($mode) printed no 'elapsed' line" >&2
    return 1
  fi
  echo "$e $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')" >>"$out.times"
  return 0
}

# After a run under the shim: did it write a database?  For the last run of a
# benchmark, sets dbinfo to a summary of it.  Deletes them unless --keep.
check_db() {
  cd_name=$1 cd_last=$2
  set -- "$dbdir/$cd_name"-*.db
  if [ ! -f "$1" ]; then
    if [ "$warned" != "$cd_name" ]; then
      echo "run.sh: warning: $cd_name under cudalens wrote no database; its stderr:" >&2
      tail -n 5 "$work/out/$cd_name.stderr" >&2
      warned=$cd_name
    fi
    nodb=1
    return
  fi
  if [ "$cd_last" = 1 ] && command -v sqlite3 >/dev/null 2>&1; then
    calls=$(sqlite3 "$1" 'SELECT count(*) FROM calls' 2>/dev/null)
    drops=$(sqlite3 "$1" 'SELECT coalesce(sum(count), 0) FROM drops' 2>/dev/null)
    size=$(du -k "$1" | awk '{ print $1 }')
    dbinfo="  last recording: ${calls:-?} calls, ${drops:-?} dropped, ${size} KiB"
  fi
  [ "$keep" = 1 ] || rm -f "$dbdir/$cd_name"-*.db "$dbdir/$cd_name"-*.db-journal
}

# pairwise ratios: column 1 of file $2 over column 1 of file $1 (line by line)
ratios() {
  paste -d ' ' "$1" "$2" | awk -v c="$3" '{ if ($c > 0) print $(c + 2) / $c }'
}

# interval NAT OTHER LABEL: the median paired ratio of column 1 of file
# OTHER over file NAT (the interleaved rounds, line by line) with its 95%
# interval, marked inconclusive when wider than +-2% (bench/paired_ci.awk)
interval() {
  paste -d ' ' "$1" "$2" | awk '{ print $1, $3 }' |
    awk -v label="  $3" -f "$here/stats.awk" -f "$here/paired_ci.awk"
}

# another NAT OTHER R T0: whether to run round R: within --runs, or past
# them while the interval of OTHER over NAT is inconclusive and --budget
# seconds have not passed since T0 (the benchmark's start)
another() {
  [ "$3" -le "$runs" ] && return 0
  [ "$budget" -gt 0 ] && [ $(($(date +%s) - $4)) -lt "$budget" ] &&
    interval "$1" "$2" x | grep -q inconclusive
}

# the output files of variant $2 of benchmark $1 (the shim's are the
# benchmark's own name: its databases are named after it)
out_of() { if [ "$2" = cudalens ]; then echo "$work/out/$1"; else echo "$work/out/$1.$2"; fi; }

# progress NAME R: round R's times on standard error as it ends, so that a
# run cut short (a time limit) still shows what it measured
progress() {
  pg_line="run.sh: $1 round $2:"
  for pg_v in native $variants; do
    pg_line="$pg_line $(label_of "$pg_v" | cut -d' ' -f1) $(tail -n 1 "$(out_of "$1" "$pg_v").times" | cut -d' ' -f1),"
  done
  echo "${pg_line%,}" >&2
}

# rotated R WORD...: the words, rotated left by R - 1 (round R's order)
rotated() {
  ro_r=$1
  shift
  ro_k=$(((ro_r - 1) % $#))
  while [ "$ro_k" -gt 0 ]; do
    ro_w=$1
    shift
    set -- "$@" "$ro_w"
    ro_k=$((ro_k - 1))
  done
  echo "$@"
}

# run_round NAME R LAST CMD...: round R of benchmark NAME, native and every
# variant, each round in another order (the list rotated by one more each
# round: a variant's place in the round, such as first after a pause or
# right after another variant's exit, is then shared by all; LAST: 1 in
# the last round); 1 when one failed
run_round() {
  rv_name=$1 rv_r=$2 rv_last=$3
  shift 3
  # shellcheck disable=SC2086  # $variants: a list of words
  for rv_v in $(rotated "$rv_r" native $variants); do
    run_one "$rv_v" "$(out_of "$rv_name" "$rv_v")" "$@" || return 1
    case $rv_v in
    cudalens) check_db "$rv_name" "$rv_last" ;;
    with) check_db "$rv_name.with" 0 ;;
    baseline) check_db "$rv_name.baseline" 0 ;;
    esac
  done
  return 0
}

# print_variants NAME: a line for each variant but the shim: its median time
# and ratio to native, and for a floor how far its shim variant is above it
print_variants() {
  pv_nat=$work/out/$1.native.times
  for pv_v in $variants; do
    [ "$pv_v" = cudalens ] && continue
    pv_t=$(out_of "$1" "$pv_v").times
    pv_r=$(ratios "$pv_nat" "$pv_t" 1 | median)
    case $pv_v in
    floor*)
      pv_s=$(ratios "$pv_nat" "$(out_of "$1" "$(shim_of "$pv_v")").times" 1 | median)
      printf '  %s: %.3f s, ratio %.2f (%s above it: %+.2f)\n' "$(label_of "$pv_v")" \
        "$(awk '{ print $1 }' "$pv_t" | median)" "$pv_r" \
        "$(label_of "$(shim_of "$pv_v")")" "$(echo "$pv_s $pv_r" | awk '{ print $1 - $2 }')"
      interval "$pv_nat" "$pv_t" "$(label_of "$pv_v")/native"
      interval "$pv_t" "$(out_of "$1" "$(shim_of "$pv_v")").times" \
        "$(label_of "$(shim_of "$pv_v")")/$(label_of "$pv_v")" ;;
    baseline)
      printf '  %s: %.3f s, ratio %.2f\n' "$(label_of "$pv_v")" \
        "$(awk '{ print $1 }' "$pv_t" | median)" "$pv_r"
      interval "$pv_nat" "$pv_t" "baseline/native"
      interval "$pv_t" "$(out_of "$1" cudalens).times" "cudalens/baseline" ;;
    *)
      printf '  %s: %.3f s, ratio %.2f\n' "$(label_of "$pv_v")" \
        "$(awk '{ print $1 }' "$pv_t" | median)" "$pv_r" ;;
    esac
  done
}

status=0
nodb=0
warned=''

# ---- the CUDA benchmarks --------------------------------------------------------
if [ "$cuda" = 1 ]; then
  [ -n "$bindir" ] || bindir=$work/bin
  mkdir -p "$bindir" || die "cannot create $bindir"
  nvcc=${NVCC:-}
  if [ -z "$nvcc" ]; then
    nvcc=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
  fi
  for b in launch_bound copy_bound; do
    for v in static shared; do
      exe=$bindir/${b}_$v
      [ -x "$exe" ] && continue
      [ -x "$nvcc" ] || command -v "$nvcc" >/dev/null 2>&1 ||
        die "nvcc not found (set NVCC, or give --bin with built programs)"
      if [ $v = shared ]; then cudart="-cudart shared"; else cudart="-cudart static"; fi
      echo "run.sh: building $exe" >&2
      # shellcheck disable=SC2086
      "$nvcc" -O2 -arch="$arch" $cudart -o "$exe" "$here/$b.cu" ||
        die "building $b ($v) failed"
    done
  done

  for b in launch_bound copy_bound; do
    wanted $b || continue
    for v in static shared; do
      name=${b}_$v
      exe=$bindir/$name
      if [ $b = launch_bound ]; then arg=$launches; else arg=$rounds; fi
      nat=$work/out/$name.native cl=$work/out/$name
      : >"$nat.times"
      for vv in $variants; do : >"$(out_of "$name" "$vv").times"; done
      dbinfo=''
      ok=1
      r=1 began=$(date +%s)
      while another "$nat.times" "$cl.times" $r "$began"; do
        run_round "$name" $r "$([ $r -eq "$runs" ] && echo 1 || echo 0)" \
          "$exe" "$arg" || { ok=0; break; }
        progress "$name" $r
        r=$((r + 1))
      done
      if [ $ok = 0 ]; then
        echo "$b($v): FAILED"
        status=1
        continue
      fi
      mn=$(awk '{ print $1 }' "$nat.times" | median)
      mc=$(awk '{ print $1 }' "$cl.times" | median)
      mr=$(ratios "$nat.times" "$cl.times" 1 | median)
      wn=$(awk '{ print $2 }' "$nat.times" | median)
      wc=$(awk '{ print $2 }' "$cl.times" | median)
      wr=$(ratios "$nat.times" "$cl.times" 2 | median)
      printf '%s(%s): native %.3f s, cudalens %.3f s, ratio %.2f (%d runs each)\n' \
        "$b" "$v" "$mn" "$mc" "$mr" $((r - 1))
      printf '  whole process: native %.3f s, cudalens %.3f s, ratio %.2f\n' \
        "$wn" "$wc" "$wr"
      interval "$nat.times" "$cl.times" "cudalens/native"
      print_variants "$name"
      [ -z "$dbinfo" ] || echo "$dbinfo"
    done
  done
fi

# ---- PyTorch --------------------------------------------------------------------
# torch_case NAME CSAN SCRIPT ARG...: runs python3 SCRIPT ARG... native,
# under the shim, under the CUPTI floor (--floor) and, when CSAN is "csan",
# with PyTorch's CUDA sanitizer, interleaved, and prints the medians and the
# ratios to native
torch_case() {
  name=$1 csan=$2
  shift 2
  wanted "$name" || return 0
  py=${PYTHON:-python3}
  nat=$work/out/$name.native cl=$work/out/$name cs=$work/out/$name.csan
  : >"$nat.times"
  : >"$cs.times"
  for vv in $variants; do : >"$(out_of "$name" "$vv").times"; done
  dbinfo=''
  ok=1
  r=1 began=$(date +%s)
  while another "$nat.times" "$cl.times" $r "$began"; do
    run_round "$name" $r "$([ $r -eq "$runs" ] && echo 1 || echo 0)" \
      "$py" "$@" || { ok=0; break; }
    if [ "$csan" = csan ] && [ "$sanitizer" = 1 ]; then
      run_one csan "$cs" "$py" "$@" || { ok=0; break; }
    fi
    progress "$name" $r
    r=$((r + 1))
  done
  if [ $ok = 0 ]; then
    echo "$name: FAILED"
    status=1
    return
  fi
  line=$(printf '%s: native %.3f s, cudalens %.3f s (ratio %.2f)' "$name" \
    "$(awk '{ print $1 }' "$nat.times" | median)" \
    "$(awk '{ print $1 }' "$cl.times" | median)" \
    "$(ratios "$nat.times" "$cl.times" 1 | median)")
  if [ "$csan" = csan ] && [ "$sanitizer" = 1 ]; then
    line=$line$(printf ', TORCH_CUDA_SANITIZER=1 %.3f s (ratio %.2f)' \
      "$(awk '{ print $1 }' "$cs.times" | median)" \
      "$(ratios "$nat.times" "$cs.times" 1 | median)")
  fi
  line="$line ($((r - 1)) runs each)"
  echo "$line"
  interval "$nat.times" "$cl.times" "cudalens/native"
  print_variants "$name"
  [ -z "$dbinfo" ] || echo "$dbinfo"
}

if [ "$torch" = 1 ]; then
  torch_case torch_small_ops csan "$here/torch_small_ops.py" "$ops"
fi
if [ "$train" = 1 ]; then
  # PyTorch's sanitizer cannot run the DataLoader's forked workers ("Cannot
  # re-initialize CUDA in forked subprocess")
  torch_case train_resnet18 csan "$here/torch_train.py" resnet18 "$steps"
  torch_case train_resnet18-loader nocsan "$here/torch_train.py" resnet18-loader "$steps"
  torch_case train_transformer csan "$here/torch_train.py" transformer "$steps"
  torch_case train_gpt2 csan "$here/torch_train.py" gpt2 "$steps"
  torch_case train_vit nocsan "$here/torch_train.py" vit "$steps"
fi

if [ "$nodb" = 1 ]; then
  echo "run.sh: warning: some runs under cudalens wrote no database; the ratios then measure an idle shim (try CUDALENS_DEBUGLEVEL=2)" >&2
  status=1
fi
exit $status
