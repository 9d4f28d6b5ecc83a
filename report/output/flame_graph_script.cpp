// The script and style of the flame graphs (report/output/flame_graph.h),
// written into every graph. The frames carry their place in events (data-x:
// the events to their left, data-c: their events, data-d: their depth) and
// their entry in the names table (data-n), so that a zoom lays them out
// again exactly: a frame within the one clicked spans the same share of the
// width as of the clicked frame's events.
#include "report/output/flame_graph.h"

namespace usdt::report {

const char* const kFlameGraphStyle = R"CSS(
.fg-f{stroke:#fff;stroke-width:.3}.fg-f:hover{stroke:#000;stroke-width:.8}
.fg text{font:12px monospace;fill:#000}.fg-l{pointer-events:none}
.fg-p{opacity:.55}.fg-h{display:none}.fg-b{cursor:pointer;fill:#146}.fg-b:hover{text-decoration:underline}
.fg-t{font:bold 17px sans-serif!important}.fg-s{font:12px sans-serif!important;fill:#444!important}
)CSS";

const char* const kFlameGraphScript = R"JS(
(function () {
  var svg = document.currentScript.closest('svg');
  var W = +svg.getAttribute('data-width'), pad = 10, total = +svg.getAttribute('data-total');
  var diff = svg.getAttribute('data-before') !== null, before = +svg.getAttribute('data-before');
  function el(k) { return svg.querySelector('.fg-' + k); }
  var details = el('details'), matched = el('matched'), all = null, names = null;
  // A frame's data, read from its element when first needed (big graphs
  // have thousands: the page draws before any of this runs). Its name and
  // object are in the names table; its label, if it has one, follows it.
  function frame(r) {
    if (r.fg) return r.fg;
    if (names === null) names = JSON.parse(el('names').textContent);
    var name = names[+r.getAttribute('data-n')], t = r.nextElementSibling;
    r.fg = {x: +r.getAttribute('data-x'), c: +r.getAttribute('data-c'), d: +r.getAttribute('data-d'),
            b: r.getAttribute('data-b'), r: r, t: t && t.classList.contains('fg-l') ? t : null,
            name: name[0], where: name[1], fill: r.getAttribute('fill')};
    return r.fg;
  }
  function frames() {
    if (all === null) all = Array.prototype.map.call(svg.querySelectorAll('rect.fg-f'), frame);
    return all;
  }
  function pct(n, of) { return (100 * n / of).toFixed(2) + '%'; }
  function label(f, w) {
    var chars = Math.floor((w - 3) / 7);
    if (chars < 3) return '';
    return f.name.length <= chars ? f.name : f.name.slice(0, chars - 2) + '..';
  }
  function place(f, x, w) {
    f.r.setAttribute('x', x.toFixed(2));
    f.r.setAttribute('width', w.toFixed(2));
    var text = label(f, w);
    if (!f.t && text === '') return;
    if (!f.t) {
      f.t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
      f.t.setAttribute('class', 'fg-l');
      f.t.setAttribute('y', (+f.r.getAttribute('y') + 11.5).toFixed(2));
      f.r.after(f.t);
    }
    f.t.setAttribute('x', (x + 3).toFixed(2));
    f.t.textContent = text;
  }
  function zoom(z) {
    var span = W - 2 * pad;
    frames().forEach(function (f) {
      var inside = f.d >= z.d && f.x >= z.x && f.x + f.c <= z.x + z.c;
      var above = f.d < z.d && f.x <= z.x && f.x + f.c >= z.x + z.c;
      [f.r, f.t].forEach(function (e) {
        if (e) { e.classList.toggle('fg-h', !inside && !above); e.classList.toggle('fg-p', above); }
      });
      if (inside) place(f, pad + (f.x - z.x) / z.c * span, f.c / z.c * span);
      if (above) place(f, pad, span);
    });
    svg.setAttribute('data-zoom', z.name);
    el('reset').classList.toggle('fg-h', z.d === 0);
  }
  function describe(f) {
    var s = f.name + (f.where ? ' (' + f.where + ')' : '') + ': ' + f.c + ' events, ' + pct(f.c, total);
    if (diff && f.b !== null) s += ', before ' + pct(+f.b, before);
    return s;
  }
  // One listener each for every frame: the frame is the event's target.
  function target(ev) { return ev.target.classList.contains('fg-f') ? frame(ev.target) : null; }
  svg.addEventListener('mouseover', function (ev) { var f = target(ev); if (f) details.textContent = describe(f); });
  svg.addEventListener('mouseout', function (ev) { if (target(ev)) details.textContent = ' '; });
  svg.addEventListener('click', function (ev) { var f = target(ev); if (f) zoom(f); });
  function search(text) {
    var re = null;
    try { re = text ? new RegExp(text) : null; } catch (e) { re = null; }
    var spans = [];
    frames().forEach(function (f) {
      var hit = re !== null && re.test(f.name);
      f.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);
      if (hit) spans.push([f.x, f.x + f.c]);
    });
    spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
    var covered = 0, end = -1;
    spans.forEach(function (s) {
      if (s[0] >= end) { covered += s[1] - s[0]; end = s[1]; }
      else if (s[1] > end) { covered += s[1] - end; end = s[1]; }
    });
    matched.textContent = re ? 'Matched: ' + pct(covered, total) : ' ';
    svg.setAttribute('data-matched', covered);
  }
  el('search').addEventListener('click', function () {
    var text = window.prompt('Search: a regular expression', '');
    if (text !== null) search(text);
  });
  el('reset').addEventListener('click', function () { zoom(frames()[0]); });
  svg.flameSearch = search;
  svg.flameZoom = function (i) { zoom(frames()[i]); };
})();
)JS";

}  // namespace usdt::report
