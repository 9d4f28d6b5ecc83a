#!/usr/bin/env bash
# Builds the Debian package, installs it, runs the installed tools (version,
# listing, a short recording of the bundled example, a report of it), and
# removes the package again, also when a step fails. Run by scripts/test.sh
# after the build; needs root (apt-get, recording). Without root it says so
# and exits 0, except under CI=true, where that is a failure.
#   BUILD_DIR   the configured build tree to package (default build)
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build}
package=usdt-trace

if [ "$(id -u)" != 0 ]; then
  if [ "${CI:-}" = true ]; then
    echo "package-test: error: must run as root under CI=true (apt-get install, recording)" >&2
    exit 1
  fi
  echo "package-test: skipped: needs root to install the package and record" >&2
  exit 0
fi
if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
  echo "package-test: error: $package is already installed; remove it first (apt-get remove $package)" >&2
  exit 1
fi

step() { echo "package-test: $*" >&2; }

# The package, from the build tree's install rules (cpack builds what is
# missing first). Old packages of earlier revisions are removed so that the
# one installed is this build's.
if [ ! -f "$build/CPackConfig.cmake" ]; then
  cmake -S . -B "$build" -DUSDT_WERROR=ON >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target usdt-record usdt-report request_demo man_pages
rm -f "$build"/package/"$package"_*.deb
step "building the package"
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/package/"$package"_*.deb)
deb=$(realpath "$deb")
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Depends\):/  \1:/p' >&2

work=$(mktemp -d)
cleanup() {
  status=$?
  step "removing the package"
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "$package" >/dev/null 2>&1 ||
    dpkg --purge "$package" >/dev/null 2>&1 || true
  rm -rf "$work"
  if [ "$status" -eq 0 ]; then
    step "passed"
  else
    step "FAILED (exit $status)"
  fi
  exit "$status"
}
trap cleanup EXIT

step "installing $(basename "$deb")"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null

fail() {
  echo "package-test: error: $*" >&2
  exit 1
}

# The tools on PATH must be the installed ones, not a build tree's.
record=$(command -v usdt-record)
report=$(command -v usdt-report)
[ "$record" = /usr/bin/usdt-record ] || fail "usdt-record resolves to '$record', not /usr/bin/usdt-record"
[ "$report" = /usr/bin/usdt-report ] || fail "usdt-report resolves to '$report', not /usr/bin/usdt-report"

for f in /usr/share/man/man1/usdt-record.1.gz /usr/share/man/man1/usdt-report.1.gz \
  /usr/share/bash-completion/completions/usdt-record /usr/share/bash-completion/completions/usdt-report \
  /usr/share/doc/usdt-trace/FORMAT.md /usr/share/doc/usdt-trace/CLI.md; do
  [ -f "$f" ] || fail "the package did not install $f"
done

revision=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
version=$(usdt-record --version)
step "usdt-record --version: $version"
[[ $version == "usdt-record "*" (git $revision)" ]] || fail "unexpected --version output '$version' (revision $revision)"
report_version=$(usdt-report --version)
[[ $report_version == "usdt-report "*" (git $revision)" ]] || fail "unexpected usdt-report --version output '$report_version'"

demo=$(realpath "$build/examples/request_demo")
listing=$(usdt-record -l "$demo")
step "usdt-record -l $demo: $(echo "$listing" | wc -l) probes"
for probe in req_start req_done cache_miss; do
  grep -qx "usdt:$demo:demo:$probe" <<<"$listing" || fail "usdt-record -l does not list demo:$probe:
$listing"
done

# 200 requests: one req_start and one req_done each, a cache_miss for ids 3, 13, ...
trace=$work/demo.trace
step "recording 200 requests of request_demo"
usdt-record -q -e 'demo:*' -o "$trace" -- "$demo" 200 >/dev/null
summary=$(usdt-report summary --format json "$trace")
for expected in '"provider":"demo","name":"req_start","count":200' \
  '"provider":"demo","name":"req_done","count":200' \
  '"provider":"demo","name":"cache_miss","count":20'; do
  grep -qF "$expected" <<<"$summary" || fail "summary lacks $expected:
$summary"
done
latency=$(usdt-report latency --start demo:req_start --end demo:req_done --key arg0 --format json "$trace")
grep -qF '"count":200' <<<"$latency" || fail "latency did not pair 200 requests:
$latency"
usdt-report "$trace" >/dev/null
step "usdt-report: 200 requests, 200 latencies"

# The man pages are found by man(1) when man-db is there.
if command -v man >/dev/null; then
  for page in usdt-record usdt-report; do
    MANWIDTH=100 man "$page" 2>/dev/null | grep -q -- '--version' || fail "man $page does not show the page"
  done
  step "man usdt-record, man usdt-report: found"
fi

# Tab completion as bash-completion runs it: `usdt-record -e <TAB> -- request_demo`
# must offer the example's probes.
if [ -f /usr/share/bash-completion/bash_completion ]; then
  offered=$(demo=$demo bash -c '
    source /usr/share/bash-completion/bash_completion
    source /usr/share/bash-completion/completions/usdt-record
    COMP_WORDS=(usdt-record -e "" -- "$demo")
    COMP_CWORD=2
    COMP_LINE="usdt-record -e  -- $demo"
    COMP_POINT=15
    _usdt_record
    printf "%s\n" "${COMPREPLY[@]}"')
  grep -qx 'demo:req_start' <<<"$offered" || fail "completion of -e offers no demo:req_start:
$offered"
  step "completion of -e: ${offered//$'\n'/ }"
fi
