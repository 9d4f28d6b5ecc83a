#!/bin/bash
# Runs one usdt-report command on the golden traces with -j 1 (one thread)
# and with -j 3 (segments of time on three threads; a trace of too few
# chunks: three threads decoding ahead) and fails unless both
# print the same bytes (stdout, stderr, exit code, output file).
#
# usage: run_jobs_equal.sh TRACE_DIR USDT_REPORT [ARGS...]
set -u
trace_dir=$1 report=$2
shift 2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
run() {
  local jobs=$1 out=$scratch/$1
  mkdir -p "$out"
  local args=()
  for a in "${@:2}"; do
    if [ "$a" = "@OUT@" ]; then args+=("$scratch/out.json"); else args+=("$a"); fi
  done
  (
    cd "$trace_dir" || exit 99
    "$report" "${args[@]}" -j "$jobs" >"$out/stdout" 2>"$out/stderr"
    echo $? >"$out/rc"
  )
  if [ -f "$scratch/out.json" ]; then mv "$scratch/out.json" "$out/file"; fi
}
run 1 "$@"
run 3 "$@"
if ! diff -r "$scratch/1" "$scratch/3"; then
  echo "FAIL: -j 1 and -j 3 differ for: usdt-report $*" >&2
  exit 1
fi
echo "ok: -j 1 and -j 3 agree for: usdt-report $*"
