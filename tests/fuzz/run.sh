#!/bin/sh
# Builds the trace reader fuzzer with clang (libFuzzer + ASan + UBSan) in a
# build directory of its own, writes a seed corpus of small valid traces, and
# fuzzes for SECONDS (default 30). Exits non-zero when the fuzzer finds a
# crash, a sanitizer report or a broken reader promise; the reproducer is left
# in the build directory (crash-*), replay it with:
#   BUILD/trace_reader_fuzz BUILD/crash-...
# usage: tests/fuzz/run.sh [SECONDS]   (env: BUILD_DIR, CXX_FUZZ)
set -eu
seconds=${1:-30}
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
mkdir -p "$build/obj" "$build/corpus" "$build/seeds"

sources="formats/chunk_builder.cpp formats/chunk_builder_columns.cpp
  formats/chunk_decoder.cpp formats/chunk_decoder_events.cpp formats/chunk_decoder_rows.cpp
  formats/file_layout.cpp formats/table_codec.cpp
  formats/chunk_loader.cpp formats/chunk_locator.cpp formats/chunk_locator_scan.cpp formats/chunk_merger.cpp formats/chunk_prefetcher.cpp
  formats/read_budget.cpp formats/reader_state.cpp formats/footer_codec.cpp formats/record_filter.cpp
  formats/trace_reader.cpp formats/trace_writer.cpp formats/zstd_codec.cpp
  common/result.cpp common/file_io.cpp tests/fuzz/trace_reader_fuzz.cpp tests/fuzz/make_seeds.cpp"
flags="-std=c++20 -O1 -g -I$root -Wall -Wextra -pthread"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

echo "fuzz: building in $build"
# Compile every source once, in parallel; the fuzzer and the seed generator
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
# shellcheck disable=SC2086
$cxx $san -fsanitize=fuzzer "$build/obj/trace_reader_fuzz.o" $lib_objs -lzstd \
  -o "$build/trace_reader_fuzz"
# shellcheck disable=SC2086
$cxx $san "$build/obj/make_seeds.o" $lib_objs -lzstd -o "$build/make_seeds"
"$build/make_seeds" "$build/seeds"

echo "fuzz: running for ${seconds}s"
cd "$build"
./trace_reader_fuzz -max_total_time="$seconds" -max_len=16384 -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 corpus seeds
