#!/usr/bin/env bash
# Installs the npm packages of the browser checks and the benchmarks
# (tests/browser/package.json, pinned by its package-lock.json): puppeteer-core,
# which drives Debian's chromium (scripts/install-deps.sh installs it; no
# browser is downloaded), and speedscope. Idempotent: nothing is done when
# node_modules already matches the lock file.
set -euo pipefail
cd "$(dirname "$0")/../tests/browser"
stamp=node_modules/.usdt-lock
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp"; then
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "install-browser-deps: error: npm is missing" >&2
  echo "hint: install Node.js and npm (the browser checks need them)" >&2
  exit 1
fi
echo "install-browser-deps: installing tests/browser/node_modules" >&2
PUPPETEER_SKIP_DOWNLOAD=1 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
cp package-lock.json "$stamp"
