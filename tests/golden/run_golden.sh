#!/bin/bash
# Runs one usdt-report command on the golden traces and compares what it
# prints (stdout, then stderr and the exit code) with tests/golden/expected/NAME.txt.
# Byte offsets in messages become "offset N". With UPDATE_GOLDEN=1 it rewrites the expected file instead (review the diff
# by hand: expected files must be right, not just stable).
#
# usage: run_golden.sh NAME EXPECTED_DIR TRACE_DIR USDT_REPORT [ARGS...]
#   ARGS run in TRACE_DIR, so traces are named by their bare file names.
#   An argument @OUT@ is replaced by a scratch file whose content is appended.
set -u
name=$1 expected_dir=$2 trace_dir=$3 report=$4
shift 4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
args=()
for a in "$@"; do
  if [ "$a" = "@OUT@" ]; then args+=("$scratch/out.json"); else args+=("$a"); fi
done
actual=$scratch/actual.txt
(
  cd "$trace_dir" || exit 99
  "$report" "${args[@]}" >"$scratch/stdout" 2>"$scratch/stderr"
  echo $? >"$scratch/rc"
)
{
  cat "$scratch/stdout"
  if [ -s "$scratch/stderr" ]; then
    echo "--- stderr ---"
    cat "$scratch/stderr"
  fi
  echo "--- exit $(cat "$scratch/rc") ---"
  if [ -f "$scratch/out.json" ]; then
    echo "--- output file ---"
    cat "$scratch/out.json"
  fi
} | sed -E -e "s|$scratch/out.json|OUT.json|g" \
        -e 's/offset [0-9]+( \(0x[0-9a-f]+\))?/offset N/g' >"$actual"
# File offsets depend on compressed sizes (the zstd version): normalized.

if [ -f "$scratch/out.json" ] && [ -n "${CHECK_CHROME:-}" ]; then
  if ! python3 "$CHECK_CHROME" "$scratch/out.json"; then
    echo "golden $name: the exported file is not a valid Chrome trace" >&2
    exit 1
  fi
fi

expected=$expected_dir/$name.txt
if [ "${UPDATE_GOLDEN:-0}" = "1" ]; then
  cp "$actual" "$expected"
  echo "golden $name: updated $expected"
  exit 0
fi
if ! diff -u "$expected" "$actual"; then
  echo "golden $name: output differs from $expected (UPDATE_GOLDEN=1 rewrites it; review the diff)" >&2
  exit 1
fi
