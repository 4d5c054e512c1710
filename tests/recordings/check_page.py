#!/usr/bin/env python3
"""check_page.py - checks a page of cudalens-report --format=html, with the
standard library only.

  check_page.py static PAGE.html
      self-contained: no external scripts, styles, images or links (no src=,
      no <link>, no http(s) URL but the SVG namespace)
  check_page.py dom DOM.html [--lanes N] [--findings N] [--selected N]
                [--lane TEXT]... [--op-kind KIND]... [--selected-kind KIND]...
      the DOM that headless Chromium dumped (--dump-dom) after the script
      ran: <body data-rendered="ok">, no script error in #errors, N lane
      labels, N findings listed, at least N highlighted (selected) shapes
      and the dashed arrow of the selected finding, lanes titled TEXT, ops
      of each KIND drawn, a highlighted op of each KIND
  check_page.py layout DOM.html REPORT.json [--untimed]
      the layout that measure.js read in Chromium (chromium.sh's
      chromium_measure) as opened and after a click on each finding: every
      text inside the svg, the operations' and findings' labels inside the
      plot, lane names inside their column (at most a third of the
      width), shown whole or cut (an ellipsis) with the full name on hover; no two finding badges and no
      two tick labels overlapping; every kernel in the legend's kernel
      colour, opaque, at least 2 px wide (untimed: 4 px, hatched; with
      --untimed at least one is); after the click on finding N the panel
      shows N's notes and fix as REPORT.json (--format=json) has them
  check_page.py png SHOT.png WIDTH HEIGHT [--red]
      Chromium's screenshot: a PNG of that size that is not blank (many
      colours, a share of non-white pixels), with --red some pixels of the
      findings' red (#d62728)

Exit 0 when it holds, 1 with the reasons on stderr."""
import html.parser
import json
import re
import struct
import sys
import zlib


class Dom(html.parser.HTMLParser):
    """the elements (tag, attributes), the text of #errors and the lane
    names: as shown (their lines joined by a space) and on hover (the
    <title> inside the lane's <text>)"""

    def __init__(self):
        super().__init__()
        self.elements = []
        self.errors_text = ""
        self.in_errors = 0
        self.lanes = []      # [shown lines, title]
        self.in_lane = False
        self.in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a))
        if a.get("id") == "errors":
            self.in_errors = 1
        if tag == "text" and "lane" in a.get("class", "").split():
            self.in_lane = True
            self.lanes.append([[], ""])
        elif self.in_lane and tag == "tspan":
            self.lanes[-1][0].append("")
        elif self.in_lane and tag == "title":
            self.in_title = True

    def handle_endtag(self, tag):
        if self.in_errors and tag == "div":
            self.in_errors -= 1
        if tag == "title":
            self.in_title = False
        elif tag == "text":
            self.in_lane = False

    def handle_data(self, data):
        if self.in_errors:
            self.errors_text += data
        if self.in_lane and self.in_title:
            self.lanes[-1][1] += data
        elif self.in_lane:
            if not self.lanes[-1][0]:
                self.lanes[-1][0].append("")
            self.lanes[-1][0][-1] += data

    @property
    def lane_texts(self):
        """each lane's name as shown, or its full name where it is shown
        cut (ending in an ellipsis) and the full name starts with what is
        shown"""
        out = []
        for lines, title in self.lanes:
            shown = " ".join(lines)
            cut = shown.rstrip("\u2026")
            out.append(title if shown != cut and title.startswith(cut) else shown)
        return out


def classes(a):
    return a.get("class", "").split()


def check_static(path, errors):
    text = open(path, encoding="utf-8").read()
    d = Dom()
    d.feed(text)
    for tag, a in d.elements:
        if "src" in a:
            errors.append("<%s src=%r>: an external resource" % (tag, a["src"]))
        if tag == "link":
            errors.append("<link>: an external resource")
    urls = set(re.findall(r"https?://[^\s'\"<>)]+", text))
    urls.discard("http://www.w3.org/2000/svg")
    if urls:
        errors.append("URLs in the page: %s" % sorted(urls)[:5])
    if text.count("<script") != 2:
        errors.append("%d script elements, expected 2 (data, code)" % text.count("<script"))


