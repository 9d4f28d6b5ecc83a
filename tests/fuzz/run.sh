#!/bin/sh
# Builds the trace reader's fuzzers with clang (libFuzzer + ASan + UBSan) in a
# build directory of its own, writes a seed corpus of small valid traces, and
# fuzzes in two modes:
#   bytes      trace_reader_fuzz: the input is the file (or, after a 'C', a
#              chunk payload), mutated byte by byte from the seeds;
#   structure  trace_structure_fuzz: the input steers the building of a valid
#              trace whose counts, sizes and offsets are then changed with the
#              checksums recomputed (tests/fuzz/trace_model.h), so that it
#              reaches what zstd's checksums keep the bytes mode from.
# LIMIT is either SECONDS, shared by the modes (default 30: exploring), or
# runs:N, N inputs in each mode from a fixed seed and an empty corpus (what
# CTest runs: the same work on every machine, however loaded).
# Exits non-zero when a fuzzer finds a crash, a sanitizer report or a broken
# reader promise; the reproducer is left in the build directory (crash-*),
# replay it with:
#   BUILD/trace_reader_fuzz BUILD/crash-...   (or BUILD/trace_structure_fuzz)
# usage: tests/fuzz/run.sh [LIMIT] [bytes|structure|both]
#   (env: BUILD_DIR, CXX_FUZZ)
set -eu
limit=${1:-30}
mode=${2:-both}
case $limit in
  runs:*[!0-9]* | runs:) echo "fuzz: LIMIT is SECONDS or runs:N, not '$limit'" >&2; exit 2 ;;
  runs:*) ;;
  *[!0-9]* | '') echo "fuzz: LIMIT is SECONDS or runs:N, not '$limit'" >&2; exit 2 ;;
esac
case $mode in
  bytes | structure | both) ;;
  *) echo "fuzz: unknown mode '$mode' (bytes, structure or both)" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
cxx=${CXX_FUZZ:-clang++}
if ! command -v "$cxx" >/dev/null 2>&1; then
  # 77: skipped (CTest SKIP_RETURN_CODE); CI installs clang (scripts/install-deps.sh).
  if [ "${CI:-}" = "true" ]; then
    echo "fuzz: cannot run under CI=true: no $cxx (clang with libFuzzer) here" >&2
    exit 1
  fi
  echo "skipped: no $cxx (clang with libFuzzer) here" >&2
  exit 77
fi
mkdir -p "$build/obj" "$build/corpus" "$build/seeds" "$build/corpus-structure"

# Every source of formats/ (a list here fell behind when files were split).
sources="$(cd "$root" && echo formats/*.cpp) common/result.cpp common/file_io.cpp
  tests/fuzz/trace_reader_fuzz.cpp tests/fuzz/make_seeds.cpp tests/fuzz/trace_structure_fuzz.cpp"
# Line tables only (-g1): sanitizer reports keep file:line, the build takes
# about a quarter less time than with full debug information.
flags="-std=c++20 -O1 -g1 -I$root -Wall -Wextra -pthread"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

echo "fuzz: building in $build"
# Compile every source once, in parallel; the fuzzers and the seed generator
# link the same objects.
pids=""
for src in $sources; do
  obj="$build/obj/$(basename "$src" .cpp).o"
  # shellcheck disable=SC2086
  $cxx $flags $san -fsanitize=fuzzer-no-link -c "$root/$src" -o "$obj" &
  pids="$pids $!"
done
for pid in $pids; do wait "$pid"; done
lib_objs=""
for src in $sources; do
  case $src in tests/*) ;; *) lib_objs="$lib_objs $build/obj/$(basename "$src" .cpp).o" ;; esac
done
pids=""
for fuzzer in trace_reader_fuzz trace_structure_fuzz; do
  # shellcheck disable=SC2086
  $cxx $san -fsanitize=fuzzer "$build/obj/$fuzzer.o" $lib_objs -lzstd -o "$build/$fuzzer" &
  pids="$pids $!"
done
# shellcheck disable=SC2086
$cxx $san "$build/obj/make_seeds.o" $lib_objs -lzstd -o "$build/make_seeds"
for pid in $pids; do wait "$pid"; done
"$build/make_seeds" "$build/seeds"

# What each mode runs: libFuzzer's limit, empty for a mode left out.
cd "$build"
case $limit in
  runs:*)
    # Deterministic: a fixed seed, and no inputs kept from an earlier run.
    rm -rf corpus corpus-structure
    mkdir corpus corpus-structure
    bytes_limit="-runs=${limit#runs:} -seed=1"
    structure_limit=$bytes_limit
    ;;
  *)
    # The time is shared: half each when both run (libFuzzer reads 0 as no
    # limit: a second at least).
    share=$limit
    if [ "$mode" = both ]; then share=$((limit / 2)); fi
    if [ "$share" -lt 1 ]; then share=1; fi
    bytes_limit="-max_total_time=$share"
    structure_limit=$bytes_limit
    ;;
esac
if [ "$mode" = structure ]; then bytes_limit=""; fi
if [ "$mode" = bytes ]; then structure_limit=""; fi
if [ -n "$bytes_limit" ]; then
  echo "fuzz: bytes mode, $bytes_limit"
  # shellcheck disable=SC2086
  ./trace_reader_fuzz $bytes_limit -max_len=16384 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 corpus seeds
fi
if [ -n "$structure_limit" ]; then
  # A single allocation over 512 MiB is a finding too: the reader's budgets
  # are 2 to 256 MiB.
  echo "fuzz: structure mode, $structure_limit"
  # shellcheck disable=SC2086
  ./trace_structure_fuzz $structure_limit -max_len=4096 -len_control=0 -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 corpus-structure
fi
