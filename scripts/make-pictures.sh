#!/usr/bin/env bash
# Makes the pictures of docs/visualize.md (and the README) from the bundled
# example: records examples/request_demo with call stacks unwound with DWARF
# CFI (`-g dwarf`: through libc's thread start too, which has no frame
# pointers), draws its flame graph, latency heat map and HTML report, and
# takes a PNG screenshot of each in Debian's chromium (headless, offline),
# reduced to 64 colors by pngquant (scripts/install-deps.sh) when it is
# there, so that the files stay small. Needs root (usdt-record) and the
# build directory (BUILD_DIR, default build/).
#
# usage: scripts/make-pictures.sh [OUT_DIR]   (default docs/pictures)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
out=${1:-docs/pictures}
cmake --build "$build" -j"$(nproc)" --target usdt-record usdt-report request_demo >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
record=$build/record/usdt-record
report=$build/report/usdt-report
"$record" -g dwarf -e 'demo:*' -o "$work/demo.trace" -- "$build/examples/request_demo" 4000 >/dev/null
pair=(--start demo:req_start --end demo:req_done)
"$report" flamegraph --title 'request_demo: where demo:* probes fire' -o "$work/flamegraph.svg" "$work/demo.trace"
"$report" heatmap "${pair[@]}" --title 'request_demo: latency of its requests' -o "$work/heatmap.svg" \
  "$work/demo.trace"
"$report" html "${pair[@]}" --title 'request_demo' -o "$work/report.html" "$work/demo.trace"

shoot() {  # FILE WIDTH HEIGHT PNG
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile-$(basename "$4")" --hide-scrollbars \
    --window-size="$2,$3" --screenshot="$4" "file://$1" 2>/dev/null
}
mkdir -p "$out"
shoot "$work/flamegraph.svg" 1200 330 "$out/flamegraph.png"
shoot "$work/heatmap.svg" 1000 480 "$out/heatmap.png"
shoot "$work/report.html" 1250 1500 "$out/report.png"
if command -v pngquant >/dev/null; then
  for png in "$out"/flamegraph.png "$out"/heatmap.png "$out"/report.png; do
    pngquant --force --skip-if-larger --strip --output "$png" 64 -- "$png" || [ $? -eq 98 ]
  done
fi
ls -l "$out"/*.png
