#!/usr/bin/env python3
"""check_trace.py - checks a trace of cudalens-report --format=perfetto
against the fields the Trace Event Format documents (the JSON Object
Format: {"traceEvents": [...], "displayTimeUnit": "ns"|"ms"}; complete
events "X" with ts and dur, instant events "i" with scope s, flow events
"s"/"f" with id, metadata events "M" process_name / thread_name /
*_sort_index with args) and against the JSON report of the same recording:
every process and thread used is named, stream work sits on the devices'
processes, the complete events of a thread nest, every flow is one start
and one finish ("f" binding to its
enclosing slice, bp "e"), and every finding of the report is an instant
event with its kind, severity and message.

Usage: check_trace.py TRACE.json REPORT.json
Exit 0 when it holds, 1 with the reasons on stderr."""
import collections
import json
import sys

PHASES = {"X", "i", "s", "f", "M"}
METADATA = {"process_name": "name", "thread_name": "name",
            "process_sort_index": "sort_index",
            "thread_sort_index": "sort_index"}
STREAM_WORK = {"kernel", "copy", "memset", "record", "wait"}


def main(trace_path, report_path):
    errors = []

    def err(msg):
        if len(errors) < 30:
            errors.append(msg)

    with open(trace_path, encoding="utf-8") as f:
        trace = json.load(f)
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        print("not the JSON Object Format (no traceEvents array)", file=sys.stderr)
        return 1
    if trace.get("displayTimeUnit") not in ("ns", "ms"):
        err("displayTimeUnit is %r, not \"ns\" or \"ms\"" % trace.get("displayTimeUnit"))

    process_names, thread_names = {}, {}
    used_pids, used_threads = set(), set()
    flows = collections.defaultdict(list)
    findings = []
    slices = collections.defaultdict(list)
    for n, e in enumerate(trace["traceEvents"]):
        where = "event %d (%s)" % (n, e.get("name") if isinstance(e, dict) else "?")
        if not isinstance(e, dict):
            err("%s is not an object" % where)
            continue
        ph = e.get("ph")
        if ph not in PHASES:
            err("%s: phase %r" % (where, ph))
            continue
        if not isinstance(e.get("name"), str):
            err("%s: no name" % where)
        for k in ("pid", "tid"):
            if not isinstance(e.get(k), int):
                err("%s: %s is not an integer" % (where, k))
        if ph != "M":
            if not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0:
                err("%s: ts %r" % (where, e.get("ts")))
            used_pids.add(e.get("pid"))
        if ph == "M":
            key = METADATA.get(e.get("name"))
            args = e.get("args")
            if key is None or not isinstance(args, dict) or key not in args:
                err("%s: metadata without args.%s" % (where, key))
                continue
            if e["name"] == "process_name":
                process_names[e["pid"]] = args["name"]
            elif e["name"] == "thread_name":
                thread_names[(e["pid"], e["tid"])] = args["name"]
        elif ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                err("%s: dur %r" % (where, e.get("dur")))
                continue
            used_threads.add((e["pid"], e["tid"]))
            slices[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"], e.get("cat")))
        elif ph == "i":
            if e.get("s") not in ("g", "p", "t"):
                err("%s: instant scope %r" % (where, e.get("s")))
            if e.get("s") == "t":
                used_threads.add((e["pid"], e["tid"]))
            if e.get("cat") == "finding":
                findings.append(e)
        else:
            if "id" not in e or not isinstance(e.get("cat"), str):
                err("%s: flow event without id or cat" % where)
                continue
            if ph == "f" and e.get("bp") != "e":
                err("%s: flow finish without bp \"e\"" % where)
            flows[(e["cat"], e["id"])].append(e)

    for pid in sorted(used_pids):
        if pid not in process_names:
            err("process %s has no process_name" % pid)
    for t in sorted(used_threads):
        if t not in thread_names:
            err("thread %s of process %s has no thread_name" % (t[1], t[0]))
    for (pid, tid), v in slices.items():
        name = process_names.get(pid, "")
        for ts, end, cat in v:
            if cat in STREAM_WORK and not name.startswith("GPU "):
                err("%s on %r, not on a GPU's process" % (cat, name))
                break
    for (pid, tid), v in slices.items():
        # complete events of one thread nest (as integer nanoseconds, which
        # is how viewers read the microseconds)
        stack = []
        for ts, end, cat in sorted(((round(a * 1000), round(b * 1000), c) for a, b, c in v),
                                   key=lambda s: (s[0], -s[1])):
            while stack and stack[-1] <= ts:
                stack.pop()
            if stack and end > stack[-1]:
                err("slices overlap without nesting on thread %s of process %s at ts %s us"
                    % (tid, pid, ts / 1000))
                break
            stack.append(end)
    for key, v in flows.items():
        phases = sorted(e["ph"] for e in v)
        if phases != ["f", "s"]:
            err("flow %s: phases %s, not one start and one finish" % (key, phases))
            continue
        for e in v:
            # the point binds to a slice of its thread that encloses it
            enclosing = [s for s in slices.get((e["pid"], e["tid"]), [])
                         if s[0] <= e["ts"] <= s[1]]
            if not enclosing:
                err("flow %s: no slice at ts %s on thread %s" % (key, e["ts"], e["tid"]))

    want = collections.Counter(
        (f["kind"], f["severity"], f["message"]) for f in report["findings"])
    got = collections.Counter(
        (e.get("args", {}).get("kind"), e.get("args", {}).get("severity"),
         e.get("args", {}).get("message")) for e in findings)
    if want != got:
        err("findings differ from the report: missing %s, extra %s"
            % (list(want - got)[:3], list(got - want)[:3]))
    for e in findings:
        if not e["name"].endswith(e.get("args", {}).get("kind", "?")):
            err("finding event %r does not name its kind" % e["name"])

    for m in errors:
        print("check_trace: " + m, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
