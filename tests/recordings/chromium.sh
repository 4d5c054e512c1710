# chromium.sh - sourced by the tests of --format=html (html.test,
# tests/hostsync/timeline.test): the page in headless Chromium.
#   chromium_find       sets CHROMIUM ($CL_CHROMIUM, else chromium,
#                       chromium-browser or google-chrome on PATH); returns 1
#                       when there is none (Debian: apt-get install chromium;
#                       .ci/run installs it)
#   chromium_page PAGE.html FRAGMENT OUT [WIDTH HEIGHT]
#                       loads file://PAGE.html#FRAGMENT in a window of
#                       WIDTHxHEIGHT (1400x900): the DOM after the page's
#                       script ran in OUT.dom, a screenshot in OUT.png; 1
#                       when Chromium fails
#   chromium_measure PAGE.html WIDTH OUT
#                       the page with measure.js (a test harness) after its
#                       script, in OUT.html, opened in a WIDTHx800 window:
#                       OUT.dom holds what measure.js read of the layout
#                       (check_page.py layout), OUT.png the page after its
#                       clicks (the last finding selected)
# Chromium gets a profile of its own under OUT.profile, no network is
# needed (the page is self-contained) and its noise on stderr goes to
# OUT.log.
chromium_find() {
  CHROMIUM=${CL_CHROMIUM:-}
  if [ -z "$CHROMIUM" ]; then
    for c in chromium chromium-browser google-chrome; do
      if command -v "$c" >/dev/null 2>&1; then
        CHROMIUM=$c
        break
      fi
    done
  fi
  [ -n "$CHROMIUM" ]
}

chromium_page() {
  page=$1 frag=$2 out=$3 size=${4:-1400},${5:-900}
  case $page in /*) ;; *) page=$PWD/$page ;; esac
  url="file://$page${frag:+#$frag}"
  set -- --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$out.profile" --window-size="$size" --hide-scrollbars
  timeout -s KILL 120 "$CHROMIUM" "$@" --dump-dom "$url" >"$out.dom" 2>"$out.log" ||
    { tail -n 5 "$out.log" >&2; return 1; }
  timeout -s KILL 120 "$CHROMIUM" "$@" --screenshot="$out.png" "$url" >>"$out.log" 2>&1 ||
    { tail -n 5 "$out.log" >&2; return 1; }
  [ -s "$out.png" ] || { echo "no screenshot $out.png" >&2; return 1; }
}

chromium_measure() {
  awk -v js="${CL_RECDIR:-$CL_TOP_SRCDIR/tests/recordings}/measure.js" '
    $0 == "</body>" { print "<script>"; while ((getline l < js) > 0) print l; print "</script>" }
    { print }' "$1" >"$3.html" || return 1
  grep -q "'cl-measure'" "$3.html" || { echo "measure.js not added to $1" >&2; return 1; }
  chromium_page "$3.html" "" "$3" "$2" 800
}
