/* out_html.c - the timeline as one self-contained HTML page (--format=html):
 * no network, the style, the script and the data inline.  The data is the
 * timeline (timeline.c) and the findings as JSON in a <script
 * type="application/json"> element; the page's script draws it as SVG: per
 * device its streams as named lanes, the operations as bars at their GPU
 * times, event record -> stream wait edges as arrows, the host threads'
 * calls and host accesses on host lanes, and each finding's operations
 * outlined with a dashed red arrow between them (the ordering the program
 * lacks).  Stream work without GPU times is drawn in its kind's colour,
 * hatched; finding badges of one lane stand side by side; labels stay
 * inside the drawing; lane names wrap or are cut, full on hover.  Beside
 * it the findings; a click on one (or the link #finding-N) zooms to its
 * operations, highlights them and shows its notes and fix (the finding's
 * related places and fix, as the text report has them).  When it has
 * drawn, the script sets data-rendered="ok" on <body>; a script error sets
 * "error" and shows the message in #errors (tests/recordings/html.test
 * checks both in headless Chromium; check_page.py layout measures the
 * drawing).  The script uses single quotes only and
 * no backslashes, so it sits in C strings as it is. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/json.h"
#include "output/output.h"
#include "util.h"

static const char page_head[] =
    "<!DOCTYPE html>\n"
    "<html lang=\"en\">\n"
    "<head>\n"
    "<meta charset=\"utf-8\">\n"
    "<meta name=\"generator\" content=\"cudalens-report " PACKAGE_VERSION "\">\n"
    "<title>cudalens timeline</title>\n"
    "<style>\n"
    "body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #222; }\n"
    "header { padding: 8px 16px; background: #263238; color: #eee; }\n"
    "header h1 { font-size: 16px; margin: 0; }\n"
    "main { display: flex; align-items: flex-start; }\n"
    "#timeline { flex: 1; min-width: 0; padding: 8px; }\n"
    "#findings { width: clamp(260px, 32vw, 420px); flex: none; padding: 8px 12px; border-left: 1px solid #ccc;"
    " max-height: calc(100vh - 80px); overflow-y: auto; position: relative; }\n"
    "#findings h2 { font-size: 14px; margin: 4px 0 8px; }\n"
    "#findings ol { padding-left: 22px; margin: 0; }\n"
    "#findings li { margin-bottom: 8px; padding: 4px 6px; border-radius: 4px; cursor: pointer; }\n"
    "#findings li.active { background: #fde0dc; outline: 2px solid #d62728; }\n"
    "#findings a { color: inherit; text-decoration: none; font-weight: 600; }\n"
    "#findings .msg { color: #444; font-size: 12px; }\n"
    "#findings .details { font-size: 12px; margin-top: 4px; color: #333; cursor: auto; }\n"
    "#findings .notes { margin: 0; padding-left: 16px; list-style: disc; }\n"
    "#findings .where { font-family: ui-monospace, monospace; color: #333; }\n"
    "#findings .fix { margin-top: 4px; padding: 3px 6px; background: #e8f5e9; border-radius: 3px; }\n"
    ".sev-error { color: #b71c1c; } .sev-warning { color: #e65100; } .sev-note { color: #1565c0; }\n"
    "#controls { margin-bottom: 6px; } #controls button { margin-right: 6px; }\n"
    "#legend span { display: inline-block; margin-right: 10px; }\n"
    "#legend i { display: inline-block; width: 12px; height: 10px; margin-right: 4px; }\n"
    "#legend i.untimed { background-image: repeating-linear-gradient(45deg, #fff0 0 2px, #fffc 2px 4px);"
    " outline: 1px solid #1a1a1a; }\n"
    "#chart { overflow-x: hidden; }\n"
    "svg text { font-size: 11px; }\n"
    ".lane-bg { fill: #fafafa; } .lane-bg.odd { fill: #f0f0f0; }\n"
    ".group { font-weight: 700; font-size: 12px; }\n"
    ".op { stroke: #0003; stroke-width: 0.5; }\n"
    ".op.untimed { stroke: #1a1a1a; stroke-width: 0.75; } .hatch { pointer-events: none; }\n"
    ".kind-kernel { fill: #4e79a7; } .kind-copy { fill: #59a14f; } .kind-memset { fill: #edc948; }\n"
    ".kind-record, .kind-wait { fill: #9c755f; } .kind-call { fill: #bab0ac; }\n"
    ".kind-sync { fill: #f28e2b; } .kind-access { fill: #e15759; }\n"
    ".op.finding-op { stroke: #d62728; stroke-width: 2; }\n"
    ".op.selected { stroke: #d62728; stroke-width: 4; }\n"
    ".flow { stroke: #5b3f8c; stroke-width: 1.5; fill: none; }\n"
    ".missing { stroke: #d62728; stroke-width: 2; stroke-dasharray: 6 4; fill: none; }\n"
    ".missing.selected { stroke-width: 3.5; }\n"
    ".op-label { font-weight: 700; fill: #b71c1c; }\n"
    ".missing-label { fill: #d62728; font-weight: 700; }\n"
    ".op-label, .missing-label { paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }\n"
    ".badge-g { cursor: pointer; } .badge { fill: #d62728; } .badge-lead { stroke: #d62728; }\n"
    ".badge-text { fill: #fff; font-size: 10px; font-weight: 700; }\n"
    ".axis { stroke: #999; } .tick { fill: #555; font-size: 10px; }\n"
    "#errors { color: #b71c1c; background: #ffebee; padding: 8px; margin: 8px; }\n"
    "</style>\n"
    "</head>\n"
    "<body>\n"
    "<header><h1 id=\"title\">cudalens timeline</h1><div id=\"subtitle\"></div></header>\n"
    "<div id=\"errors\" hidden></div>\n"
    "<main>\n"
    "<section id=\"timeline\">\n"
    "<div id=\"controls\"><button id=\"show-all\" type=\"button\">Show all</button>"
    "<span id=\"range\"></span></div>\n"
    "<div id=\"legend\"></div>\n"
    "<div id=\"chart\"></div>\n"
    "</section>\n"
    "<aside id=\"findings\"><h2 id=\"findings-title\">Findings</h2><ol id=\"finding-list\"></ol></aside>\n"
    "</main>\n";

/* the page's script: reads #cl-data, draws, handles clicks */
static const char page_script[] =
    "'use strict';\n"
    "window.onerror = function (msg, src, line) {\n"
    "  const e = document.getElementById('errors');\n"
    "  const d = document.createElement('div');\n"
    "  d.textContent = 'script error: ' + msg + ' (line ' + line + ')';\n"
    "  e.appendChild(d);\n"
    "  e.hidden = false;\n"
    "  document.body.setAttribute('data-rendered', 'error');\n"
    "};\n"
    "const DATA = JSON.parse(document.getElementById('cl-data').textContent);\n"
    "const SVGNS = 'http://www.w3.org/2000/svg';\n"
    "const LANE_H = 22, LANE_H2 = 34, GROUP_H = 22, AXIS_H = 24, BADGE_H = 14, PAD_B = 8;\n"
    "const POINTS = ['record', 'wait', 'access'];\n"
    "const ELLIPSIS = String.fromCharCode(8230);\n"
    "let view = [0, Math.max(DATA.end_ns, 1)];\n"
    "let selected = -1;\n"
    "\n"
    "function el(name, attrs, parent, text) {\n"
    "  const e = document.createElementNS(SVGNS, name);\n"
    "  for (const k in attrs) e.setAttribute(k, attrs[k]);\n"
    "  if (text !== undefined) e.textContent = text;\n"
    "  if (parent) parent.appendChild(e);\n"
    "  return e;\n"
    "}\n"
    "\n"
    "function fmtTime(ns) {\n"
    "  if (Math.abs(ns) >= 1e6) return +(ns / 1e6).toFixed(3) + ' ms';\n"
    "  if (Math.abs(ns) >= 1e3) return +(ns / 1e3).toFixed(3) + ' us';\n"
    "  return ns.toFixed(0) + ' ns';\n"
    "}\n"
    "\n"
    "function isPoint(op) { return POINTS.indexOf(op.kind) >= 0; }\n"
    "/* stream work without GPU time: drawn at its API call's host time, hatched */\n"
    "function untimed(op) { return !op.timed && !isPoint(op) && !DATA.lanes[op.lane].host; }\n"
    "\n"
    "/* S cut to MAXW pixels (an ellipsis at the cut) as M measures it */\n"
    "function fit(m, s, cls, maxW) {\n"
    "  if (m(s, cls) <= maxW) return s;\n"
    "  let lo = 0, hi = s.length - 1;\n"
    "  while (lo < hi) {\n"
    "    const k = Math.ceil((lo + hi) / 2);\n"
    "    if (m(s.slice(0, k) + ELLIPSIS, cls) <= maxW) lo = k; else hi = k - 1;\n"
    "  }\n"
    "  return lo ? s.slice(0, lo) + ELLIPSIS : '';\n"
    "}\n"
    "\n"
    "/* S in one line, or two broken at a space, the second cut to fit */\n"
    "function wrap(m, s, cls, maxW) {\n"
    "  if (m(s, cls) <= maxW) return [s];\n"
    "  const words = s.split(' ');\n"
    "  let k = 0, line = '';\n"
    "  while (k < words.length - 1) {\n"
    "    const next = line ? line + ' ' + words[k] : words[k];\n"
    "    if (m(next, cls) > maxW) break;\n"
    "    line = next;\n"
    "    k++;\n"
    "  }\n"
    "  if (!line) return [fit(m, s, cls, maxW)];\n"
    "  return [line, fit(m, words.slice(k).join(' '), cls, maxW)];\n"
    "}\n"
    "\n"
    "/* rows: a header per device (and the host), then its lanes, a lane two\n"
    " * lines high when its name needs them */\n"
    "function layout(m, labelW, width) {\n"
    "  const rows = [], laneY = [], laneH = [];\n"
    "  let y = AXIS_H, group = null;\n"
    "  DATA.lanes.forEach(function (l, i) {\n"
    "    const g = l.host ? 'host' : 'GPU ' + l.device;\n"
    "    if (g !== group) {\n"
    "      group = g;\n"
    "      const dev = DATA.devices.find(function (d) { return d.ordinal === l.device; });\n"
    "      const full = l.host ? DATA.host_title : g + ': ' + (dev ? dev.name : 'unknown device');\n"
    "      rows.push({ header: fit(m, full, 'group', width - 8), full: full, y: y });\n"
    "      y += GROUP_H;\n"
    "    }\n"
    "    const lines = wrap(m, l.title, 'lane', labelW - 16);\n"
    "    laneY[i] = y;\n"
    "    laneH[i] = lines.length > 1 ? LANE_H2 : LANE_H;\n"
    "    rows.push({ lane: i, lines: lines, y: y });\n"
    "    y += laneH[i];\n"
    "  });\n"
    "  return { rows: rows, laneY: laneY, laneH: laneH, height: y + PAD_B };\n"
    "}\n"
    "\n"
    "/* the ticks of the time axis: 1, 2 or 5 times a power of ten, at most N */\n"
    "function tickStep(span, n) {\n"
    "  const p = Math.pow(10, Math.floor(Math.log10(span / n)));\n"
    "  const k = [1, 2, 5, 10].find(function (k) { return span / (p * k) <= n; });\n"
    "  return p * (k || 10);\n"
    "}\n"
    "\n"
    "/* badges of one lane in a row, none over another, each as near its op\n"
    " * (d: the op's centre) as the others let it; what does not fit between LO\n"
    " * and HI becomes one +N badge */\n"
    "function packBadges(bs, lo, hi, m) {\n"
    "  bs.sort(function (a, b) { return a.d - b.d; });\n"
    "  let room = hi - lo, keep = 0;\n"
    "  while (keep < bs.length && room >= bs[keep].w) { room -= bs[keep].w + 2; keep++; }\n"
    "  if (keep < bs.length) {\n"
    "    const cut = Math.max(keep - 1, 0), rest = bs.slice(cut), text = '+' + rest.length;\n"
    "    bs.length = cut;\n"
    "    bs.push({ i: rest[0].i, d: rest[0].d, w: m(text, 'badge-text') + 8, text: text, lane: rest[0].lane });\n"
    "  }\n"
    "  let prev = lo - 2;\n"
    "  bs.forEach(function (b) { b.x = Math.max(b.d - b.w / 2, prev + 2); prev = b.x + b.w; });\n"
    "  let limit = hi + 2;\n"
    "  for (let k = bs.length - 1; k >= 0; k--) {\n"
    "    bs[k].x = Math.min(bs[k].x, limit - 2 - bs[k].w);\n"
    "    limit = bs[k].x;\n"
    "  }\n"
    "  return bs;\n"
    "}\n"
    "\n"
    "function draw() {\n"
    "  const chart = document.getElementById('chart');\n"
    "  const width = Math.max(chart.clientWidth, 320);\n"
    "  chart.textContent = '';\n"
    "  const svg = el('svg', { width: width, height: 100, id: 'timeline-svg' }, chart);\n"
    "  const probe = el('text', { x: 0, y: 50 }, svg);\n"
    "  const widths = {};\n"
    "  const m = function (s, cls) {\n"
    "    const key = cls + ' ' + s;\n"
    "    if (!(key in widths)) {\n"
    "      probe.setAttribute('class', cls);\n"
    "      probe.textContent = s;\n"
    "      widths[key] = probe.getComputedTextLength();\n"
    "    }\n"
    "    return widths[key];\n"
    "  };\n"
    "  const labelW = Math.round(Math.min(330, Math.max(110, width * 0.26)));\n"
    "  const plotW = width - labelW - 10, plotR = labelW + plotW;\n"
    "  const L = layout(m, labelW, width);\n"
    "  svg.setAttribute('height', L.height);\n"
    "  svg.setAttribute('data-label-width', labelW);\n"
    "  const x = function (t) { return labelW + (t - view[0]) / (view[1] - view[0]) * plotW; };\n"
    "  const defs = el('defs', {}, svg);\n"
    "  [['arrow', '#5b3f8c'], ['arrow-red', '#d62728']].forEach(function (a) {\n"
    "    const mk = el('marker', { id: a[0], viewBox: '0 0 10 10', refX: 9, refY: 5,\n"
    "      markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);\n"
    "    el('path', { d: 'M0,0 L10,5 L0,10 z', fill: a[1] }, mk);\n"
    "  });\n"
    "  const hatch = el('pattern', { id: 'hatch', width: 5, height: 5, patternUnits: 'userSpaceOnUse',\n"
    "    patternTransform: 'rotate(45)' }, defs);\n"
    "  el('rect', { x: 0, y: 0, width: 2, height: 5, fill: '#fff', 'fill-opacity': 0.8 }, hatch);\n"
    "  const clip = el('clipPath', { id: 'plot' }, defs);\n"
    "  el('rect', { x: labelW, y: 0, width: plotW + 4, height: L.height }, clip);\n"
    "  L.rows.forEach(function (r, k) {\n"
    "    if (r.header !== undefined) {\n"
    "      const h = el('text', { x: 4, y: r.y + 15, class: 'group' }, svg, r.header);\n"
    "      if (r.header !== r.full) el('title', {}, h, r.full);\n"
    "      return;\n"
    "    }\n"
    "    const l = DATA.lanes[r.lane], h = L.laneH[r.lane];\n"
    "    el('rect', { x: 0, y: r.y, width: width, height: h, class: 'lane-bg' + (k % 2 ? ' odd' : '') }, svg);\n"
    "    const t = el('text', { class: 'lane', 'data-lane': r.lane }, svg);\n"
    "    r.lines.forEach(function (s, n) {\n"
    "      el('tspan', { x: 12, y: r.y + (r.lines.length > 1 ? 14 + 13 * n : 15) }, t, s);\n"
    "    });\n"
    "    el('title', {}, t, l.title);\n"
    "  });\n"
    "  /* the time axis: as many ticks as have room, labels inside the drawing */\n"
    "  el('line', { x1: labelW, x2: plotR, y1: AXIS_H - 4, y2: AXIS_H - 4, class: 'axis' }, svg);\n"
    "  const span = view[1] - view[0];\n"
    "  const step = tickStep(span, Math.max(2, Math.floor(plotW / 80)));\n"
    "  const t0 = Math.ceil(view[0] / step) * step;\n"
    "  for (let k = 0; t0 + k * step <= view[1]; k++) {\n"
    "    const t = t0 + k * step, s = fmtTime(t), w = m(s, 'tick');\n"
    "    if (x(t) - w / 2 < 2 || x(t) + w / 2 > width - 2) continue;\n"
    "    el('text', { x: x(t), y: AXIS_H - 8, class: 'tick', 'text-anchor': 'middle' }, svg, s);\n"
    "  }\n"
    "  const plot = el('g', { 'clip-path': 'url(#plot)' }, svg);\n"
    "  const findingOf = {};\n"
    "  DATA.findings.forEach(function (f, i) {\n"
    "    f.ops.forEach(function (o) { if (o >= 0 && !(o in findingOf)) findingOf[o] = i; });\n"
    "  });\n"
    "  const mid = function (o) { const op = DATA.ops[o]; return x((op.start + op.end) / 2); };\n"
    "  const cy = function (o) { const l = DATA.ops[o].lane; return L.laneY[l] + L.laneH[l] / 2; };\n"
    "  const labels = [];\n"
    "  DATA.ops.forEach(function (op, i) {\n"
    "    if (op.end < view[0] || op.start > view[1]) return;\n"
    "    const c = cy(i), unt = untimed(op);\n"
    "    let cls = 'op kind-' + op.kind + (unt ? ' untimed' : '');\n"
    "    if (i in findingOf) cls += ' finding-op';\n"
    "    if (selected >= 0 && DATA.findings[selected].ops.indexOf(i) >= 0) cls += ' selected';\n"
    "    let shape;\n"
    "    if (isPoint(op)) {\n"
    "      const px = x(op.start), s = 6;\n"
    "      shape = el('path', { d: 'M' + px + ',' + (c - s) + ' l' + s + ',' + s + ' l' + (-s) + ',' + s +\n"
    "        ' l' + (-s) + ',' + (-s) + ' z', class: cls, 'data-op': i }, plot);\n"
    "    } else {\n"
    "      const x0 = x(op.start), w = Math.max(x(op.end) - x0, unt ? 5 : 2);\n"
    "      shape = el('rect', { x: x0, y: c - 8, width: w, height: 16, class: cls, 'data-op': i }, plot);\n"
    "      if (unt) el('rect', { x: x0, y: c - 8, width: w, height: 16, class: 'hatch', fill: 'url(#hatch)' }, plot);\n"
    "    }\n"
    "    el('title', {}, shape, op.name + ' (call ' + op.seq + '): ' + fmtTime(op.start) + ' to ' +\n"
    "      fmtTime(op.end) + (op.timed ? ', GPU time' : unt ?\n"
    "      ', no GPU time recorded: drawn at its API call (hatched)' : ''));\n"
    "    if (i in findingOf) shape.addEventListener('click', function () { select(findingOf[i], false); });\n"
    "    if (cls.indexOf('selected') >= 0) labels.push(i);\n"
    "  });\n"
    "  DATA.flows.forEach(function (f) {\n"
    "    el('path', { d: 'M' + mid(f.from) + ',' + cy(f.from) + ' L' + mid(f.to) + ',' + cy(f.to),\n"
    "      class: 'flow', 'marker-end': 'url(#arrow)' }, plot);\n"
    "  });\n"
    "  /* each finding: a dashed arrow between its operations, a numbered badge */\n"
    "  const badges = {}, arrows = [];\n"
    "  DATA.findings.forEach(function (f, i) {\n"
    "    const ops = f.ops.filter(function (o) { return o >= 0; });\n"
    "    if (ops.length === 2 && ops[0] !== ops[1]) {\n"
    "      const a = ops[0], b = ops[1];\n"
    "      const ax = mid(a), ay = cy(a), bx = mid(b), by = cy(b);\n"
    "      const qx = (ax + bx) / 2, qy = (ay + by) / 2 - (ay === by ? 18 : 0);\n"
    "      el('path', { d: 'M' + ax + ',' + ay + ' Q' + qx + ',' + qy + ' ' + bx + ',' + by,\n"
    "        class: 'missing' + (i === selected ? ' selected' : ''),\n"
    "        'marker-end': 'url(#arrow-red)', 'data-finding': i }, plot);\n"
    "      if (i === selected) arrows.push([a, b, ax, ay, bx, by, qx, qy]);\n"
    "    }\n"
    "    if (ops.length) {\n"
    "      const o = ops[ops.length - 1], d = mid(o), lane = DATA.ops[o].lane;\n"
    "      if (d < labelW - BADGE_H || d > plotR + BADGE_H) return;\n"
    "      const text = String(i + 1);\n"
    "      (badges[lane] = badges[lane] || []).push({ i: i, d: d, w: Math.max(BADGE_H, m(text, 'badge-text') + 6),\n"
    "        text: text, lane: lane });\n"
    "    }\n"
    "  });\n"
    "  /* labels go where no badge and no other label is (taken: their boxes) */\n"
    "  const taken = [];\n"
    "  const free = function (x0, y0, x1, y1) {\n"
    "    return !taken.some(function (r) { return x0 < r[2] && x1 > r[0] && y0 < r[3] && y1 > r[1]; });\n"
    "  };\n"
    "  Object.keys(badges).forEach(function (lane) {\n"
    "    packBadges(badges[lane], labelW + 1, plotR + 2, m).forEach(function (b) {\n"
    "      const y = L.laneY[b.lane] + 1, cx = b.x + b.w / 2;\n"
    "      if (Math.abs(cx - b.d) > b.w / 2)\n"
    "        el('path', { d: 'M' + cx + ',' + (y + BADGE_H) + ' L' + b.d + ',' + (y + BADGE_H + 4), class: 'badge-lead' }, plot);\n"
    "      const g = el('g', { class: 'badge-g', 'data-finding': b.i }, plot);\n"
    "      el('rect', { x: b.x, y: y, width: b.w, height: BADGE_H, rx: BADGE_H / 2, class: 'badge' }, g);\n"
    "      el('text', { x: cx, y: y + 10.5, class: 'badge-text', 'text-anchor': 'middle' }, g, b.text);\n"
    "      el('title', {}, g, 'finding ' + (b.i + 1) + ': ' + DATA.findings[b.i].kind);\n"
    "      g.addEventListener('click', function () { select(b.i, false); });\n"
    "      taken.push([b.x, y, b.x + b.w, y + BADGE_H]);\n"
    "    });\n"
    "  });\n"
    "  /* the selected finding's operations named beside them, inside the plot:\n"
    "   * after the op, else before it, where there is room and nothing else */\n"
    "  labels.forEach(function (i) {\n"
    "    const op = DATA.ops[i], w = m(op.name, 'op-label'), c = cy(i);\n"
    "    const after = x(op.end) + (isPoint(op) ? 6 : 0) + 5;\n"
    "    const before = x(op.start) - (isPoint(op) ? 6 : 0) - 5;\n"
    "    const right = plotR - after, left = before - labelW;\n"
    "    const tries = [[after, 'start', right], [before, 'end', left]].filter(function (t) {\n"
    "      const x0 = t[1] === 'end' ? t[0] - w : t[0];\n"
    "      return w <= t[2] && free(x0, c - 8, x0 + w, c + 6);\n"
    "    });\n"
    "    let t = tries[0];\n"
    "    if (!t) t = right >= left && right >= 40 ? [after, 'start', right] : left >= 40 ? [before, 'end', left]\n"
    "      : [labelW + 4, 'start', plotW - 8];\n"
    "    const s = fit(m, op.name, 'op-label', t[2]), w2 = m(s, 'op-label');\n"
    "    const x0 = t[1] === 'end' ? t[0] - w2 : t[0];\n"
    "    const e = el('text', { x: t[0], y: c + 4, class: 'op-label', 'text-anchor': t[1] }, plot, s);\n"
    "    el('title', {}, e, op.name);\n"
    "    taken.push([x0, c - 8, x0 + w2, c + 6]);\n"
    "  });\n"
    "  /* the missing ordering's words: below its operations, else at the\n"
    "   * arrow's middle, else above them; inside the drawing */\n"
    "  arrows.forEach(function (r) {\n"
    "    const a = r[0], b = r[1], ax = r[2], ay = r[3], bx = r[4], by = r[5], qx = r[6], qy = r[7];\n"
    "    const s = fit(m, 'nothing orders these', 'missing-label', plotW - 8), w = m(s, 'missing-label');\n"
    "    const la = DATA.ops[a].lane, lb = DATA.ops[b].lane;\n"
    "    const lx = Math.min(Math.max((ax + 2 * qx + bx) / 4, labelW + 4 + w / 2), plotR - 4 - w / 2);\n"
    "    const ys = [Math.max(L.laneY[la] + L.laneH[la], L.laneY[lb] + L.laneH[lb]) + 12,\n"
    "      (ay + 2 * qy + by) / 4 + 4,\n"
    "      Math.min(L.laneY[la], L.laneY[lb]) - 4].filter(function (y) {\n"
    "      return y >= AXIS_H + 12 && y <= L.height - 4;\n"
    "    });\n"
    "    const ly = ys.find(function (y) { return free(lx - w / 2 - 3, y - 13, lx + w / 2 + 3, y + 6); }) ||\n"
    "      ys[0] || L.height - 4;\n"
    "    el('text', { x: lx, y: ly, class: 'missing-label', 'text-anchor': 'middle' }, plot, s);\n"
    "  });\n"
    "  probe.remove();\n"
    "  document.getElementById('range').textContent = ' ' + fmtTime(view[0]) + ' to ' + fmtTime(view[1]);\n"
    "}\n"
    "\n"
    "/* the selected finding's notes (related places, details) and fix, from\n"
    " * the finding's fields, under its entry */\n"
    "function details(i) {\n"
    "  document.querySelectorAll('#finding-list .details').forEach(function (d) { d.remove(); });\n"
    "  const f = DATA.findings[i];\n"
    "  const d = document.createElement('div');\n"
    "  d.className = 'details';\n"
    "  if (f.notes.length) {\n"
    "    const ul = document.createElement('ul');\n"
    "    ul.className = 'notes';\n"
    "    f.notes.forEach(function (n) {\n"
    "      const li = document.createElement('li');\n"
    "      if (n.where) {\n"
    "        const w = document.createElement('span');\n"
    "        w.className = 'where';\n"
    "        w.textContent = n.where + ': ';\n"
    "        li.appendChild(w);\n"
    "      }\n"
    "      li.appendChild(document.createTextNode(n.message));\n"
    "      ul.appendChild(li);\n"
    "    });\n"
    "    d.appendChild(ul);\n"
    "  }\n"
    "  if (f.fix) {\n"
    "    const x = document.createElement('div');\n"
    "    x.className = 'fix';\n"
    "    const b = document.createElement('b');\n"
    "    b.textContent = 'fix: ';\n"
    "    x.appendChild(b);\n"
    "    x.appendChild(document.createTextNode(f.fix));\n"
    "    d.appendChild(x);\n"
    "  }\n"
    "  if (d.childNodes.length) document.getElementById('finding-' + (i + 1)).appendChild(d);\n"
    "}\n"
    "\n"
    "/* finding I: zoom to its operations, highlight them and its entry */\n"
    "function select(i, fromList) {\n"
    "  selected = i;\n"
    "  const f = DATA.findings[i];\n"
    "  const ops = f.ops.filter(function (o) { return o >= 0; }).map(function (o) { return DATA.ops[o]; });\n"
    "  if (ops.length) {\n"
    "    const lo = Math.min.apply(null, ops.map(function (o) { return o.start; }));\n"
    "    const hi = Math.max.apply(null, ops.map(function (o) { return o.end; }));\n"
    "    const pad = Math.max((hi - lo) * 0.6, 50);\n"
    "    view = [Math.max(lo - pad, 0), hi + pad];\n"
    "  }\n"
    "  document.querySelectorAll('#finding-list > li').forEach(function (li, k) {\n"
    "    li.classList.toggle('active', k === i);\n"
    "  });\n"
    "  details(i);\n"
    "  draw();\n"
    "  const first = document.querySelector('#chart .selected');\n"
    "  if (first) first.scrollIntoView({ block: 'nearest' });\n"
    "  if (!fromList) {\n"
    "    const aside = document.getElementById('findings');\n"
    "    aside.scrollTop = document.getElementById('finding-' + (i + 1)).offsetTop - aside.offsetTop - 30;\n"
    "  }\n"
    "}\n"
    "\n"
    "function findingList() {\n"
    "  const list = document.getElementById('finding-list');\n"
    "  document.getElementById('findings-title').textContent = 'Findings (' + DATA.findings.length + ')';\n"
    "  DATA.findings.forEach(function (f, i) {\n"
    "    const li = document.createElement('li');\n"
    "    li.id = 'finding-' + (i + 1);\n"
    "    li.className = 'finding sev-' + f.severity;\n"
    "    li.setAttribute('data-ops', f.ops.filter(function (o) { return o >= 0; }).length);\n"
    "    const a = document.createElement('a');\n"
    "    a.href = '#finding-' + (i + 1);\n"
    "    a.textContent = f.severity + ' [' + f.kind + '] ' + f.location + (f.function ? ' in ' + f.function : '') +\n"
    "      (f.count > 1 ? ' (' + f.count + ' times)' : '');\n"
    "    li.appendChild(a);\n"
    "    const m = document.createElement('div');\n"
    "    m.className = 'msg';\n"
    "    m.textContent = f.message + (f.ops.some(function (o) { return o >= 0; }) ? '' : ' (not on the timeline)');\n"
    "    li.appendChild(m);\n"
    "    li.addEventListener('click', function (ev) { ev.preventDefault(); history.replaceState(null, '', '#' + li.id); select(i, true); });\n"
    "    list.appendChild(li);\n"
    "  });\n"
    "}\n"
    "\n"
    "function legend() {\n"
    "  const lg = document.getElementById('legend');\n"
    "  const item = function (cls, text) {\n"
    "    const s = document.createElement('span');\n"
    "    const i = document.createElement('i');\n"
    "    i.className = cls;\n"
    "    s.appendChild(i);\n"
    "    s.appendChild(document.createTextNode(text));\n"
    "    lg.appendChild(s);\n"
    "    i.style.backgroundColor = getComputedStyle(i).fill;\n"
    "  };\n"
    "  [['kernel', 'kernel'], ['copy', 'copy'], ['memset', 'memset'], ['record', 'event record / wait'],\n"
    "   ['call', 'API call'], ['sync', 'synchronization'], ['access', 'host access']].forEach(function (k) {\n"
    "    item('kind-' + k[0], k[1]);\n"
    "  });\n"
    "  if (DATA.ops.some(untimed))\n"
    "    item('kind-kernel untimed', 'hatched: no GPU time recorded, drawn at its API call');\n"
    "  const s = document.createElement('span');\n"
    "  s.textContent = 'purple arrow: event record to stream wait; red dashed arrow: the ordering a finding lacks';\n"
    "  lg.appendChild(s);\n"
    "}\n"
    "\n"
    "function fromHash() {\n"
    "  const m = /^#finding-([0-9]+)$/.exec(location.hash);\n"
    "  const i = m ? Number(m[1]) - 1 : -1;\n"
    "  if (i >= 0 && i < DATA.findings.length) select(i, false);\n"
    "}\n"
    "\n"
    "document.title = DATA.title;\n"
    "document.getElementById('title').textContent = DATA.title;\n"
    "document.getElementById('subtitle').textContent = DATA.subtitle;\n"
    "legend();\n"
    "findingList();\n"
    "document.getElementById('show-all').addEventListener('click', function () {\n"
    "  view = [0, Math.max(DATA.end_ns, 1)];\n"
    "  draw();\n"
    "});\n"
    "window.addEventListener('hashchange', fromHash);\n"
    "window.addEventListener('resize', draw);\n"
    "draw();\n"
    "fromHash();\n"
    "document.body.setAttribute('data-rendered', 'ok');\n";

