// The heat map as a person sees it in Chromium: its cells add up to the
// pairs that latency counts (and each panel to its group's), hovering a
// cell says its time, latency range and count, an argument's map adds up
// to its events. No request leaves the page.
//
// usage: node check_heatmap.mjs USDT_REPORT TRACE_DIR ARTIFACT_DIR
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {check, checkEqual, finish, launch, open, screenshot} from './browser.mjs';

const [report, traces, artifacts] = process.argv.slice(2);
fs.mkdirSync(artifacts, {recursive: true});
const run = (...args) => execFileSync(report, args, {cwd: traces, encoding: 'utf8'});
const shop = ['--start', 'shop:query_start', '--end', 'shop:query_done'];

async function cells(page) {
  return page.evaluate(() => Array.from(document.querySelectorAll('g.hm-p')).map((p) => ({
    total: +p.dataset.total,
    title: p.querySelector('text').textContent,
    sum: Array.from(p.querySelectorAll('rect[data-n]')).reduce((s, r) => s + +r.dataset.n, 0),
  })));
}

const {browser, close} = await launch();
try {
  const latency = JSON.parse(run('latency', ...shop, '--format', 'json', 'visual.trace'));
  const file = path.join(artifacts, 'heatmap.svg');
  run('heatmap', ...shop, '-o', file, 'visual.trace');
  const page = await open(browser, file, {width: 1000, height: 520});
  const panels = await cells(page);
  checkEqual(panels.map((p) => p.sum), [latency.count], 'the cells hold every pair');
  const cell = await page.$('g.hm-p rect[data-n]');
  await cell.hover();
  const details = await page.$eval('.hm-details', (e) => e.textContent);
  check(/^\+[0-9.e-]+ s to \+[0-9.e-]+ s, [0-9.]+ [mun]?s to [0-9.]+ [mun]?s: [0-9]+ pairs$/.test(details), `hover: ${details}`);
  const labels = await page.$$eval('text', (t) => t.map((e) => e.textContent));
  check(labels.some((l) => l.startsWith('latency (log scale)')), 'the y axis says what and how');
  check(labels.some((l) => l.startsWith('time since the start of the recording')), 'the x axis says what');
  checkEqual(page.requestsMade, [], 'requests');
  checkEqual(page.pageErrors, [], 'script errors');
  await screenshot(page, path.join(artifacts, 'heatmap.png'));

  // One panel per statement shape, each adding up to its group.
  const byShape = JSON.parse(run('latency', ...shop, '--by', 'sql(arg0)', '--format', 'json', 'visual.trace'));
  const groupsFile = path.join(artifacts, 'heatmap-sql.svg');
  run('heatmap', ...shop, '--by', 'sql(arg0)', '-o', groupsFile, 'visual.trace');
  const groups = await open(browser, groupsFile, {width: 1000, height: 900});
  const drawn = await cells(groups);
  checkEqual(drawn.map((p) => p.sum).sort((a, b) => a - b), byShape.groups.map((g) => g.count).sort((a, b) => a - b),
             'each panel holds its group');
  checkEqual(drawn.map((p) => p.sum), drawn.map((p) => p.total), 'each panel says its count');
  await screenshot(groups, path.join(artifacts, 'heatmap-sql.png'));

  // An argument over time: every event that has it.
  const hist = JSON.parse(run('hist', '--probe', 'shop:query_start', '--arg', '1', '--format', 'json', 'visual.trace'));
  const argFile = path.join(artifacts, 'heatmap-arg.svg');
  run('heatmap', '--probe', 'shop:query_start', '--arg', '1', '-o', argFile, 'visual.trace');
  const arg = await open(browser, argFile, {width: 1000, height: 520});
  checkEqual((await cells(arg)).map((p) => p.sum), [hist.count], 'the argument map holds every event');
  checkEqual(arg.requestsMade, [], 'argument map: requests');
} finally {
  await close();
}
finish('check_heatmap');
