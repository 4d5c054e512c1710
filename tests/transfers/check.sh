# check.sh - sourced by the tests/transfers/*.test scripts and by
# tests/gpu/transfers.sh: compares the findings of a cudalens-report JSON
# report with the expectations written into a sample's source.
#
# A buggy sample marks the line a finding must point at with a comment
#   // expect: KIND        (C/C++/CUDA)      # expect: KIND   (Python)
# tr_check then requires, for every mark, a finding of KIND at that file
# (by basename) and line, and no finding of another of the transfer/device
# kinds (TR_KINDS).  A sample without marks (a fixed twin) must have no
# finding of those kinds.  Findings of other analyses are ignored.
# The marks and the report are read by tests/marks.sh (jq, else python3),
# sourced before this file (tests/lib.sh sources it).

TR_KINDS="pageable-async-copy sync-copy sync-memset repeated-pinning excess-sync cross-device-access stray-context default-stream-serialization"

# tr_findings REPORT.json: one line "kind<TAB>file<TAB>line" per finding
# (file "?" and line 0 when unknown), read by tests/marks.sh
tr_findings() {
  _f=$(marks_findings "$1") || return 1
  printf '%s\n' "$_f" |
    awk -F '\t' -v OFS='\t' 'NF { print $1, ($2 == "" ? "?" : $2), ($3 == "" ? 0 : $3) }'
}

# tr_expectations SOURCE: "kind line" per expect mark (tests/marks.sh)
tr_expectations() { marks_want "$1"; }

# tr_is_kind KIND: one of TR_KINDS?
tr_is_kind() {
  for k in $TR_KINDS; do [ "$k" = "$1" ] && return 0; done
  return 1
}

# tr_check SOURCE REPORT.json: 0 when the report matches the marks of
# SOURCE; 1 when an expected finding is missing or an unexpected one is
# present; 2 when every expected kind is present but (some) not at the
# marked line (e.g. Python code whose file:line the report cannot resolve
# yet).  Prints one line per expectation and per unexpected finding.
tr_check() {
  src=$1 json=$2
  base=${src##*/}
  found=$(tr_findings "$json") || { echo "FAIL: cannot read $json"; return 1; }
  exp=$(tr_expectations "$src")
  status=0
  if [ -n "$exp" ]; then
    while read -r kind line; do
      at=$(printf '%s\n' "$found" | awk -F '\t' -v k="$kind" -v b="$base" -v l="$line" '
        { n = split($2, p, "/") }
        $1 == k && p[n] == b && $3 == l { print "yes"; exit }')
      if [ "$at" = yes ]; then
        echo "ok: $kind at $base:$line"
        continue
      fi
      where=$(printf '%s\n' "$found" | awk -F '\t' -v k="$kind" '$1 == k { printf " %s:%s", $2, $3 }')
      if [ -n "$where" ]; then
        echo "PARTIAL: $kind expected at $base:$line, reported at$where"
        [ "$status" -eq 0 ] && status=2
      else
        echo "FAIL: no $kind finding (expected at $base:$line)"
        status=1
      fi
    done <<EOT
$exp
EOT
  fi
  kinds=$(printf '%s\n' "$exp" | awk '{ print $1 }')
  printf '%s\n' "$found" | {
    st=0
    while IFS='	' read -r kind file line; do
      [ -n "$kind" ] || continue
      tr_is_kind "$kind" || continue
      printf '%s\n' "$kinds" | grep -qx -- "$kind" && continue
      echo "FAIL: unexpected $kind at $file:$line"
      st=1
    done
    exit $st
  } || status=1
  return $status
}
