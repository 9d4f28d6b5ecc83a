// The script and style of the heat maps (report/output/heat_map.h). A panel
// (g.hm-p) says where its cells are: data-x0/data-y0 (the plot's corner),
// data-cw/data-rh (a column's width, a row's height), data-c0 (the first
// column), data-r1 (the top row), data-ns (a column's ns): the hovered
// cell's time and value range follow from its position.
#include "report/output/heat_map.h"

namespace usdt::report {

const char* const kHeatMapStyle = R"CSS(
.hm text{font:11px sans-serif;fill:#222}.hm .hm-t{font:bold 17px sans-serif}.hm .hm-s{font:12px sans-serif;fill:#444}
.hm-p rect[data-n]:hover{stroke:#000;stroke-width:1}.hm-l{fill:none;stroke-width:1.5}
)CSS";

const char* const kHeatMapScript = R"JS(
(function () {
  var svg = document.currentScript.closest('svg');
  var details = svg.querySelector('.hm-details');
  var durations = svg.getAttribute('data-durations') === '1', unit = svg.getAttribute('data-count');
  function low(row) {
    if (row < 0) return -low(-row);
    if (row < 8) return row;
    var msb = 3 + Math.floor((row - 8) / 4), sub = (row - 8) % 4;
    return (4 + sub) * Math.pow(2, msb - 2);
  }
  function high(row) { return row < 0 ? -low(-row + 1) : low(row + 1); }
  function value(v) {
    if (!durations) return String(v);
    var units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'us'], [1, 'ns']];
    for (var i = 0; i < units.length; i++) {
      if (Math.abs(v) >= units[i][0] || units[i][0] === 1) return +(v / units[i][0]).toPrecision(3) + ' ' + units[i][1];
    }
  }
  svg.querySelectorAll('g.hm-p').forEach(function (p) {
    var a = function (k) { return +p.getAttribute('data-' + k); };
    p.addEventListener('mouseover', function (ev) {
      var r = ev.target;
      if (!r.hasAttribute('data-n')) return;
      var col = a('c0') + Math.round((+r.getAttribute('x') - a('x0')) / a('cw'));
      var row = a('r1') - Math.round((+r.getAttribute('y') - a('y0')) / a('rh'));
      var t0 = col * a('ns') / 1e9, t1 = (col + 1) * a('ns') / 1e9;
      details.textContent = '+' + +t0.toPrecision(6) + ' s to +' + +t1.toPrecision(6) + ' s, ' +
          value(low(row)) + ' to ' + value(high(row)) + ': ' + r.getAttribute('data-n') + ' ' + unit;
    });
  });
})();
)JS";

}  // namespace usdt::report
