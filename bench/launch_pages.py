"""launch_pages.py - the distinct data pages that libcudalens.so's own code
touches per kernel launch, from a Valgrind lackey trace (bench/launch_pages.sh
runs it).  A launch is the stretch from one entry of cl_kparams_scan (once a
launch) to the next; an access counts when the instruction making it lies in
the shim's code (not the C library's functions it calls).  Prints the median
count over the launches after the first SKIP, and the pages of one median
launch: the address, the mapping it lies in and, in the shim's own data,
the variable.  Each page is an entry of the TLB that the program's own work
between two calls may have evicted (bench/README.md, session 11).

    python3 launch_pages.py LACKEY_LOG MAPS SHIM [SKIP]
"""
import bisect
import subprocess
import sys


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: launch_pages.py LACKEY_LOG MAPS SHIM [SKIP]")
    log, maps_file, shim = sys.argv[1:4]
    skip = int(sys.argv[4]) if len(sys.argv) == 5 else 20
    maps = []
    for line in open(maps_file):
        f = line.split()
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        maps.append((lo, hi, f[1], f[2], f[5] if len(f) > 5 else ""))
    maps.sort()
    own = [m for m in maps if m[4] and m[4].endswith("/" + shim.split("/")[-1])]
    if not own:
        sys.exit("launch_pages.py: %s is not in %s" % (shim, maps_file))
    base = min(m[0] for m in own if int(m[3], 16) == 0)
    text = [(m[0], m[1]) for m in own if "x" in m[2]]
    nm = subprocess.run(["nm", "-n", "-S", "--defined-only", shim],
                        capture_output=True, text=True, check=True).stdout
    syms, entry = [], None
    for line in nm.splitlines():
        f = line.split()
        if f[-1] == "cl_kparams_scan":
            entry = base + int(f[0], 16)
        if len(f) == 4 and f[2] in "bBdDrR":
            syms.append((base + int(f[0], 16), int(f[1], 16), f[3]))
    if entry is None:
        sys.exit("launch_pages.py: no cl_kparams_scan in %s" % shim)
    syms.sort()
    starts = [s[0] for s in syms]
    los = [m[0] for m in maps]

    def in_text(a):
        return any(lo <= a < hi for lo, hi in text)

    def where(a):
        i = bisect.bisect_right(los, a) - 1
        if i < 0 or a >= maps[i][1]:
            return "?"
        name = maps[i][4].split("/")[-1]
        return name if name else "anonymous %x" % maps[i][0]

    def variable(a):
        i = bisect.bisect_right(starts, a) - 1
        if i >= 0 and a < syms[i][0] + max(syms[i][1], 1):
            return syms[i][2]
        return ""

    launches, cur, ours = [], None, False
    with open(log) as f:
        for line in f:
            if line[0] == "I":
                a = int(line[3:line.index(",")], 16)
                ours = in_text(a)
                if a == entry:
                    if cur is not None:
                        launches.append(cur)
                    cur = {}
            elif line[0] == " " and ours and cur is not None:
                a = int(line[3:line.index(",")], 16)
                cur.setdefault(a >> 12, a)
    steady = launches[skip:]
    if not steady:
        sys.exit("launch_pages.py: %d launches, none after the first %d"
                 % (len(launches), skip))
    counts = sorted(len(w) for w in steady)
    med = counts[len(counts) // 2]
    print("data pages the shim's code touches a launch: median %d (%d-%d) "
          "over %d launches" % (med, counts[0], counts[-1], len(steady)))
    w = next(w for w in steady if len(w) == med)
    for page, a in sorted(w.items()):
        print("  %12x  %-32s %s" % (page << 12, where(a), variable(a)))


if __name__ == "__main__":
    main()
