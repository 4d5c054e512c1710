# capture.sh - checks one recording of a sample app of tests/apps: exact
# contents (common.expect and <app>.expect, through dbcheck), call sites
# (<app>.sites, through callsites) and report text (<app>.report, through
# cudalens-report).  Sourced by the CI tests (tests/capture/ci.sh) and by the
# GPU suite (tests/gpu/run-gpu-suite.sh), so both check the same things.
#
# Set before sourcing:
#   CAP_DIR        the tests/capture source folder (expectation files)
#   CAP_APPSRC     the tests/apps source folder
#   CAP_DBCHECK, CAP_CALLSITES, CAP_REPORT   the three programs
#   CAP_TOOL_LD    optional LD_LIBRARY_PATH for those programs only
# Counters cap_pass and cap_fail count the checks made so far.
#
# <app>.sites: lines `API N TEXT`: the Nth call of API (a name from the api
# table with or without its _vNNNN suffix, or with a leading __) must
# resolve to the line of the app's source holding TEXT (which must occur
# exactly once).  <app>.report: lines of text the report must contain.
# Lines starting with # are comments in both.

cap_pass=0
cap_fail=0

cap_ok() { cap_pass=$((cap_pass + 1)); echo "ok: $*"; }
cap_bad() { cap_fail=$((cap_fail + 1)); echo "FAIL: $*"; }

# cap_tool PROGRAM ARGS...: runs one of the three programs
cap_tool() {
  if [ -n "${CAP_TOOL_LD:-}" ]; then
    env LD_LIBRARY_PATH="$CAP_TOOL_LD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
  else
    "$@"
  fi
}

# cap_source APP: the source file of a sample app
cap_source() {
  case $1 in
  driver_api) echo "$CAP_APPSRC/driver_api.cpp" ;;
  *) echo "$CAP_APPSRC/$1.cu" ;;
  esac
}

# cap_dbcheck DB FILE [NAME=VALUE...]: evaluates an expectation file
cap_dbcheck() {
  _db=$1 _file=$2
  shift 2
  _out=$(cap_tool "$CAP_DBCHECK" "$_db" "$_file" "$@" 2>&1)
  _rc=$?
  printf '%s\n' "$_out"
  _n=$(printf '%s\n' "$_out" | grep -c '^ok: ')
  _f=$(printf '%s\n' "$_out" | grep -c '^FAIL: ')
  cap_pass=$((cap_pass + _n))
  cap_fail=$((cap_fail + _f))
  if [ "$_rc" -ne 0 ] && [ "$_f" -eq 0 ]; then
    cap_bad "dbcheck $(basename "$_file") exited $_rc"
  fi
}

# cap_sites APP DB: the call sites listed in APP.sites
cap_sites() {
  _app=$1 _db=$2
  _sites=$CAP_DIR/$_app.sites
  [ -f "$_sites" ] || return 0
  _src=$(cap_source "$_app")
  _base=$(basename "$_src")
  if ! cap_tool "$CAP_CALLSITES" "$_db" >"$_app.callsites" 2>&1; then
    cap_bad "$_app: callsites failed: $(head -n 3 "$_app.callsites")"
    return 0
  fi
  while read -r _api _nth _text; do
    case $_api in '' | '#'*) continue ;; esac
    _lines=$(grep -nF -- "$_text" "$_src" | cut -d: -f1)
    _count=$(printf '%s' "$_lines" | grep -c .)
    if [ "$_count" -ne 1 ]; then
      cap_bad "$_app.sites: '$_text' occurs $_count times in $_base"
      continue
    fi
    _got=$(awk -v api="$_api" -v n="$_nth" '
      $2 == api || index($2, api "_") == 1 || index($2, "__" api "_") == 1 {
        if (++k == n) { print $3; exit }
      }' "$_app.callsites")
    case $_got in
    "$_base:$_lines" | */"$_base:$_lines")
      cap_ok "$_app: call $_nth of $_api at $_base:$_lines" ;;
    *)
      cap_bad "$_app: call $_nth of $_api resolved to '${_got:-no such call}', expected $_base:$_lines" ;;
    esac
  done <"$_sites"
}

# cap_report APP DB: the report runs and holds the lines of APP.report
cap_report() {
  _app=$1 _db=$2
  if ! cap_tool "$CAP_REPORT" "$_db" >"$_app.report.txt" 2>"$_app.report.err"; then
    cap_bad "$_app: cudalens-report failed: $(head -n 3 "$_app.report.err")"
    return 0
  fi
  cap_ok "$_app: cudalens-report ran"
  [ -f "$CAP_DIR/$_app.report" ] || return 0
  while IFS= read -r _want; do
    case $_want in '' | '#'*) continue ;; esac
    if grep -qF -- "$_want" "$_app.report.txt"; then
      cap_ok "$_app: report shows '$_want'"
    else
      cap_bad "$_app: report lacks '$_want'"
    fi
  done <"$CAP_DIR/$_app.report"
}

# cap_check APP DB NAME=VALUE...: everything above.  Variables the
# expectation files use: APP, EXE (resolved path of the program), PID,
# NDEV (devices the app uses), PEER (1 when multidev enabled peer access).
cap_check() {
  _capp=$1 _cdb=$2
  shift 2
  cap_dbcheck "$_cdb" "$CAP_DIR/common.expect" "APP=$_capp" "$@"
  cap_dbcheck "$_cdb" "$CAP_DIR/$_capp.expect" "APP=$_capp" "$@"
  cap_sites "$_capp" "$_cdb"
  cap_report "$_capp" "$_cdb"
}
