#!/bin/sh
# Builds the format benchmarks (Release) in a build directory of their own and
# runs them: first the targets (bytes/event, write and read speed on 10M
# events of the synthetic loop stream, each "met" or "NOT MET"), then the
# Google Benchmark suite. Exit status 1 when a target is not met.
# usage: bench/format/run.sh [EVENTS]   (env: BUILD_DIR, BENCH_ARGS)
set -eu
events=${1:-10000000}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build-bench-format}
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 >/dev/null
echo "== format targets =="
out=$("$build/format_targets" "$events")
echo "$out"
echo "== format benchmarks =="
# shellcheck disable=SC2086
"$build/format_bench" ${BENCH_ARGS:-}
if echo "$out" | grep -q "NOT MET"; then exit 1; fi
