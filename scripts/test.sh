#!/usr/bin/env bash
# Builds everything and runs every test: unit, golden, integration (real
# recordings through perf_event_open: root; skipped with a reason elsewhere,
# but under CI=true they must run), a bounded fuzz run of the trace reader,
# then the parsers' and codecs' hostile-input tests again under ASan+UBSan,
# and last the Debian package: built, installed, used and removed (root).
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's wall time on stderr: CI has a time budget, and this says where
# it goes.
step_start=$SECONDS
step_done() {
  echo "test.sh: $1 took $((SECONDS - step_start)) s (total $SECONDS s)" >&2
  step_start=$SECONDS
}

bash scripts/install-deps.sh
bash scripts/install-browser-deps.sh
step_done "install-deps"
jobs=$(nproc)

cmake -S . -B build -DUSDT_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
step_done "the build"
ctest --test-dir build --output-on-failure -j"$jobs"
step_done "the tests"

# Sanitizer pass: the code that reads untrusted bytes (ELF notes, arg specs,
# perf samples, trace files) and the reports built on it.
sanitized_tests=(arg_spec_test x86_64_test aarch64_test usdt_probe_test probe_spec_test proc_maps_test
  byte_cursor_test
  library_finder_test
  zstd_codec_test chunk_codec_test trace_reader_test trace_reader_damage_test trace_added_sites_test
  completeness_test trace_reader_compat_v1_6_test trace_follower_test trace_reader_compat_v1_8_test
  report_live_tests table_codec_test trace_stacks_test trace_reader_compat_test parallel_read_test
  hostile_trace_test ring_buffer_test
  sample_decoder_test bpf_record_decoder_test tracepoint_format_test tracepoint_sites_test
  report_unit_tests clickhouse_unit_tests report_parallel_test drainer_test record_support_test
  writer_thread_test report_visual_tests)
# Built without optimisation and with line tables only (-g1): the compile
# is most of this step's time, and -O0 roughly halves it against -O1 while
# the tests' run stays short; the reports keep file:line, assert()s stay on
# (no NDEBUG), and nothing is inlined away from the checks. The step's time
# is in bench/results/ci-time.md.
cmake -S . -B build-asan -DUSDT_SANITIZE=ON -DUSDT_WERROR=ON -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DCMAKE_C_FLAGS_DEBUG="-O0 -g1" >/dev/null
cmake --build build-asan -j"$jobs" --target "${sanitized_tests[@]}"
# (with the entries of their hidden cases, NAME_TAG: tests/tag_tests.cmake)
regex="^($(IFS='|'; echo "${sanitized_tests[*]}"))(_[a-z0-9_]+)?\$"
ctest --test-dir build-asan --output-on-failure -j"$jobs" -R "$regex"
step_done "the sanitizer pass"

# The Debian package of the build above, installed and exercised, then removed.
bash scripts/package-test.sh
step_done "the package test"
