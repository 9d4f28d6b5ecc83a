#!/usr/bin/env bash
# The pictures' benchmark: flamegraph, heatmap and html on a trace of EVENTS
# (default 10 M) request events with call stacks (stack_pairs.cpp): wall
# time and peak memory of usdt-report, the output's size, and headless
# Chromium's time to load and draw it, side by side with speedscope loading
# the same stacks folded (stacks --folded), and the time summary takes to
# read the same trace (the floor of any command). Targets: each output
# written in under 2 s, under 5 MB, drawn in under 2 s. Results: a markdown
# table on stdout (bench/results/visual.md keeps the last run, with its
# command).
#
# usage: bench/visual/run.sh [EVENTS]   (after a build in build/; BUILD_DIR
# overrides; ROUNDS, default 3: each measure is the median of as many runs)
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
rounds=${ROUNDS:-3}
median() { python3 -c 'import statistics, sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
# row NAME OUT DRAW -- ARGS...: usdt-report ARGS (stdout to OUT) and, unless
# DRAW is "-", node render_time.mjs DRAW, each $rounds times, alternating;
# the row shows the medians and the largest peak memory.
row() {
  local name=$1 out=$2 draw=$3
  shift 4
  local written=() drawn=() kb=0 s k
  for ((i = 0; i < rounds; i++)); do
    /usr/bin/time -f '%e %M' -o "$work/time" "$report" "$@" >"$out" 2>/dev/null
    read -r s k <"$work/time"
    written+=("$s")
    ((k > kb)) && kb=$k
    if [ "$draw" != - ]; then
      # shellcheck disable=SC2086  # DRAW is a file or --speedscope FILE
      drawn+=("$(node bench/visual/render_time.mjs $draw | python3 -c 'import json,sys; print(json.load(sys.stdin)["ms"] / 1000)')")
    fi
  done
  local size=- shown=-
  [ "$draw" != - ] && size=$(python3 -c "print(round($(stat -c %s "${draw##* }") / 1e6, 2))") && shown=$(median "${drawn[@]}")
  printf '| %s | %s | %s | %s | %s |\n' "$name" "$(median "${written[@]}")" "$((kb / 1024))" "$size" "$shown"
}

echo "trace: $events events with call stacks ($(du -h "$trace" | cut -f1)), $(nproc) CPUs; $rounds rounds, medians;" \
  "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo '| output | written (s) | peak memory (MB) | size (MB) | loaded and drawn in Chromium (s) |'
echo '|---|---|---|---|---|'
# The floor: reading the trace at all (summary: every event, no arguments).
row 'summary (reading the trace: the floor)' /dev/null - -- summary "$trace"
row flamegraph /dev/null "$work/flamegraph.svg" -- flamegraph -o "$work/flamegraph.svg" "$trace"
row heatmap /dev/null "$work/heatmap.svg" -- heatmap "${pair[@]}" -o "$work/heatmap.svg" "$trace"
row html /dev/null "$work/report.html" -- html "${pair[@]}" -o "$work/report.html" "$trace"
row 'speedscope (stacks --folded, then speedscope)' "$work/stacks.folded" "--speedscope $work/stacks.folded" -- \
  stacks --folded "$trace"
echo
echo "targets: written < 2 s, size < 5 MB, drawn < 2 s (each output); load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
