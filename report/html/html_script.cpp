// The style and script of the HTML report (report/html/html_page.h). The
// script renders the embedded JSON into tables: a click on a heading sorts
// by it (again: the other way), long tables show 25 rows a page. Each cell
// holds its exact value in data-v (durations in ns) and shows it for a
// person (counts in full, durations in units).
#include "report/html/html_page.h"

namespace usdt::report {

const char* const kHtmlStyle = R"CSS(
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1240px;padding:0 16px 40px;color:#1d2330}
h1{font-size:24px;margin:18px 0 4px}h2{font-size:19px;border-bottom:2px solid #dde;padding-bottom:3px;margin-top:30px}
h3{font-size:15px;margin:20px 0 6px}.note{color:#555}a{color:#1a55a0}
table.t{border-collapse:collapse;margin:4px 0;font-variant-numeric:tabular-nums}
.t th,.t td{padding:3px 9px;border-bottom:1px solid #e3e5ea;text-align:left;vertical-align:top}
.t th{background:#f2f4f8;cursor:pointer;user-select:none;white-space:nowrap}.t th.num,.t td.num{text-align:right}
.t th[aria-sort=ascending]::after{content:" \25B2"}.t th[aria-sort=descending]::after{content:" \25BC"}
.pager{margin:4px 0 10px;color:#444}.pager button{margin:0 4px}
.bar{background:#6b8fd6;height:11px;display:inline-block;vertical-align:middle}
.picture{overflow-x:auto}code{font-size:12px;word-break:break-all}details ol{margin:4px 0;padding-left:22px;font:12px monospace}
)CSS";

const char* const kHtmlScript = R"JS(
(function () {
  'use strict';
  function data(id) { var e = document.getElementById(id); return e ? JSON.parse(e.textContent) : null; }
  function node(tag, attrs, kids) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    (kids || []).forEach(function (k) { e.append(k); });
    return e;
  }
  function count(n) { return n === null || n === undefined ? '-' : Number(n).toLocaleString('en-US'); }
  function dur(ns) {
    if (ns === null || ns === undefined) return '-';
    var u = [[1e9, 's'], [1e6, 'ms'], [1e3, 'us'], [1, 'ns']];
    for (var i = 0; i < u.length; i++) if (ns >= u[i][0] || u[i][1] === 'ns') return +(ns / u[i][0]).toPrecision(4) + ' ' + u[i][1];
  }
  // cols: {h: heading, v: row -> exact value, t: row -> text (default v), num: right-aligned}
  function table(host, cols, rows, pageSize) {
    pageSize = pageSize || 25;
    var order = rows.slice(), page = 0, sorted = -1, dir = 1;
    var t = node('table', {class: 't'}), pager = node('div', {class: 'pager'});
    host.append(t, pager);
    function sortBy(c) {
      dir = sorted === c ? -dir : (cols[c].num ? -1 : 1);
      sorted = c;
      order = rows.slice().sort(function (a, b) {
        var x = cols[c].v(a), y = cols[c].v(b);
        if (x === null) return 1;
        if (y === null) return -1;
        return (cols[c].num ? x - y : String(x).localeCompare(String(y))) * dir;
      });
      page = 0;
      draw();
    }
    function draw() {
      t.textContent = '';
      t.append(node('thead', {}, [node('tr', {}, cols.map(function (c, i) {
        var th = node('th', {class: c.num ? 'num' : ''}, [c.h]);
        if (i === sorted) th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
        th.addEventListener('click', function () { sortBy(i); });
        return th;
      }))]));
      var body = node('tbody');
      order.slice(page * pageSize, (page + 1) * pageSize).forEach(function (r) {
        body.append(node('tr', {}, cols.map(function (c) {
          var v = c.v(r), shown = c.t ? c.t(r) : (v === null ? '-' : String(v));
          var td = node('td', {class: c.num ? 'num' : '', 'data-v': v === null ? '' : String(v)});
          td.append(shown);
          return td;
        })));
      });
      t.append(body);
      pager.textContent = '';
      if (rows.length <= pageSize) return;
      var last = Math.ceil(rows.length / pageSize) - 1;
      var prev = node('button', {}, ['\u2039 previous']), next = node('button', {}, ['next \u203a']);
      prev.disabled = page === 0;
      next.disabled = page === last;
      prev.addEventListener('click', function () { page--; draw(); });
      next.addEventListener('click', function () { page++; draw(); });
      pager.append(prev, 'rows ' + (page * pageSize + 1) + '\u2013' + Math.min(rows.length, (page + 1) * pageSize) +
                   ' of ' + rows.length, next);
    }
    draw();
  }
  function bars(buckets) {
    var most = Math.max.apply(null, buckets.map(function (b) { return b.count; }).concat([1]));
    var host = node('div');
    table(host, [
      {h: 'from', v: function (b) { return b.low_ns; }, t: function (b) { return dur(b.low_ns); }, num: true},
      {h: 'below', v: function (b) { return b.high_ns; }, t: function (b) { return dur(b.high_ns); }, num: true},
      {h: 'pairs', v: function (b) { return b.count; }, t: function (b) { return count(b.count); }, num: true},
      {h: '', v: function (b) { return b.count; }, t: function (b) {
        return node('span', {class: 'bar', style: 'width:' + (300 * b.count / most).toFixed(1) + 'px'});
      }}], buckets, 100);
    return host;
  }
  function spark(buckets) {
    var ns = 'http://www.w3.org/2000/svg', w = 4 * buckets.length, most = 1;
    buckets.forEach(function (b) { most = Math.max(most, b.count); });
    var s = document.createElementNS(ns, 'svg');
    s.setAttribute('width', w); s.setAttribute('height', 18);
    buckets.forEach(function (b, i) {
      var r = document.createElementNS(ns, 'rect'), h = b.count ? Math.max(1, 18 * b.count / most) : 0;
      r.setAttribute('x', 4 * i); r.setAttribute('width', 3); r.setAttribute('y', 18 - h); r.setAttribute('height', h);
      r.setAttribute('fill', '#6b8fd6');
      s.append(r);
    });
    return s;
  }
  var statCols = [
    {h: 'pairs', v: function (s) { return s.count; }, t: function (s) { return count(s.count); }, num: true},
    {h: 'min', v: function (s) { return s.min_ns; }, t: function (s) { return dur(s.min_ns); }, num: true},
    {h: 'mean', v: function (s) { return s.mean_ns; }, t: function (s) { return dur(s.mean_ns); }, num: true},
    {h: 'p50', v: function (s) { return s.p50_ns; }, t: function (s) { return dur(s.p50_ns); }, num: true},
    {h: 'p90', v: function (s) { return s.p90_ns; }, t: function (s) { return dur(s.p90_ns); }, num: true},
    {h: 'p99', v: function (s) { return s.p99_ns; }, t: function (s) { return dur(s.p99_ns); }, num: true},
    {h: 'p99.9', v: function (s) { return s.p999_ns; }, t: function (s) { return dur(s.p999_ns); }, num: true},
    {h: 'max', v: function (s) { return s.max_ns; }, t: function (s) { return dur(s.max_ns); }, num: true}];
  function frames(stack) {
    var d = node('details'), list = node('ol');
    d.append(node('summary', {}, [stack.length + ' frames']), list);
    stack.forEach(function (f) { list.append(node('li', {}, [f.function + '  (' + f.object + ')'])); });
    return d;
  }

  var rec = data('data-recording'), sum = data('data-summary'), lat = data('data-latency');
  table(document.getElementById('files'), [
    {h: 'file', v: function (f) { return f.path; }},
    {h: 'host', v: function (f) { return f.hostname; }},
    {h: 'kernel', v: function (f) { return f.kernel_release + ' ' + f.arch; }},
    {h: 'recorder', v: function (f) { return f.recorder_version; }},
    {h: 'started', v: function (f) { return f.start_realtime_ns; },
     t: function (f) { return new Date(f.start_realtime_ns / 1e6).toISOString(); }},
    {h: 'command', v: function (f) { return f.command_line; }, t: function (f) { return node('code', {}, [f.command_line]); }}],
    rec.files);
  table(document.getElementById('totals'), [
    {h: 'events', v: function (s) { return s.events; }, t: function (s) { return count(s.events); }, num: true},
    {h: 'lost', v: function (s) { return s.lost; }, t: function (s) { return count(s.lost); }, num: true},
    {h: 'duration', v: function (s) { return s.duration_ns; }, t: function (s) { return dur(s.duration_ns); }, num: true},
    {h: 'files', v: function (s) { return s.files.length; }, num: true},
    {h: 'hosts', v: function () { return rec.hosts.join(', '); }},
    {h: 'cut short', v: function (s) { return s.truncated ? 'yes' : 'no'; }},
    {h: 'bad chunks', v: function (s) { return s.chunks_bad; }, num: true}], [sum]);
  table(document.getElementById('probes'), [
    {h: 'probe', v: function (p) { return p.provider + ':' + p.name; }},
    {h: 'events', v: function (p) { return p.count; }, t: function (p) { return count(p.count); }, num: true},
    {h: 'per second', v: function (p) { return p.rate_per_s; }, num: true},
    {h: 'lost', v: function (p) { return p.lost; }, t: function (p) { return count(p.lost); }, num: true},
    {h: 'arguments', v: function (p) { return p.args.map(function (a) { return a.name + ':' + a.type; }).join(' '); }}],
    sum.probes);
  var lost = [];
  Object.keys(sum.dropped).forEach(function (k) { lost.push({cause: 'dropped by the recorder: ' + k, n: sum.dropped[k]}); });
  sum.lost_per_cpu.forEach(function (c) { lost.push({cause: 'lost by the kernel on CPU ' + c.cpu, n: c.lost}); });
  sum.probes.forEach(function (p) { if (p.lost) lost.push({cause: 'lost by the kernel: ' + p.provider + ':' + p.name, n: p.lost}); });
  if (lost.length === 0) lost.push({cause: 'none', n: 0});
  table(document.getElementById('lost'), [
    {h: 'cause', v: function (l) { return l.cause; }},
    {h: 'events', v: function (l) { return l.n; }, t: function (l) { return count(l.n); }, num: true}], lost);
  table(document.getElementById('processes'), [
    {h: 'pid', v: function (p) { return p.pid; }, num: true},
    {h: 'name', v: function (p) { return p.comm; }},
    {h: 'events', v: function (p) { return p.events; }, t: function (p) { return count(p.events); }, num: true}],
    sum.processes);
  if (!lat) return;
  var overall = document.getElementById('latency-overall');
  table(overall, statCols.concat([
    {h: 'unmatched starts', v: function (s) { return s.unmatched_starts; }, num: true},
    {h: 'unmatched ends', v: function (s) { return s.unmatched_ends; }, num: true},
    {h: 'lost', v: function (s) { return s.lost_events; }, num: true}]), [lat]);
  overall.append(bars(lat.histogram));
  var groups = document.getElementById('latency-groups');
  if (lat.groups) {
    table(groups, [{h: lat.by, v: function (g) { return g.key; }}].concat(statCols, [
      {h: 'histogram', v: function (g) { return g.count; }, t: function (g) { return spark(g.histogram); }}]), lat.groups);
  } else {
    groups.append(node('p', {class: 'note'}, ['No groups: give --by KEY (e.g. --by pid, --by \'sql(arg0)\').']));
  }
  table(document.getElementById('slowest'), [
    {h: 'duration', v: function (p) { return p.duration_ns; }, t: function (p) { return dur(p.duration_ns); }, num: true},
    {h: 'at', v: function (p) { return p.start_offset_ns; }, t: function (p) { return '+' + dur(p.start_offset_ns); }, num: true},
    {h: 'pid/tid', v: function (p) { return p.pid + '/' + p.tid; }},
    {h: 'key', v: function (p) { return p.key; }},
    {h: 'start stack', v: function (p) { return p.start_event.stack.length; }, t: function (p) { return frames(p.start_event.stack); }},
    {h: 'end stack', v: function (p) { return p.end_event ? p.end_event.stack.length : null; },
     t: function (p) { return p.end_event ? frames(p.end_event.stack) : '-'; }}], lat.slowest || []);
})();
)JS";

}  // namespace usdt::report
