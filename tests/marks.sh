# marks.sh - the one checker of the expectation marks that samples write on
# the line a finding must point at: `// expect: KIND` (`# expect: KIND` in
# Python), and `// expect-none: KIND...` (kinds a correct program must not
# get).  Sourced by make check's scripts (tests/lib.sh, races/check.sh and
# the folders that use it, transfers/check.sh, nccl/check.sh) and by the GPU
# scripts (tests/gpu/*.sh) alike.  POSIX sh and awk; a JSON report is read
# with jq, or with python3 where jq is missing (CI, the GPU machine).
#
# A finding is at a mark when its kind is the mark's and its location is
# the mark's line of a file of the same name (the report's path may be
# longer).  The policies, each a function below:
#   marks_want / marks_got   exact: the findings of some kinds are the marks
#   marks_text               a text report: every mark found, no expect-none
#   marks_present            every mark found (its ranks), no other error

# marks_can_read: 0 when a JSON report can be read here (jq or python3)
marks_can_read() {
  command -v jq >/dev/null 2>&1 || command -v python3 >/dev/null 2>&1
}

# marks_want SRC: "KIND LINE" per expect mark of SRC, sorted, unique
marks_want() {
  grep -n -E '(//|#) expect: [a-z-]+' "$1" |
    sed -E 's/^([0-9]+):.*(\/\/|#) expect: ([a-z-]+).*/\3 \1/' | sort -u
}

# marks_none SRC: the kinds of SRC's `// expect-none:` marks
marks_none() { sed -n 's|.*// expect-none: *||p' "$1"; }

# marks_findings REPORT.json: one line per finding, tab-separated:
# KIND FILE LINE SEVERITY RANKS MESSAGE (FILE and LINE empty when unknown,
# RANKS space-separated, MESSAGE with tabs and newlines escaped as jq's @tsv)
marks_findings() {
  if command -v jq >/dev/null 2>&1; then
    jq -r '.findings[] | [.kind, (.location.file // ""),
           ((.location.line // "") | tostring), (.severity // ""),
           ((.ranks // []) | map(tostring) | join(" ")), (.message // "")]
           | @tsv' "$1"
  else
    python3 - "$1" <<'PY'
import json, sys
def tsv(s):
    return (s.replace("\\", "\\\\").replace("\t", "\\t")
            .replace("\n", "\\n").replace("\r", "\\r"))
for f in json.load(open(sys.argv[1]))["findings"]:
    loc = f.get("location") or {}
    line = loc.get("line")
    print("\t".join(tsv(x) for x in [
        f["kind"], loc.get("file") or "", "" if line is None else str(line),
        f.get("severity") or "", " ".join(map(str, f.get("ranks") or [])),
        f.get("message") or ""]))
PY
  fi
}

# marks_got REPORT.json BASE KINDS: the findings whose kind matches the
# extended regular expression KINDS as "KIND LINE", sorted, unique; LINE is
# "elsewhere" when the location is not in a file named BASE ("null" when it
# is but has no line).  Exact check: compare with marks_want.
marks_got() {
  marks_findings "$1" | awk -F '\t' -v b="$2" -v re="$3" '
    $1 ~ re {
      n = split($2, p, "/")
      print $1, (n && p[n] == b) ? ($3 == "" ? "null" : $3) : "elsewhere"
    }' | sort -u
}

# marks_text SRC REPORT.txt [OK FAIL]: a text report against SRC's marks:
# every `// expect: KIND` reported as KIND at its line, no kind of
# `// expect-none:` anywhere.  Each check is passed to the command OK or
# FAIL (default: printed as "ok: ..." / "FAIL: ..."); returns the number of
# failed checks (0: all passed).
marks_text() {
  _src=$1 _rep=$2 _ok=${3:-marks_say_ok} _bad=${4:-marks_say_fail}
  _base=$(basename "$_src")
  _n=0
  for _m in $(marks_want "$_src" | tr ' ' ':'); do
    _k=${_m%%:*} _l=${_m#*:}
    if grep -q "$_base:$_l: [a-z]*: \[$_k\]" "$_rep"; then
      $_ok "$_k at $_base:$_l"
    else
      $_bad "$_k not reported at $_base:$_l"
      _n=$((_n + 1))
    fi
  done
  for _k in $(marks_none "$_src"); do
    if grep -q "\[$_k\]" "$_rep"; then
      grep "\[$_k\]" "$_rep" >&2
      $_bad "$_k reported for a correct program ($_base)"
      _n=$((_n + 1))
    else
      $_ok "no $_k"
    fi
  done
  return $_n
}
marks_say_ok() { echo "ok: $*"; }
marks_say_fail() { echo "FAIL: $*"; }

# marks_present REPORT.json SRC [RANKS]: every expect mark of SRC has a
# finding of its kind at its line (in ranks RANKS, space-separated, when
# given), and no other finding is an error; an empty SRC (/dev/null) expects
# no error at all.  Prints what is missing or unexpected; 1 then, else 0.
marks_present() {
  marks_findings "$1" | awk -F '\t' -v b="$(basename "$2")" -v ranks="${3-}" -v want="$(marks_want "$2" | tr '\n' ',')" '
    BEGIN { n = split(want, w, ","); for (i = 1; i <= n; i++) if (w[i] != "") need[w[i]] = 1 }
    {
      k = split($2, p, "/")
      key = $1 " " $3
      if (k && p[k] == b && (key in need)) {
        if (ranks != "" && $5 != ranks) {
          printf "%s at line %s in ranks %s, not %s\n", $1, $3, $5, ranks; bad = 1; exit
        }
        got[key] = 1
        next
      }
      if ($4 == "error") other[++no] = $1 " " $2 ":" $3 " " substr($6, 1, 160)
    }
    END {
      if (bad) exit 1
      for (x in need) if (!(x in got)) { split(x, q, " "); printf "missing: %s at %s:%s\n", q[1], b, q[2]; bad = 1 }
      for (i = 1; i <= no; i++) { print "unexpected error: " other[i]; bad = 1 }
      exit bad
    }'
}
