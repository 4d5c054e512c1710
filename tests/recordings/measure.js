/* measure.js - a test harness, never shipped: chromium.sh's
 * chromium_measure appends it (inline) to a copy of a --format=html page,
 * so it runs after the page's own script.  It reads what the browser laid
 * out: the page as opened, then after a click on each finding of the list
 * (as a person clicks), and writes it as JSON into <pre id="cl-measure">
 * for check_page.py layout: the boxes (getBoundingClientRect) of the
 * timeline's svg, of every text in it (with the text shown, without the
 * hover title), of the finding badges and the lane names (with their full
 * names), the kernels drawn (class, fill colour and opacity, box, hatched
 * or not), the legend's kernel colour, and the active finding's panel
 * entry: its notes and fix as shown, and whether the fix has a box. */
(function () {
  function box(e) {
    const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  }
  function shown(t) {
    return Array.prototype.filter.call(t.childNodes, function (n) {
      return n.nodeName !== 'title';
    }).map(function (n) { return n.textContent; }).join(' ');
  }
  const out = { width: window.innerWidth, views: [] };
  const kernelSwatch = document.querySelector('#legend i.kind-kernel');
  out.legend_kernel = kernelSwatch ? getComputedStyle(kernelSwatch).backgroundColor : null;
  function snapshot(name) {
    const svg = document.getElementById('timeline-svg');
    const axis = svg.querySelector('.axis');
    const v = { name: name, svg: box(svg), axis: axis ? box(axis) : null,
      texts: [], badges: [], lanes: [], kernels: [], panel: null };
    svg.querySelectorAll('text').forEach(function (t) {
      v.texts.push({ cls: t.getAttribute('class') || '', text: shown(t), box: box(t) });
    });
    svg.querySelectorAll('.badge').forEach(function (b) {
      const g = b.closest('[data-finding]');
      v.badges.push({ finding: g ? Number(g.getAttribute('data-finding')) : -1, box: box(b) });
    });
    svg.querySelectorAll('text.lane').forEach(function (t) {
      const title = t.querySelector('title');
      v.lanes.push({ title: title ? title.textContent : null, shown: shown(t), box: box(t) });
    });
    svg.querySelectorAll('.op.kind-kernel').forEach(function (r) {
      const cs = getComputedStyle(r), next = r.nextElementSibling;
      v.kernels.push({ cls: r.getAttribute('class'), fill: cs.fill, opacity: Number(cs.fillOpacity),
        box: box(r), hatched: !!(next && next.classList.contains('hatch')) });
    });
    const act = document.querySelector('#finding-list > li.active');
    if (act) {
      const fix = act.querySelector('.fix');
      v.panel = { id: act.id,
        notes: Array.prototype.map.call(act.querySelectorAll('.notes li'), function (li) { return li.textContent; }),
        fix: fix ? fix.textContent : null,
        fix_box: fix ? box(fix) : null };
    }
    out.views.push(v);
  }
  snapshot('opened');
  document.querySelectorAll('#finding-list > li').forEach(function (li) {
    li.click();
    snapshot(li.id);
  });
  const pre = document.createElement('pre');
  pre.id = 'cl-measure';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
