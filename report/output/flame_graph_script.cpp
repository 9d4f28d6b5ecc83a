// The script and style of the flame graphs (report/output/flame_graph.h),
// written into every graph. The frames carry their place in events (data-x:
// the events to their left, data-c: their events, data-d: their depth), so
// that a zoom lays them out again exactly: a frame within the one clicked
// spans the same share of the width as of the clicked frame's events.
#include "report/output/flame_graph.h"

namespace usdt::report {

const char* const kFlameGraphStyle = R"CSS(
.fg-f rect{stroke:#fff;stroke-width:.3}.fg-f:hover rect{stroke:#000;stroke-width:.8}
.fg text{font:12px monospace;fill:#000}.fg-f text{pointer-events:none}
.fg-p rect{opacity:.55}.fg-h{display:none}.fg-b{cursor:pointer;fill:#146}.fg-b:hover{text-decoration:underline}
.fg-t{font:bold 17px sans-serif!important}.fg-s{font:12px sans-serif!important;fill:#444!important}
)CSS";

const char* const kFlameGraphScript = R"JS(
(function () {
  var svg = document.currentScript.closest('svg');
  var W = +svg.getAttribute('data-width'), pad = 10, total = +svg.getAttribute('data-total');
  var diff = svg.getAttribute('data-before') !== null, before = +svg.getAttribute('data-before');
  function el(k) { return svg.querySelector('.fg-' + k); }
  var details = el('details'), matched = el('matched');
  var frames = Array.prototype.map.call(svg.querySelectorAll('g.fg-f'), function (g) {
    var lines = g.querySelector('title').textContent.split('\n');
    return {g: g, x: +g.getAttribute('data-x'), c: +g.getAttribute('data-c'), d: +g.getAttribute('data-d'),
            b: g.getAttribute('data-b'), r: g.querySelector('rect'), t: g.querySelector('text'),
            name: lines[0], where: lines[1] || '', fill: g.querySelector('rect').getAttribute('fill')};
  });
  function pct(n, of) { return (100 * n / of).toFixed(2) + '%'; }
  function label(f, w) {
    var chars = Math.floor((w - 3) / 7);
    if (chars < 3) return '';
    return f.name.length <= chars ? f.name : f.name.slice(0, chars - 2) + '..';
  }
  function place(f, x, w) {
    f.r.setAttribute('x', x.toFixed(2));
    f.r.setAttribute('width', w.toFixed(2));
    f.t.setAttribute('x', (x + 3).toFixed(2));
    f.t.textContent = label(f, w);
  }
  function zoom(z) {
    var span = W - 2 * pad;
    frames.forEach(function (f) {
      var inside = f.d >= z.d && f.x >= z.x && f.x + f.c <= z.x + z.c;
      var above = f.d < z.d && f.x <= z.x && f.x + f.c >= z.x + z.c;
      f.g.classList.toggle('fg-h', !inside && !above);
      f.g.classList.toggle('fg-p', above);
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
  frames.forEach(function (f) {
    f.g.addEventListener('mouseover', function () { details.textContent = describe(f); });
    f.g.addEventListener('mouseout', function () { details.textContent = ' '; });
    f.g.addEventListener('click', function () { zoom(f); });
  });
  function search(text) {
    var re = null;
    try { re = text ? new RegExp(text) : null; } catch (e) { re = null; }
    var spans = [];
    frames.forEach(function (f) {
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
  el('reset').addEventListener('click', function () { zoom(frames[0]); });
  svg.flameSearch = search;
  svg.flameZoom = function (i) { zoom(frames[i]); };
})();
)JS";

}  // namespace usdt::report
