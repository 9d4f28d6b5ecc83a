#!/usr/bin/env bash
# The pictures' benchmark: flamegraph, heatmap and html on a trace of EVENTS
# (default 10 M) request events with call stacks (stack_pairs.cpp): wall
# time and peak memory of usdt-report, the output's size, and headless
# Chromium's time to load and draw it, side by side with speedscope loading
# the same stacks folded (stacks --folded). Targets: each output written in
# under 2 s, under 5 MB, drawn in under 2 s. Results: a markdown table on
# stdout (bench/results/visual.md keeps the last run, with its command).
#
# usage: bench/visual/run.sh [EVENTS]   (after a build in build/; BUILD_DIR overrides)
set -euo pipefail
cd "$(dirname "$0")/../.."
events=${1:-10000000}
build=${BUILD_DIR:-build}
work=${WORK_DIR:-$build/bench-visual}
mkdir -p "$work"
report=$build/report/usdt-report
cmake --build "$build" --target usdt-report usdt_formats usdt_common >/dev/null
bash scripts/install-browser-deps.sh
generator=$work/stack_pairs
if [ ! -x "$generator" ] || [ bench/visual/stack_pairs.cpp -nt "$generator" ]; then
  c++ -O2 -std=c++20 -I. bench/visual/stack_pairs.cpp "$build/formats/libusdt_formats.a" \
    "$build/common/libusdt_common.a" -lzstd -o "$generator"
fi
trace=$work/pairs-$events.trace
[ -f "$trace" ] || "$generator" "$trace" "$events"

pair=(--start bench:start --end bench:done)
measure() {  # NAME OUTPUT ARGS...: one row
  local name=$1 output=$2
  shift 2
  /usr/bin/time -f '%e %M' -o "$work/time" "$report" "$@" -o "$output" "$trace" 2>/dev/null
  read -r seconds kb <"$work/time"
  local ms
  ms=$(node bench/visual/render_time.mjs "$output" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ms"])')
  printf '| %s | %s | %s | %s | %s |\n' "$name" "$seconds" "$((kb / 1024))" \
    "$(python3 -c "print(round($(stat -c %s "$output") / 1e6, 2))")" "$(python3 -c "print($ms / 1000)")"
}

echo "trace: $events events with call stacks ($(du -h "$trace" | cut -f1)), $(nproc) CPUs"
echo
echo '| output | written (s) | peak memory (MB) | size (MB) | loaded and drawn in Chromium (s) |'
echo '|---|---|---|---|---|'
measure flamegraph "$work/flamegraph.svg" flamegraph
measure heatmap "$work/heatmap.svg" heatmap "${pair[@]}"
measure html "$work/report.html" html "${pair[@]}"
/usr/bin/time -f '%e %M' -o "$work/time" "$report" stacks --folded "$trace" >"$work/stacks.folded"
read -r seconds kb <"$work/time"
ms=$(node bench/visual/render_time.mjs --speedscope "$work/stacks.folded" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["ms"])')
printf '| speedscope (stacks --folded, then speedscope) | %s | %s | %s | %s |\n' "$seconds" "$((kb / 1024))" \
  "$(python3 -c "print(round($(stat -c %s "$work/stacks.folded") / 1e6, 2))")" "$(python3 -c "print($ms / 1000)")"
echo
echo 'targets: written < 2 s, size < 5 MB, drawn < 2 s (each output)'
