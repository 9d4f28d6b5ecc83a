#!/usr/bin/env bash
# The benchmark suite in one command: installs what is missing (bpftrace, perf,
# PostgreSQL 15 + pgbench, GNU time), builds usdt-record/usdt-report (Release,
# in build-bench/), the workloads and the bare sampler, runs every tool on
# every workload in interleaved rounds and prints a markdown table, also
# written to bench/results/latest.md. Needs root (uprobes, perf, apt).
#
#   bench/run.sh [--quick] [--rounds N] [--tools floor,bare,perf,perf-z,bpftrace,usdt-record]
#                [--workloads loop,threads,reg6,mem,kread,sema,fentry,fret,postgres,isolation,
#                             detach,ctxswitch,loss,report,micro]
#                [--hits N] [--loss-hits N] [--no-install] [--no-build] [--output FILE]
#
# --quick: 5 rounds (the fewest that give a verdict an interval), 100k hits,
# loop + threads + loss check at 200k + report speed only (about two
# minutes), not kept. A full run of a clean tree (about 8 minutes on the
# 2-core VM) appends its verdicts to bench/results/history.jsonl; a run of a
# tree with uncommitted changes is never kept. Any option of
# bench/lib/bench.py passes through (--help there).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BENCH_BUILD_DIR:-$root/build-bench}"
install=1
build_it=1
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) args+=(--rounds 5 --hits 100000 --loss-hits 200000 --report-pairs 100000
                    --workloads loop,threads,loss,report) ;;
    --no-install) install=0 ;;
    --no-build) build_it=0 ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1") ;;
  esac
  shift
done

if [ "$(id -u)" != 0 ]; then
  echo "bench: error: the benchmark needs root (uprobes, perf probe, tracefs)" >&2
  echo "hint: sudo bench/run.sh" >&2
  exit 1
fi

if [ "$install" = 1 ]; then
  packages=(bpftrace linux-perf postgresql-15 postgresql-contrib time systemtap-sdt-dev
            cmake build-essential python3 binutils)
  missing=()
  for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "bench: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  "$root/scripts/install-deps.sh"
fi

if [ "$build_it" = 1 ]; then
  mkdir -p "$build/bench"
  # The workloads: -O2, frame pointers as a distribution would build them.
  cc -O2 -g -Wall -Wextra -pthread -o "$build/bench/loop" \
    "$root/bench/workloads/loop.c" "$root/bench/workloads/loop_sema.c"
  cc -O2 -g -Wall -Wextra -o "$build/bench/bare_sampler" "$root/bench/floor/bare_sampler.c"
  cc -O2 -g -Wall -Wextra -o "$build/bench/pingpong" "$root/bench/workloads/pingpong.c"
  # The tools under test. A build failure (the tree is being worked on) is not
  # fatal: the table then says usdt-record/usdt-report are not available.
  if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >"$build/cmake.log" 2>&1 &&
         cmake --build "$build" -j2 --target usdt-record usdt-report >>"$build/cmake.log" 2>&1; }; then
    echo "bench: warning: building usdt-record/usdt-report failed (see $build/cmake.log); measuring the others" >&2
  fi
fi

exec python3 "$root/bench/lib/bench.py" --build-dir "$build" "${args[@]}"