def check_dom(path, args, errors):
    d = Dom()
    d.feed(open(path, encoding="utf-8").read())
    body = [a for t, a in d.elements if t == "body"]
    if not body or body[0].get("data-rendered") != "ok":
        errors.append("body data-rendered=%r, not \"ok\"" %
                      (body[0].get("data-rendered") if body else None))
    if d.errors_text.strip():
        errors.append("script errors: %s" % d.errors_text.strip()[:300])
    lanes = [a for t, a in d.elements if t == "text" and "lane" in classes(a)]
    findings = [a for t, a in d.elements if t == "li" and "finding" in classes(a)]
    selected = [a for t, a in d.elements if "selected" in classes(a) and "op" in classes(a)]
    missing = [a for t, a in d.elements if "missing" in classes(a) and "selected" in classes(a)]
    i = 0
    while i < len(args):
        opt, val = args[i], args[i + 1]
        i += 2
        if opt == "--lanes" and len(lanes) != int(val):
            errors.append("%d lanes, expected %s" % (len(lanes), val))
        elif opt == "--findings" and len(findings) != int(val):
            errors.append("%d findings listed, expected %s" % (len(findings), val))
        elif opt == "--selected":
            if len(selected) < int(val):
                errors.append("%d highlighted ops, expected at least %s" % (len(selected), val))
            if int(val) >= 2 and not missing:
                errors.append("no dashed arrow for the selected finding")
        elif opt == "--lane" and not any(val in t for t in d.lane_texts):
            errors.append("no lane titled %r (lanes: %s)" % (val, d.lane_texts))
        elif opt == "--op-kind" and not any(
                "op" in classes(a) and "kind-" + val in classes(a) for t, a in d.elements):
            errors.append("no %s drawn" % val)
        elif opt == "--selected-kind" and not any(
                "kind-" + val in classes(a) for a in selected):
            errors.append("no highlighted %s (highlighted: %s)"
                          % (val, [a.get("class") for a in selected]))
        elif opt not in ("--lanes", "--findings", "--selected", "--lane", "--op-kind",
                         "--selected-kind"):
            errors.append("unknown option %s" % opt)


class Measure(html.parser.HTMLParser):
    """the text of <pre id="cl-measure">"""

    def __init__(self):
        super().__init__()
        self.inside = False
        self.text = ""

    def handle_starttag(self, tag, attrs):
        self.inside = tag == "pre" and dict(attrs).get("id") == "cl-measure"

    def handle_endtag(self, tag):
        self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.text += data


TOL = 0.5  # px: sub-pixel rounding of the boxes


def inside(b, outer):
    return (b[0] >= outer[0] - TOL and b[1] >= outer[1] - TOL and
            b[2] <= outer[2] + TOL and b[3] <= outer[3] + TOL)


def overlap(a, b):
    return (a[0] < b[2] - TOL and b[0] < a[2] - TOL and
            a[1] < b[3] - TOL and b[1] < a[3] - TOL)