static const char *device_name(const struct summary *s, int64_t ordinal)
{
  for (size_t i = 0; i < s->ndevices; i++)
    if (s->devices[i].ordinal == ordinal && s->devices[i].name)
      return s->devices[i].name;
  return "unknown device";
}

static void data(struct json *j, const struct summary *s,
                 const struct findings *fs, const struct timeline *tl)
{
  const char *exe = s->proc.exe ? path_base(s->proc.exe) : "?";
  const char *pid = s->proc.pid ? s->proc.pid : "?";
  json_begin_object(j);
  char *t = xasprintf("cudalens: %s (pid %s)", exe, pid);
  json_kv_string(j, "title", t);
  free(t);
  t = xasprintf("%zu operation%s on %zu lane%s, %zu finding%s; times from the"
                " first recorded call", tl->nops, tl->nops == 1 ? "" : "s",
                tl->nlanes, tl->nlanes == 1 ? "" : "s", fs->n, fs->n == 1 ? "" : "s");
  json_kv_string(j, "subtitle", t);
  free(t);
  t = xasprintf("host: %s (pid %s)", exe, pid);
  json_kv_string(j, "host_title", t);
  free(t);
  json_kv_int(j, "end_ns", tl->end_ns);
  json_key(j, "devices");
  json_begin_array(j);
  for (size_t i = 0; i < tl->nlanes; i++) {
    const struct tl_lane *l = &tl->lanes[i];
    if (l->host || (i > 0 && !tl->lanes[i - 1].host &&
                    tl->lanes[i - 1].device == l->device))
      continue;
    json_begin_object(j);
    json_kv_int(j, "ordinal", l->device);
    json_kv_string(j, "name", device_name(s, l->device));
    json_end_object(j);
  }
  json_end_array(j);
  json_key(j, "lanes");
  json_begin_array(j);
  for (size_t i = 0; i < tl->nlanes; i++) {
    json_begin_object(j);
    json_kv_string(j, "title", tl->lanes[i].title);
    json_kv_bool(j, "host", tl->lanes[i].host);
    json_kv_int(j, "device", tl->lanes[i].device);
    json_end_object(j);
  }
  json_end_array(j);
  json_key(j, "ops");
  json_begin_array(j);
  for (size_t i = 0; i < tl->nops; i++) {
    const struct tl_op *x = &tl->ops[i];
    json_begin_object(j);
    json_kv_int(j, "lane", (int64_t)x->lane);
    json_kv_string(j, "kind", tl_kind_names[x->kind]);
    json_kv_int(j, "start", x->start_ns);
    json_kv_int(j, "end", x->end_ns);
    json_kv_bool(j, "timed", x->timed);
    json_kv_string(j, "name", x->name);
    json_kv_int(j, "seq", x->seq);
    json_end_object(j);
  }
  json_end_array(j);
  json_key(j, "flows");
  json_begin_array(j);
  for (size_t i = 0; i < tl->nflows; i++) {
    json_begin_object(j);
    json_kv_int(j, "from", (int64_t)tl->flows[i].from);
    json_kv_int(j, "to", (int64_t)tl->flows[i].to);
    json_end_object(j);
  }
  json_end_array(j);
  json_key(j, "findings");
  json_begin_array(j);
  for (size_t i = 0; i < fs->n; i++) {
    const struct finding *f = &fs->v[i];
    char loc[512];
    json_begin_object(j);
    json_kv_string(j, "kind", f->kind);
    json_kv_string(j, "severity", severity_name(f->severity));
    json_kv_string(j, "location", location_text(loc, sizeof loc, &f->loc));
    json_kv_string(j, "message", f->message);
    json_kv_string(j, "function", f->loc.function);
    json_kv_int(j, "count", (int64_t)f->count);
    /* the notes and the fix, as the text report prints them */
    json_key(j, "notes");
    json_begin_array(j);
    for (size_t r = 0; r < f->nrelated; r++) {
      const struct related *rl = &f->related[r];
      json_begin_object(j);
      json_kv_string(j, "where", rl->loc.file || rl->loc.module ?
                     location_text(loc, sizeof loc, &rl->loc) : NULL);
      json_kv_string(j, "message", rl->message);
      json_end_object(j);
    }
    json_end_array(j);
    json_kv_string(j, "fix", f->fix);
    json_key(j, "ops");
    json_begin_array(j);
    for (size_t k = 0; k < f->nops; k++)
      json_int(j, timeline_find(tl, f->ops[k]));
    json_end_array(j);
    json_end_object(j);
  }
  json_end_array(j);
  json_end_object(j);
}

void output_html(FILE *f, const struct summary *s, const struct findings *fs,
                 const struct timeline *tl)
{
  /* the data as JSON, with <, > and & as \u escapes so that nothing in it
   * ends the script element */
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m)
    fatal("out of memory");
  struct json j;
  json_init(&j, m);
  data(&j, s, fs, tl);
  json_finish(&j);
  if (fclose(m) != 0)
    fatal("out of memory");
  fputs(page_head, f);
  fputs("<script type=\"application/json\" id=\"cl-data\">\n", f);
  for (size_t i = 0; i < len; i++) {
    if (buf[i] == '<')
      fputs("\\u003c", f);
    else if (buf[i] == '>')
      fputs("\\u003e", f);
    else if (buf[i] == '&')
      fputs("\\u0026", f);
    else
      fputc(buf[i], f);
  }
  free(buf);
  fputs("</script>\n<script>\n", f);
  fputs(page_script, f);
  fputs("</script>\n</body>\n</html>\n", f);
}
