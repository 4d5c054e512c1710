#!/bin/sh
# torch_models.sh - records the PyTorch training loops of torch_models.py
# under cudalens on a GPU machine and tabulates their findings (kind x
# severity): they are correct programs, so every `error` is a false
# positive to explain or remove (issue 8).
#
#   tests/gpu/torch_models.sh BUILD_DIR OUTDIR [MODEL...]
#
# BUILD_DIR: .libs/libcudalens.so and cudalens-report (BUILD_DIR/lib-extra
# on the report's library path).  OUTDIR gets per model MODEL.db,
# MODEL.txt, MODEL.json, MODEL.out/.err, and findings.txt (the table, then
# every error finding in full).  STEPS (default 10) steps per model; 240 s
# per model at most.  Exit 0 when every model ran and no error was found.
set -u
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR OUTDIR [MODEL...]" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
models=${*:-resnet18 resnet18-loader transformer gpt2 vit bf16 cudagraph compile compile-graphs}
report() { LD_LIBRARY_PATH="$build/lib-extra" "$build/cudalens-report" "$@"; }
status=0
for m in $models; do
  rm -f "$out/$m"-[0-9]*.db
  t0=$(date +%s)
  env PYTHONUNBUFFERED=1 LD_PRELOAD="$build/.libs/libcudalens.so" \
    CUDALENS_OUTPUT="$out/$m-%p.db" timeout 240 "$PYTHON" "$here/torch_models.py" \
    "$m" "${STEPS:-10}" >"$out/$m.out" 2>"$out/$m.err"
  rc=$?
  echo "$m: exit $rc in $(($(date +%s) - t0)) s: $(tail -n 1 "$out/$m.out")"
  [ "$rc" -eq 0 ] || { status=1; tail -n 5 "$out/$m.err"; }
  # the main process's recording (DataLoader workers make none: no CUDA)
  for db in "$out/$m"-[0-9]*.db; do
    [ -e "$db" ] || continue
    b=$(basename "$db" .db)
    report --format=json "$db" >"$out/$b.json" 2>"$out/$b.report.err"
    report "$db" >"$out/$b.txt" 2>>"$out/$b.report.err"
  done
done
"$PYTHON" - "$out" $models <<'PY' | tee "$out/findings.txt"
import glob, json, os, sys
out, models = sys.argv[1], sys.argv[2:]
rows, errors = {}, []
for m in models:
    for path in sorted(glob.glob(os.path.join(out, m + "-[0-9]*.json"))):
        try:
            doc = json.load(open(path))
        except Exception as e:
            print("%s: no report (%s)" % (path, e))
            continue
        for f in doc.get("findings", []):
            key = (f["kind"], f["severity"])
            rows.setdefault(key, {}).setdefault(m, 0)
            rows[key][m] += 1
            if f["severity"] == "error":
                errors.append((m, f))
w = max([len(m) for m in models] + [6])
print("%-28s %-8s " % ("kind", "severity") + " ".join("%*s" % (w, m) for m in models))
for (k, s), c in sorted(rows.items()):
    print("%-28s %-8s " % (k, s) + " ".join("%*d" % (w, c.get(m, 0)) for m in models))
print("\n%d error finding(s)" % len(errors))
for m, f in errors:
    loc = f.get("location") or {}
    print("-- %s: [%s] %s:%s %s" % (m, f["kind"], loc.get("file"), loc.get("line"),
                                   f.get("message")))
    for r in f.get("related", []) or []:
        print("     related: %s:%s %s" % (r.get("file"), r.get("line"), r.get("message")))
sys.exit(1 if errors else 0)
PY
[ $? -eq 0 ] || status=1
exit $status
