#!/usr/bin/env bash
# The README's first command: installs what is missing, builds everything,
# records the bundled example (examples/request_demo.c) and reports it.
# Recording needs root (or CAP_PERFMON).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
echo "== probes of the example"
./build/record/usdt-record -l -v build/examples/request_demo
echo "== recording it"
./build/record/usdt-record -e 'demo:*' -o demo.trace -- ./build/examples/request_demo
echo "== what was recorded"
./build/report/usdt-report summary demo.trace
echo "== request latency (req_start -> req_done, paired by request id)"
./build/report/usdt-report latency --start demo:req_start --end demo:req_done --key arg0 demo.trace
