// What every browser check shares: Debian's chromium, started headless with
// a fresh profile and the flags that keep it off the network (this
// project's machines have none: without them it stalls), a page that fails
// every request that is not the file under test, and a screenshot kept as
// the test's artifact.
//
// A check that cannot run (no chromium, no node_modules) exits 77, which
// CTest reports as skipped, except under CI=true, where it fails: there
// scripts/install-deps.sh and scripts/install-browser-deps.sh must have
// installed both.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

export const kSkip = 77;
const here = path.dirname(fileURLToPath(import.meta.url));

export function cannotRun(why) {
  if (process.env.CI === 'true') {
    console.error(`browser check: ${why} (under CI=true this is a failure)`);
    process.exit(1);
  }
  console.error(`browser check: skipped: ${why}`);
  process.exit(kSkip);
}

export async function launch() {
  const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!fs.existsSync(chromium)) cannotRun(`no ${chromium} (scripts/install-deps.sh installs Debian's chromium)`);
  let puppeteer;
  try {
    puppeteer = (await import(path.join(here, 'node_modules/puppeteer-core/lib/esm/puppeteer/puppeteer-core.js'))).default;
  } catch (e) {
    cannotRun('no puppeteer-core in tests/browser/node_modules (run scripts/install-browser-deps.sh)');
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'usdt-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: profile,
    protocolTimeout: 120000,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync',
           '--disable-dev-shm-usage'],
  });
  return {
    browser,
    async close() {
      await browser.close();
      fs.rmSync(profile, {recursive: true, force: true});
    },
  };
}

// Opens file in a new page; every other request is failed and recorded in
// page.requestsMade (checks assert it stays empty).
export async function open(browser, file, viewport = {width: 1250, height: 900}) {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const url = pathToFileURL(path.resolve(file)).href;
  page.requestsMade = [];
  page.pageErrors = [];
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (request.url() === url) return request.continue();
    page.requestsMade.push(request.url());
    return request.abort('blockedbyclient');
  });
  page.on('pageerror', (e) => page.pageErrors.push(String(e)));
  await page.goto(url, {waitUntil: 'load', timeout: 60000});
  return page;
}

export async function screenshot(page, file) {
  fs.mkdirSync(path.dirname(file), {recursive: true});
  await page.screenshot({path: file, fullPage: true});
}

let failures = 0;
export function check(ok, what) {
  if (ok) return;
  failures++;
  console.error(`FAILED: ${what}`);
}
export function checkEqual(actual, expected, what) {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  check(a === e, `${what}: got ${a}, expected ${e}`);
}
export function finish(name) {
  if (failures > 0) {
    console.error(`${name}: ${failures} checks failed`);
    process.exit(1);
  }
  console.log(`${name}: passed`);
}
