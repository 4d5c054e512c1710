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
  check_page.py png SHOT.png WIDTH HEIGHT [--red]
      Chromium's screenshot: a PNG of that size that is not blank (many
      colours, a share of non-white pixels), with --red some pixels of the
      findings' red (#d62728)

Exit 0 when it holds, 1 with the reasons on stderr."""
import html.parser
import re
import struct
import sys
import zlib


class Dom(html.parser.HTMLParser):
    """the elements (tag, attributes) and the text of #errors"""

    def __init__(self):
        super().__init__()
        self.elements = []
        self.errors_text = ""
        self.in_errors = 0
        self.lane_texts = []
        self.in_lane = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a))
        if a.get("id") == "errors":
            self.in_errors = 1
        self.in_lane = tag == "text" and "lane" in a.get("class", "").split()

    def handle_endtag(self, tag):
        if self.in_errors and tag == "div":
            self.in_errors -= 1
        self.in_lane = False

    def handle_data(self, data):
        if self.in_errors:
            self.errors_text += data
        if self.in_lane:
            self.lane_texts.append(data)


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
    if len(argv) < 3 or argv[1] not in ("static", "dom", "png"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    if argv[1] == "static":
        check_static(argv[2], errors)
    elif argv[1] == "dom":
        check_dom(argv[2], argv[3:], errors)
    else:
        check_png(argv[2], argv[3:], errors)
    for m in errors:
        print("check_page: %s: %s" % (argv[2], m), file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