def check_layout(path, args, errors):
    m = Measure()
    m.feed(open(path, encoding="utf-8").read())
    if not m.text:
        errors.append("no <pre id=\"cl-measure\">: measure.js did not run")
        return
    data = json.loads(m.text)
    report = json.load(open(args[0]))["findings"]
    untimed = 0
    if not data["legend_kernel"]:
        errors.append("no kernel colour in the legend")
    for v in data["views"]:
        name, svg = v["name"], v["svg"]
        where = "%s at %dpx" % (name, data["width"])
        if not v["axis"]:
            errors.append("%s: no time axis" % where)
            continue
        plot = [v["axis"][0], svg[1], svg[2], svg[3]]
        if plot[0] - svg[0] > (svg[2] - svg[0]) / 3:
            errors.append("%s: the lane names take %d of the drawing's %d px"
                          % (where, plot[0] - svg[0], svg[2] - svg[0]))
        for t in v["texts"]:
            cls = t["cls"].split()
            if not inside(t["box"], svg):
                errors.append("%s: text %r (%s) at %s outside the svg %s"
                              % (where, t["text"], t["cls"], t["box"], svg))
            elif set(cls) & {"op-label", "missing-label", "badge-text"} and \
                    not inside(t["box"], plot):
                errors.append("%s: label %r at %s outside the plot %s"
                              % (where, t["text"], t["box"], plot))
        ticks = [t for t in v["texts"] if "tick" in t["cls"].split()]
        for i, a in enumerate(ticks):
            for b in ticks[i + 1:]:
                if overlap(a["box"], b["box"]):
                    errors.append("%s: tick labels %r and %r overlap" % (where, a["text"], b["text"]))
        for ln in v["lanes"]:
            title, text = ln["title"] or "", ln["shown"]
            if ln["box"][2] > plot[0] + TOL:
                errors.append("%s: lane name %r runs into the plot (%s, the plot begins at %s)"
                              % (where, text, ln["box"], plot[0]))
            cut = text.endswith("\u2026")
            shown = " ".join(text.rstrip("\u2026").split())
            if not title or not (shown == " ".join(title.split()) or
                                 (cut and " ".join(title.split()).startswith(shown) and shown)):
                errors.append("%s: lane shows %r, its full name on hover is %r"
                              % (where, text, title))
        bs = v["badges"]
        for i, a in enumerate(bs):
            for b in bs[i + 1:]:
                if overlap(a["box"], b["box"]):
                    errors.append("%s: the badges of findings %d and %d overlap (%s, %s)"
                                  % (where, a["finding"] + 1, b["finding"] + 1, a["box"], b["box"]))
        bad = {}
        for k in v["kernels"]:
            w = k["box"][2] - k["box"][0]
            unt = "untimed" in k["cls"].split()
            if k["fill"] != data["legend_kernel"] or k["opacity"] < 0.99:
                bad.setdefault("drawn %s at opacity %s, the legend's kernel is %s"
                               % (k["fill"], k["opacity"], data["legend_kernel"]), []).append(k)
            if w < (4 if unt else 2) - TOL:
                bad.setdefault("%s %.1f px wide" % ("untimed" if unt else "timed", w), []).append(k)
            if unt:
                untimed += 1
                if not k["hatched"]:
                    bad.setdefault("untimed, not hatched", []).append(k)
        for why, ks in bad.items():
            errors.append("%s: %d kernel(s) %s" % (where, len(ks), why))
        mf = re.match(r"finding-([0-9]+)$", name)
        if not mf:
            continue
        n = int(mf.group(1))
        f = report[n - 1]
        p = v["panel"]
        if not p or p["id"] != name:
            errors.append("%s: the panel does not show finding %d as active" % (where, n))
            continue
        if f.get("fix"):
            if not p["fix"] or f["fix"] not in p["fix"]:
                errors.append("%s: the panel shows the fix %r, the report %r" % (where, p["fix"], f["fix"]))
            elif p["fix_box"][3] - p["fix_box"][1] < 5:
                errors.append("%s: the fix is not visible (box %s)" % (where, p["fix_box"]))
        elif p["fix"]:
            errors.append("%s: a fix %r the report does not have" % (where, p["fix"]))
        rel = [r["message"] for r in f.get("related", [])]
        if len(rel) != len(p["notes"]) or not all(r in t for r, t in zip(rel, p["notes"])):
            errors.append("%s: the panel's notes %r, the report's %r" % (where, p["notes"], rel))
    if "--untimed" in args[1:] and not untimed:
        errors.append("no untimed kernel drawn")
    if len(data["views"]) != len(report) + 1:
        errors.append("%d views measured, expected %d (opened and each finding)"
                      % (len(data["views"]), len(report) + 1))


def png_pixels(path):
    """width, height and rows of RGB(A) tuples of an 8-bit RGB/RGBA PNG"""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("PNG of depth %d, colour type %d, interlace %d" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pred) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def check_png(path, args, errors):
    want_w, want_h = int(args[0]), int(args[1])
    try:
        w, h, bpp, rows = png_pixels(path)
    except (OSError, ValueError, zlib.error, TypeError, struct.error) as e:
        errors.append("%s: %s" % (path, e))
        return
    if (w, h) != (want_w, want_h):
        errors.append("screenshot is %dx%d, expected %dx%d" % (w, h, want_w, want_h))
    colours, non_white, red = set(), 0, 0
    for line in rows:
        for x in range(0, w * bpp, bpp):
            px = (line[x], line[x + 1], line[x + 2])
            colours.add(px)
            if px != (255, 255, 255):
                non_white += 1
            if abs(px[0] - 0xd6) < 12 and abs(px[1] - 0x27) < 12 and abs(px[2] - 0x28) < 12:
                red += 1
    if len(colours) < 16:
        errors.append("screenshot has %d colours: blank?" % len(colours))
    if non_white < w * h // 50:
        errors.append("screenshot is %d%% white: blank?" % (100 - 100 * non_white // (w * h)))
    if "--red" in args[2:] and red < 20:
        errors.append("no finding drawn in red (%d red pixels)" % red)


def main(argv):
    errors = []
    if len(argv) < 3 or argv[1] not in ("static", "dom", "layout", "png") or \
            (argv[1] == "layout" and len(argv) < 4):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    if argv[1] == "static":
        check_static(argv[2], errors)
    elif argv[1] == "dom":
        check_dom(argv[2], argv[3:], errors)
    elif argv[1] == "layout":
        check_layout(argv[2], argv[3:], errors)
    else:
        check_png(argv[2], argv[3:], errors)
    for m in errors:
        print("check_page: %s: %s" % (argv[2], m), file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
