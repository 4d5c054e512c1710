/* out_html.c - the timeline as one self-contained HTML page (--format=html):
 * no network, the style, the script and the data inline.  The data is the
 * timeline (timeline.c) and the findings as JSON in a <script
 * type="application/json"> element; the page's script draws it as SVG: per
 * device its streams as named lanes, the operations as bars at their GPU
 * times, event record -> stream wait edges as arrows, the host threads'
 * calls and host accesses on host lanes, and each finding's operations
 * outlined with a dashed red arrow between them (the ordering the program
 * lacks).  Beside it the findings; a click on one (or the link
 * #finding-N) zooms to its operations and highlights them.  When it has
 * drawn, the script sets data-rendered="ok" on <body>; a script error sets
 * "error" and shows the message in #errors (tests/recordings/html.rtest
 * checks both in headless Chromium).  The script uses single quotes only and
 * no backslashes, so it sits in C strings as it is. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "output.h"
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
    "#findings { width: 380px; flex: none; padding: 8px 12px; border-left: 1px solid #ccc;"
    " max-height: calc(100vh - 80px); overflow-y: auto; position: relative; }\n"
    "#findings h2 { font-size: 14px; margin: 4px 0 8px; }\n"
    "#findings ol { padding-left: 22px; margin: 0; }\n"
    "#findings li { margin-bottom: 8px; padding: 4px 6px; border-radius: 4px; cursor: pointer; }\n"
    "#findings li.active { background: #fde0dc; outline: 2px solid #d62728; }\n"
    "#findings a { color: inherit; text-decoration: none; font-weight: 600; }\n"
    "#findings .msg { color: #444; font-size: 12px; }\n"
    ".sev-error { color: #b71c1c; } .sev-warning { color: #e65100; } .sev-note { color: #1565c0; }\n"
    "#controls { margin-bottom: 6px; } #controls button { margin-right: 6px; }\n"
    "#legend span { display: inline-block; margin-right: 10px; }\n"
    "#legend i { display: inline-block; width: 12px; height: 10px; margin-right: 4px; }\n"
    "#chart { overflow-x: hidden; }\n"
    "svg text { font-size: 11px; }\n"
    ".lane-bg { fill: #fafafa; } .lane-bg.odd { fill: #f0f0f0; }\n"
    ".group { font-weight: 700; font-size: 12px; }\n"
    ".op { stroke: #0003; stroke-width: 0.5; }\n"
    ".op.untimed { fill-opacity: 0.35; stroke-dasharray: 2 2; stroke: #333; }\n"
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
    ".badge { fill: #d62728; } .badge-text { fill: #fff; font-size: 10px; font-weight: 700; }\n"
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
    "const LABEL_W = 330, LANE_H = 22, GROUP_H = 22, AXIS_H = 24;\n"
    "const POINTS = ['record', 'wait', 'access'];\n"
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
    "/* rows: a header per device (and the host), then its lanes */\n"
    "function layout() {\n"
    "  const rows = [], laneY = [];\n"
    "  let y = AXIS_H, group = null;\n"
    "  DATA.lanes.forEach(function (l, i) {\n"
    "    const g = l.host ? 'host' : 'GPU ' + l.device;\n"
    "    if (g !== group) {\n"
    "      group = g;\n"
    "      const dev = DATA.devices.find(function (d) { return d.ordinal === l.device; });\n"
    "      rows.push({ header: l.host ? DATA.host_title : g + ': ' + (dev ? dev.name : 'unknown device'), y: y });\n"
    "      y += GROUP_H;\n"
    "    }\n"
    "    laneY[i] = y;\n"
    "    rows.push({ lane: i, y: y });\n"
    "    y += LANE_H;\n"
    "  });\n"
    "  return { rows: rows, laneY: laneY, height: y + 8 };\n"
    "}\n"
    "\n"
    "function draw() {\n"
    "  const chart = document.getElementById('chart');\n"
    "  const width = Math.max(chart.clientWidth, 600);\n"
    "  const plotW = width - LABEL_W - 10;\n"
    "  const L = layout();\n"
    "  const x = function (t) { return LABEL_W + (t - view[0]) / (view[1] - view[0]) * plotW; };\n"
    "  chart.textContent = '';\n"
    "  const svg = el('svg', { width: width, height: L.height, id: 'timeline-svg' }, chart);\n"
    "  const defs = el('defs', {}, svg);\n"
    "  [['arrow', '#5b3f8c'], ['arrow-red', '#d62728']].forEach(function (m) {\n"
    "    const mk = el('marker', { id: m[0], viewBox: '0 0 10 10', refX: 9, refY: 5,\n"
    "      markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);\n"
    "    el('path', { d: 'M0,0 L10,5 L0,10 z', fill: m[1] }, mk);\n"
    "  });\n"
    "  const clip = el('clipPath', { id: 'plot' }, defs);\n"
    "  el('rect', { x: LABEL_W, y: 0, width: plotW + 6, height: L.height }, clip);\n"
    "  L.rows.forEach(function (r, k) {\n"
    "    if (r.header !== undefined) {\n"
    "      el('text', { x: 4, y: r.y + 15, class: 'group' }, svg, r.header);\n"
    "      return;\n"
    "    }\n"
    "    const l = DATA.lanes[r.lane];\n"
    "    el('rect', { x: 0, y: r.y, width: width, height: LANE_H, class: 'lane-bg' + (k % 2 ? ' odd' : '') }, svg);\n"
    "    const t = el('text', { x: 12, y: r.y + 15, class: 'lane', 'data-lane': r.lane }, svg,\n"
    "      l.title.length > 52 ? l.title.slice(0, 51) + '...' : l.title);\n"
    "    el('title', {}, t, l.title);\n"
    "  });\n"
    "  /* the time axis */\n"
    "  el('line', { x1: LABEL_W, x2: LABEL_W + plotW, y1: AXIS_H - 4, y2: AXIS_H - 4, class: 'axis' }, svg);\n"
    "  const span = view[1] - view[0];\n"
    "  let step = Math.pow(10, Math.floor(Math.log10(span / 6)));\n"
    "  if (span / step > 8) step *= 2;\n"
    "  if (span / step > 8) step *= 2.5;\n"
    "  for (let t = Math.ceil(view[0] / step) * step; t <= view[1]; t += step)\n"
    "    el('text', { x: x(t), y: AXIS_H - 8, class: 'tick', 'text-anchor': 'middle' }, svg, fmtTime(t));\n"
    "  const plot = el('g', { 'clip-path': 'url(#plot)' }, svg);\n"
    "  const findingOf = {};\n"
    "  DATA.findings.forEach(function (f, i) {\n"
    "    f.ops.forEach(function (o) { if (o >= 0 && !(o in findingOf)) findingOf[o] = i; });\n"
    "  });\n"
    "  const mid = function (o) { const op = DATA.ops[o]; return x((op.start + op.end) / 2); };\n"
    "  const cy = function (o) { return L.laneY[DATA.ops[o].lane] + LANE_H / 2; };\n"
    "  DATA.ops.forEach(function (op, i) {\n"
    "    if (op.end < view[0] || op.start > view[1]) return;\n"
    "    const y = L.laneY[op.lane];\n"
    "    let cls = 'op kind-' + op.kind + (op.timed || POINTS.indexOf(op.kind) >= 0 ||\n"
    "      DATA.lanes[op.lane].host ? '' : ' untimed');\n"
    "    if (i in findingOf) cls += ' finding-op';\n"
    "    if (selected >= 0 && DATA.findings[selected].ops.indexOf(i) >= 0) cls += ' selected';\n"
    "    let shape;\n"
    "    if (POINTS.indexOf(op.kind) >= 0) {\n"
    "      const px = x(op.start), s = 6;\n"
    "      shape = el('path', { d: 'M' + px + ',' + (y + 11 - s) + ' l' + s + ',' + s + ' l' + (-s) + ',' + s +\n"
    "        ' l' + (-s) + ',' + (-s) + ' z', class: cls, 'data-op': i }, plot);\n"
    "    } else {\n"
    "      const x0 = x(op.start), w = Math.max(x(op.end) - x0, 2);\n"
    "      shape = el('rect', { x: x0, y: y + 3, width: w, height: LANE_H - 6, class: cls, 'data-op': i }, plot);\n"
    "    }\n"
    "    el('title', {}, shape, op.name + ' (call ' + op.seq + '): ' + fmtTime(op.start) + ' to ' +\n"
    "      fmtTime(op.end) + (op.timed ? ', GPU time' : POINTS.indexOf(op.kind) >= 0 ||\n"
    "      DATA.lanes[op.lane].host ? '' : ', no GPU time recorded: the call'));\n"
    "    if (i in findingOf) shape.addEventListener('click', function () { select(findingOf[i], false); });\n"
    "    if (cls.indexOf('selected') >= 0)\n"
    "      el('text', { x: x(op.end) + 8, y: y + 15, class: 'op-label' }, plot, op.name);\n"
    "  });\n"
    "  DATA.flows.forEach(function (f) {\n"
    "    el('path', { d: 'M' + mid(f.from) + ',' + cy(f.from) + ' L' + mid(f.to) + ',' + cy(f.to),\n"
    "      class: 'flow', 'marker-end': 'url(#arrow)' }, plot);\n"
    "  });\n"
    "  /* each finding: a dashed arrow between its operations, a numbered badge */\n"
    "  DATA.findings.forEach(function (f, i) {\n"
    "    const ops = f.ops.filter(function (o) { return o >= 0; });\n"
    "    if (ops.length === 2 && ops[0] !== ops[1]) {\n"
    "      const a = ops[0], b = ops[1];\n"
    "      const bend = (cy(a) + cy(b)) / 2 - (cy(a) === cy(b) ? 18 : 0);\n"
    "      el('path', { d: 'M' + mid(a) + ',' + cy(a) + ' Q' + (mid(a) + mid(b)) / 2 + ',' + bend +\n"
    "        ' ' + mid(b) + ',' + cy(b), class: 'missing' + (i === selected ? ' selected' : ''),\n"
    "        'marker-end': 'url(#arrow-red)', 'data-finding': i }, plot);\n"
    "      if (i === selected)\n"
    "        el('text', { x: (mid(a) + mid(b)) / 2, y: Math.max(cy(a), cy(b)) + LANE_H, class: 'missing-label',\n"
    "          'text-anchor': 'middle' },\n"
    "          plot, 'nothing orders these');\n"
    "    }\n"
    "    if (ops.length) {\n"
    "      const o = ops[ops.length - 1];\n"
    "      const bx = mid(o), by = L.laneY[DATA.ops[o].lane] + 2;\n"
    "      el('circle', { cx: bx, cy: by, r: 7, class: 'badge' }, plot);\n"
    "      el('text', { x: bx, y: by + 3.5, class: 'badge-text', 'text-anchor': 'middle' }, plot, String(i + 1));\n"
    "    }\n"
    "  });\n"
    "  document.getElementById('range').textContent = ' ' + fmtTime(view[0]) + ' to ' + fmtTime(view[1]);\n"
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
    "  document.querySelectorAll('#finding-list li').forEach(function (li, k) {\n"
    "    li.classList.toggle('active', k === i);\n"
    "  });\n"
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
    "    a.textContent = f.severity + ' [' + f.kind + '] ' + f.location + (f.count > 1 ? ' (' + f.count + ' times)' : '');\n"
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
    "  [['kernel', 'kernel'], ['copy', 'copy'], ['memset', 'memset'], ['record', 'event record / wait'],\n"
    "   ['call', 'API call'], ['sync', 'synchronization'], ['access', 'host access']].forEach(function (k) {\n"
    "    const s = document.createElement('span');\n"
    "    const i = document.createElement('i');\n"
    "    i.className = 'kind-' + k[0];\n"
    "    s.appendChild(i);\n"
    "    s.appendChild(document.createTextNode(k[1]));\n"
    "    lg.appendChild(s);\n"
    "    i.style.background = getComputedStyle(i).fill;\n"
    "  });\n"
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
    json_kv_int(j, "count", (int64_t)f->count);
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
