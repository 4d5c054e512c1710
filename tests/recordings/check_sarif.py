#!/usr/bin/env python3
# check_sarif.py - a SARIF report says what the JSON report of the same
# recording says, and its rules are the registry's (tests/recordings/
# sarif.test), the findings suppressions took out being results with
# an external suppression after the others.  Usage: check_sarif.py REPORT.sarif REPORT.json CHECKS
# where CHECKS is the output of `cudalens-report --list-checks`.
# Exit 0 when it does, 1 (with the reasons) when not.
import json
import sys
import urllib.parse

LEVEL = {"error": "error", "warning": "warning", "note": "note"}


def main():
    sarif = json.load(open(sys.argv[1], encoding="utf-8"))
    report = json.load(open(sys.argv[2], encoding="utf-8"))
    checks = [line.rstrip("\n").split(None, 2) for line in open(sys.argv[3])
              if line.strip()]
    bad = []

    def want(cond, what):
        if not cond:
            bad.append(what)

    want(sarif.get("version") == "2.1.0", "version is not 2.1.0")
    want(len(sarif.get("runs", [])) == 1, "not one run")
    run = sarif["runs"][0]
    driver = run["tool"]["driver"]
    want(driver.get("name") == "cudalens-report", "tool name")
    rules = driver.get("rules", [])
    want([r["id"] for r in rules] == [c[0] for c in checks],
         "rules are not the registry's kinds, in its order")
    for r, (kind, sev, title) in zip(rules, checks):
        want(r["shortDescription"]["text"] == title, "%s: title" % kind)
        want(r["defaultConfiguration"]["level"] == LEVEL[sev],
             "%s: level %s for %s" % (kind, r["defaultConfiguration"]["level"], sev))
        want(r["help"]["text"].startswith(title + ". Rests on: "),
             "%s: help is not title + reference" % kind)
    want("originalUriBaseIds" not in run, "SRCROOT is defined")
    results = [r for r in run.get("results", []) if "suppressions" not in r]
    suppressed = [r for r in run.get("results", []) if "suppressions" in r]
    want(run.get("results", [])[:len(results)] == results,
         "suppressed results before results shown")
    want(len(suppressed) == report.get("suppressed", {}).get("count", 0),
         "%d suppressed results for %s suppressed findings"
         % (len(suppressed), report.get("suppressed", {}).get("count")))
    for i, res in enumerate(suppressed):
        sup = res["suppressions"]
        want(len(sup) == 1 and sup[0]["kind"] == "external" and
             sup[0]["justification"].startswith("suppressed by "),
             "suppressed result %d: not one external suppression" % i)
        want(res["properties"]["id"] == len(results) + i,
             "suppressed result %d: id" % i)
    findings = report["findings"]
    want(len(results) == len(findings),
         "%d results for %d findings" % (len(results), len(findings)))

    def check_loc(where, sloc, jloc):
        phys = sloc.get("physicalLocation")
        path = jloc["file"] or jloc["module"]
        if path is None:
            want(phys is None, "%s: a physical location without a file" % where)
            return
        uri = phys["artifactLocation"]["uri"]
        if "uriBaseId" in phys["artifactLocation"]:
            # --source-root: relative to the checkout, which the log leaves
            # to its reader
            want(phys["artifactLocation"]["uriBaseId"] == "SRCROOT",
                 "%s: unknown uriBaseId" % where)
            want(":" not in uri.split("/")[0], "%s: %s is not relative" % (where, uri))
        else:
            want(uri.startswith("file:///") or not path.startswith("/"),
                 "%s: %s is not a file URI" % (where, uri))
        got = urllib.parse.unquote_to_bytes(uri.replace("file://", "", 1))
        want(got == path.encode("utf-8", "surrogateescape") or "\ufffd" in path,
             "%s: uri %s for %s" % (where, uri, path))
        if jloc["file"] and jloc["line"]:
            want(phys.get("region", {}).get("startLine") == jloc["line"],
                 "%s: startLine" % where)

    for i, (res, f) in enumerate(zip(results, findings)):
        w = "result %d" % i
        want(res["ruleId"] == f["kind"], "%s: ruleId" % w)
        want(rules[res["ruleIndex"]]["id"] == res["ruleId"], "%s: ruleIndex" % w)
        want(res["level"] == LEVEL[f["severity"]], "%s: level" % w)
        want(res["message"]["text"].startswith(f["message"]), "%s: message" % w)
        want(res["partialFingerprints"]["cudalensFingerprint/v1"] == f["fingerprint"],
             "%s: fingerprint" % w)
        locs = res["locations"]
        if locs:
            check_loc(w, locs[0], f["location"])
        # notes with a place are related locations; notes without one
        # (details) are lines of the message
        rel = res.get("relatedLocations", [])
        placed = [fr for fr in f["related"]
                  if fr["location"]["file"] or fr["location"]["module"]]
        for fr in f["related"]:
            if fr not in placed:
                want("\nnote: " + fr["message"] in res["message"]["text"],
                     "%s: a note without a place" % w)
        want(len(rel) == len(placed), "%s: related locations" % w)
        for r, fr in zip(rel, placed):
            want(r["message"]["text"] == fr["message"], "%s: related message" % w)
            check_loc(w + " related", r, fr["location"])
    for b in bad:
        print("FAIL: %s: %s" % (sys.argv[1], b), file=sys.stderr)
    if not bad:
        print("ok: %s: %d rules, %d results" % (sys.argv[1], len(rules), len(results)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
