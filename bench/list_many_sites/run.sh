#!/usr/bin/env bash
# Times `usdt-record -l -v` on a generated binary with many USDT probe sites
# (default 100,000: 1,000 probe names x 100 sites each, two register
# arguments). Prints the wall time; the goal is well under one second.
#
# usage: bench/list_many_sites/run.sh [USDT_RECORD] [SITES]
#   USDT_RECORD  path to usdt-record (default: build/record/usdt-record)
#   SITES        number of probe sites, a multiple of 100 (default 100000)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
record=${1:-$root/build/record/usdt-record}
sites=${2:-100000}
names=$((sites / 100))
work=$(mktemp -d /tmp/usdt_list_many_sites.XXXXXX)
trap 'rm -rf "$work"' EXIT

[ -x "$record" ] || { echo "run.sh: no usdt-record at $record (build it or pass its path)" >&2; exit 1; }

# One function per probe name; each holds 100 sites of that probe.
awk -v names="$names" 'BEGIN {
  print "#include <sys/sdt.h>"
  print "volatile long sink;"
  for (n = 0; n < names; n++) {
    printf "void f%d(long a, long b) {\n", n
    for (s = 0; s < 100; s++) printf "  DTRACE_PROBE2(bench, probe%d, a + %d, b);\n", n, s
    print "  sink = a;"
    print "}"
  }
  print "int main(void) { return 0; }"
}' > "$work/many_sites.c"

echo "compiling $sites probe sites ($names probes)..." >&2
gcc -O1 -o "$work/many_sites" "$work/many_sites.c"

# Count the sites from the notes to confirm the binary is what we think.
found=$(readelf -n --wide "$work/many_sites" | grep -c 'NT_STAPSDT' || true)
echo "notes in binary: $found" >&2

best=""
for round in 1 2 3; do
  start=$(date +%s.%N)
  "$record" -l -v "$work/many_sites" > "$work/out.txt"
  end=$(date +%s.%N)
  t=$(echo "$end - $start" | bc -l)
  printf 'round %d: %.3f s\n' "$round" "$t"
  if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
done
listed=$(grep -c '^  location ' "$work/out.txt" || true)
printf 'usdt-record -l -v on %d sites: best %.3f s (%d locations listed)\n' "$sites" "$best" "$listed"
