// Headless Chromium's time to load and draw a picture: from the start of
// the navigation to the first frame drawn after the page's load event (two
// animation frames), in ms. With --speedscope FOLDED: speedscope (npm,
// pinned in tests/browser/package.json) loading the same stacks as a folded
// file, to the first frame after it shows the profile (its title names
// the file). Uses Debian's chromium and tests/browser/node_modules.
//
// usage: node render_time.mjs FILE | --speedscope FOLDED_FILE   (prints {"ms":N})
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.join(here, '../../tests/browser/node_modules');
const puppeteer = (await import(path.join(modules, 'puppeteer-core/lib/esm/puppeteer/puppeteer-core.js'))).default;
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'usdt-bench-chromium-'));
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, userDataDir: profile,
  protocolTimeout: 300000,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
try {
  const page = await browser.newPage();
  await page.setViewport({width: 1250, height: 900});
  let url, ready;
  if (process.argv[2] === '--speedscope') {
    const folded = process.argv[3];
    const js = path.join(profile, 'profile.js');
    fs.writeFileSync(js, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(folded))}, ` +
                         `${JSON.stringify(fs.readFileSync(folded).toString('base64'))})`);
    url = pathToFileURL(path.join(modules, 'speedscope/dist/release/index.html')).href + '#localProfilePath=' + js;
    ready = () => page.waitForFunction((name) => document.title.includes(name), {timeout: 300000},
                                       path.basename(folded));
  } else {
    url = pathToFileURL(path.resolve(process.argv[2])).href;
    ready = () => Promise.resolve();
  }
  const t0 = Date.now();
  await page.goto(url, {waitUntil: 'load', timeout: 300000});
  await ready();
  await page.evaluate(frame);
  console.log(JSON.stringify({ms: Date.now() - t0}));
} finally {
  await browser.close();
  fs.rmSync(profile, {recursive: true, force: true});
}
