// The flame graph as a person sees it in Chromium: every frame of
// `stacks --folded` is there with its exact count and a width in proportion
// to it; a click zooms to a frame; Search highlights and measures matches;
// --reverse and --diff draw the same stacks. No request leaves the page.
//
// usage: node check_flamegraph.mjs USDT_REPORT TRACE_DIR ARTIFACT_DIR
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {check, checkEqual, finish, launch, open, screenshot} from './browser.mjs';

const [report, traces, artifacts] = process.argv.slice(2);
fs.mkdirSync(artifacts, {recursive: true});
const run = (...args) => execFileSync(report, args, {cwd: traces, encoding: 'utf8'});

// Each path of frames (all;probe;...) and its events, from folded lines.
function expectedPaths(folded, reverse) {
  const paths = new Map();
  for (const line of folded.trim().split('\n')) {
    const cut = line.lastIndexOf(' ');
    let frames = line.slice(0, cut).split(';');
    const n = Number(line.slice(cut + 1));
    if (reverse) frames = [frames[0], ...frames.slice(1).reverse()];
    let p = 'all';
    paths.set(p, (paths.get(p) || 0) + n);
    for (const f of frames) {
      p += ';' + f;
      paths.set(p, (paths.get(p) || 0) + n);
    }
  }
  return paths;
}

// The frames drawn: each one's path (from the frames it stands on), count and width.
async function drawnFrames(page) {
  return page.evaluate(() => {
    const names = JSON.parse(document.querySelector('.fg-names').textContent);
    const frames = Array.from(document.querySelectorAll('rect.fg-f')).map((r) => ({
      name: names[+r.dataset.n][0],
      x: +r.dataset.x, c: +r.dataset.c, d: +r.dataset.d,
      width: +r.getAttribute('width'),
      hidden: r.classList.contains('fg-h'), parent: r.classList.contains('fg-p'),
    }));
    for (const f of frames) {
      const below = frames.find((o) => o.d === f.d - 1 && o.x <= f.x && f.x + f.c <= o.x + o.c);
      f.below = below || null;
    }
    for (const f of frames) {
      let p = f.name;
      for (let o = f.below; o; o = o.below) p = o.name + ';' + p;
      f.path = p;
    }
    for (const f of frames) delete f.below;  // (not serializable: the page hands back plain data)
    return frames;
  });
}

async function checkGraph(browser, args, reverse, shot) {
  const folded = run('stacks', '--folded', ...args.filter((a) => a !== '--reverse'));
  const file = path.join(artifacts, shot + '.svg');
  run('flamegraph', '-o', file, ...args);
  const page = await open(browser, file);
  const frames = await drawnFrames(page);
  const expected = expectedPaths(folded, reverse);
  const drawn = new Map(frames.map((f) => [f.path, f.c]));
  checkEqual([...drawn.entries()].sort(), [...expected.entries()].sort(), `${shot}: frames and their counts`);
  const total = expected.get('all'), span = 1180;
  for (const f of frames) {
    check(Math.abs(f.width - f.c / total * span) <= 0.005, `${shot}: width of ${f.path} (${f.width}) is its share`);
  }
  checkEqual(page.requestsMade, [], `${shot}: requests`);
  checkEqual(page.pageErrors, [], `${shot}: script errors`);
  return {page, frames, total, span};
}

const {browser, close} = await launch();
try {
  // The plain graph: zoom, hover, search.
  const {page, frames, total, span} = await checkGraph(browser, ['visual.trace'], false, 'flamegraph');
  await screenshot(page, path.join(artifacts, 'flamegraph.png'));
  const target = frames.find((f) => f.path === 'all;shop:query_start;main;serve_request;run_query');
  check(target !== undefined, 'the frame run_query under shop:query_start is drawn');
  const handles = await page.$$('rect.fg-f');
  await handles[frames.indexOf(target)].hover();
  const details = await page.$eval('.fg-details', (e) => e.textContent);
  check(details.startsWith(`run_query (/opt/shop/bin/shop): ${target.c} events`), `hover shows the frame: ${details}`);
  await handles[frames.indexOf(target)].click();
  const zoomed = await drawnFrames(page);
  for (const f of zoomed) {
    const inside = f.path.startsWith(target.path + ';') || f.path === target.path;
    const under = target.path.startsWith(f.path + ';');
    if (inside) check(!f.hidden && Math.abs(f.width - f.c / target.c * span) <= 0.01, `zoomed: ${f.path} scaled`);
    else if (under) check(f.parent && Math.abs(f.width - span) <= 0.01, `zoomed: ${f.path} is a full-width caller`);
    else check(f.hidden, `zoomed: ${f.path} hidden`);
  }
  const strayLabels = await page.$$eval('text.fg-l', (ts) => ts.filter(
      (t) => t.previousElementSibling.classList.contains('fg-h') !== t.classList.contains('fg-h')).length);
  checkEqual(strayLabels, 0, 'zoomed: each label shows or hides with its frame');
  await screenshot(page, path.join(artifacts, 'flamegraph-zoomed.png'));
  // Search: the events whose stacks hold a frame matching, once each.
  const matched = await page.evaluate(() => {
    const svg = document.querySelector('svg');
    svg.flameSearch('^SSL_write$');
    return {covered: +svg.getAttribute('data-matched'), text: svg.querySelector('.fg-matched').textContent};
  });
  const folded = run('stacks', '--folded', 'visual.trace');
  let ssl = 0;
  for (const line of folded.trim().split('\n')) if (line.includes(';SSL_write')) ssl += Number(line.split(' ').pop());
  checkEqual(matched.covered, ssl, 'search: events matched');
  checkEqual(matched.text, `Matched: ${(100 * ssl / total).toFixed(2)}%`, 'search: the share shown');
  // Icicle of callers, and the differential graph.
  const reversed = await checkGraph(browser, ['--reverse', 'visual.trace'], true, 'flamegraph-reverse');
  await screenshot(reversed.page, path.join(artifacts, 'flamegraph-reverse.png'));
  const diffFile = path.join(artifacts, 'flamegraph-diff.svg');
  run('flamegraph', '--diff', '-o', diffFile, 'visual.trace', 'visual_after.trace');
  const diff = await open(browser, diffFile);
  const colors = await diff.evaluate(() => {
    const names = JSON.parse(document.querySelector('.fg-names').textContent);
    const fill = (name) => Array.from(document.querySelectorAll('rect.fg-f'))
        .filter((r) => names[+r.dataset.n][0] === name)
        .map((r) => r.getAttribute('fill'));
    return {parse: fill('parse_sql'), scan: fill('shop::Engine::scan()')};
  });
  check(colors.parse.length > 0 && colors.parse.every((c) => /^#fa/.test(c) && c !== '#fafafa'), `diff: parse_sql grew (red): ${colors.parse}`);
  check(colors.scan.length > 0 && colors.scan.every((c) => /fa$/.test(c) && c !== '#fafafa'), `diff: scan shrank (blue): ${colors.scan}`);
  checkEqual(diff.requestsMade, [], 'diff: requests');
  await screenshot(diff, path.join(artifacts, 'flamegraph-diff.png'));
} finally {
  await close();
}
finish('check_flamegraph');
