// The HTML report as a person sees it in Chromium: its tables hold the
// numbers of summary and latency --format json on the same trace, a click
// on a heading sorts, long tables page, the heat map holds every pair, each
// probe with stacks has its flame graph, the slowest pairs show their
// stacks; the file loads nothing. Also states the report's size per event.
//
// usage: node check_html.mjs USDT_REPORT TRACE_DIR ARTIFACT_DIR
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {check, checkEqual, finish, launch, open, screenshot} from './browser.mjs';

const [report, traces, artifacts] = process.argv.slice(2);
fs.mkdirSync(artifacts, {recursive: true});
const run = (...args) => execFileSync(report, args, {cwd: traces, encoding: 'utf8'});
const shop = ['--start', 'shop:query_start', '--end', 'shop:query_done', '--by', 'sql(arg0)'];

// A table's cells, by heading: exact values (data-v) and what they show.
async function table(page, id) {
  return page.$eval(`#${id} table`, (t) => {
    const heads = Array.from(t.querySelectorAll('th')).map((h) => h.textContent);
    return Array.from(t.querySelectorAll('tbody tr')).map((tr) => {
      const row = {};
      Array.from(tr.children).forEach((td, i) => {
        const summary = td.querySelector('summary');  // a stack: its line, not its frames
        row[heads[i]] = {v: td.dataset.v, text: summary ? summary.textContent : td.textContent};
      });
      return row;
    });
  });
}

const {browser, close} = await launch();
try {
  const file = path.join(artifacts, 'report.html');
  run('html', ...shop, '-o', file, 'visual.trace');
  const summary = JSON.parse(run('summary', '--format', 'json', 'visual.trace'));
  const latency = JSON.parse(run('latency', ...shop, '--slowest', '10', '--format', 'json', 'visual.trace'));
  const page = await open(browser, file, {width: 1250, height: 1000});

  const probes = await table(page, 'probes');
  checkEqual(probes.map((r) => [r.probe.v, Number(r.events.text.replace(/,/g, '')), r.lost.v]),
             summary.probes.map((p) => [`${p.provider}:${p.name}`, p.count, String(p.lost)]), 'probes table');
  const totals = (await table(page, 'totals'))[0];
  checkEqual(Number(totals.events.text.replace(/,/g, '')), summary.events, 'events total');
  const overall = (await table(page, 'latency-overall'))[0];
  for (const [head, key] of [['pairs', 'count'], ['min', 'min_ns'], ['p50', 'p50_ns'], ['p90', 'p90_ns'],
                             ['p99', 'p99_ns'], ['p99.9', 'p999_ns'], ['max', 'max_ns'], ['mean', 'mean_ns']]) {
    checkEqual(overall[head].v, String(latency[key]), `latency ${head}`);
  }
  const groups = await table(page, 'latency-groups');
  checkEqual(groups.map((g) => [g['sql(arg0)'].v, Number(g.pairs.v), Number(g.p99.v)]),
             latency.groups.map((g) => [g.key, g.count, g.p99_ns]), 'latency per statement shape');
  // Sorting: a click on "pairs" sorts the groups by it, most first.
  await page.$$eval('#latency-groups th', (ths) => ths.find((t) => t.textContent === 'pairs').click());
  const sorted = (await table(page, 'latency-groups')).map((g) => Number(g.pairs.v));
  checkEqual(sorted, [...latency.groups.map((g) => g.count)].sort((a, b) => b - a), 'sorted by pairs');
  // Paging: 30 processes, 25 a page.
  checkEqual((await table(page, 'processes')).length, 25, 'first page of processes');
  const pager = await page.$eval('#processes .pager', (p) => p.textContent);
  check(pager.includes('rows 1\u201325 of 30'), `pager: ${pager}`);
  await page.$$eval('#processes .pager button', (b) => b[1].click());
  checkEqual((await table(page, 'processes')).length, 5, 'second page of processes');
  // The pictures.
  const heat = await page.$$eval('#latency rect[data-n]', (r) => r.reduce((s, e) => s + +e.dataset.n, 0));
  checkEqual(heat, latency.count, 'the heat map holds every pair');
  const graphs = await page.$$eval('#stacks svg.fg', (s) => s.map((g) => +g.dataset.total));
  checkEqual(graphs.sort(), summary.probes.map((p) => p.count).sort(), 'a flame graph per probe with its events');
  const slowest = await table(page, 'slowest');
  checkEqual(slowest.map((r) => Number(r.duration.v)), latency.slowest.map((p) => p.duration_ns), 'slowest pairs');
  checkEqual(slowest.map((r) => r['start stack'].text), latency.slowest.map((p) => `${p.start_event.stack.length} frames`),
             'slowest pairs: their stacks');
  checkEqual(page.requestsMade, [], 'requests');
  checkEqual(page.pageErrors, [], 'script errors');
  await screenshot(page, path.join(artifacts, 'report.png'));
  // Size: the events are not embedded one by one, so it grows with what is
  // shown (groups, distinct stacks), not with the trace.
  const size = fs.statSync(file).size, events = summary.events;
  console.log(`report.html: ${size} bytes for ${events} events, ${(size / events).toFixed(1)} bytes per event`);
  check(size < 200 * 1024, `the report stays small (${size} bytes)`);
} finally {
  await close();
}
finish('check_html');
