#!/usr/bin/env python3
# same_recording.py - are two recordings of the same program by two builds
# of the shim the same?  Every table but meta, row for row (sorted), without
# the columns that differ between any two runs (times, thread and process
# ids), with every seq renumbered by its rank among the seqs that are not a
# host function's run (that thread races the program's: its seq moves
# between runs of one build), and equal up to a one-to-one renaming of
# large numbers (heap addresses: a change of the shim's own allocations
# moves the heap and the mappings; a pid-derived id), launch_args' words
# read as numbers.  The shim's own rows of modules (its
# path and build id) are left out.  Record both with ASLR off (setarch -R).
#   bench/same_recording.py BEFORE.db AFTER.db     (exit 0: the same)
import re
import sqlite3
import sys

SKIP = {"start_ns", "end_ns", "ns", "tid", "value_ns", "time_ns", "pid", "other"}


def dump(path):
    db = sqlite3.connect(path)
    tabs = [r[0] for r in db.execute(
        "select name from sqlite_master where type='table' order by name")
        if r[0] != "meta"]
    cols = {t: [r[1] for r in db.execute("pragma table_info(%s)" % t)
                if r[1] not in SKIP] for t in tabs}
    isseq = lambda n: n == "seq" or n.endswith("_seq")
    seqs = set()
    for t in tabs:
        if t != "host_func_runs":
            for n in filter(isseq, cols[t]):
                seqs |= {r[0] for r in db.execute("select %s from %s" % (n, t))
                         if r[0] is not None}
    rank = {v: i for i, v in enumerate(sorted(seqs))}
    lines = []
    for t in tabs:
        lines.append("== " + t)
        rows = []
        for r in db.execute("select %s from %s" % (",".join(cols[t]), t)):
            out = []
            for n, v in zip(cols[t], r):
                if isseq(n) and v is not None:
                    v = "h" if t == "host_func_runs" else "s%d" % rank[v]
                elif t == "launch_args" and n == "args":
                    # (13-byte words, big-endian: parameter, offset, flags,
                    # the pointer: tables.def)
                    v = " ".join("%d/%d/%d/%d" % (
                        int.from_bytes(v[i:i + 2], "big"),
                        int.from_bytes(v[i + 2:i + 4], "big"), v[i + 4],
                        int.from_bytes(v[i + 5:i + 13], "big"))
                        for i in range(0, len(v), 13))
                elif isinstance(v, bytes):
                    v = v.hex()
                out.append("" if v is None else str(v))
            rows.append("|".join(out))
        lines += sorted(x for x in rows if "libcudalens" not in x)
    return lines


a, b = dump(sys.argv[1]), dump(sys.argv[2])
num = re.compile(r"-?\b\d{10,}\b")
fw, bw, bad, same = {}, {}, [], 0
if len(a) != len(b):
    bad.append("%d lines against %d" % (len(a), len(b)))
for x, y in zip(a, b):
    if x == y:
        same += 1
        continue
    xn, yn = num.findall(x), num.findall(y)
    if num.split(x) != num.split(y) or len(xn) != len(yn) or any(
            fw.setdefault(u, v) != v or bw.setdefault(v, u) != u
            for u, v in zip(xn, yn)):
        bad.append("%s\n  %s" % (x[:200], y[:200]))
print("%s: %d tables, %d lines, %d byte-identical, %d renamed numbers" % (
    "same" if not bad else "DIFFERENT", sum(l.startswith("== ") for l in a),
    len(a), same, len(fw)))
for l in bad[:10]:
    print(l)
sys.exit(1 if bad else 0)
