#!/bin/sh
# Runs one root-only integration case: run_integration.sh TEST_EXE "CASE NAME".
# Without root or without the kernel's uprobe PMU the case is skipped (exit
# 77, CTest SKIP_RETURN_CODE), except under CI=true, where it must run and a
# missing capability is a failure.
exe="$1"
shift
reason=""
if [ "$(id -u)" != "0" ]; then
  reason="not root (uprobe perf events need root or CAP_SYS_ADMIN; see docs/guide.md, Permissions)"
elif [ ! -r /sys/bus/event_source/devices/uprobe/type ]; then
  reason="the kernel has no uprobe PMU"
fi
if [ -n "$reason" ]; then
  if [ "$CI" = "true" ]; then
    echo "integration test cannot run: $reason (CI=true requires it)" >&2
    exit 1
  fi
  echo "skipped: $reason" >&2
  exit 77
fi
# The case's traces and copies go to a directory of its own (temp_trace()
# honours TMPDIR), removed when the case passes and kept for a look when it
# fails: a suite run used to leave some 40 traces in /tmp.
work=$(mktemp -d "${TMPDIR:-/tmp}/usdt_itest.XXXXXX") || exit 1
TMPDIR="$work" "$exe" "$@"
status=$?
if [ "$status" -eq 0 ]; then
  rm -rf --one-file-system "$work"
else
  echo "integration: the failed case's files are kept in $work" >&2
fi
exit "$status"
