#!/usr/bin/env bash
# The exit statuses of both tools, as docs/guide.md ("Exit statuses") and the
# man pages document them: 0 success, 1 failure, 2 misuse, each with its one
# error line (and the closest name for a misspelling). Needs no root: the
# recordings' statuses (a probe that matches nothing: 1; the command's own
# status) are checked by the integration tests.
#   exit_statuses_test.sh USDT_RECORD USDT_REPORT TRACE_DIR FIXTURE_LIB
set -uo pipefail
record=$1 report=$2 traces=$3 fixture=$4
failures=0

# expect STATUS PATTERN COMMAND...: the status, and PATTERN (grep -E) in stderr.
expect() {
  local want=$1 pattern=$2
  shift 2
  local err status
  err=$("$@" 2>&1 >/dev/null)
  status=$?
  if [ "$status" -ne "$want" ]; then
    echo "error: '$*' exited $status, expected $want; stderr: $err" >&2
    failures=$((failures + 1))
  elif [ -n "$pattern" ] && ! grep -qE -- "$pattern" <<<"$err"; then
    echo "error: '$*': stderr does not match '$pattern': $err" >&2
    failures=$((failures + 1))
  fi
}

# usdt-record
expect 0 '' "$record" --help
expect 0 '' "$record" --version
expect 0 '' "$record" -l "$fixture"
expect 1 "^usdt-record: error: cannot open '/nonexistent/file'" "$record" -l /nonexistent/file
expect 1 "^usdt-record: error: 'libdoesnotexist_usdt' is neither" "$record" -l libdoesnotexist_usdt
expect 2 "unrecognised option '--strng' \(did you mean '--string'\?\)" "$record" --strng x -e a:b -- true
expect 2 "unrecognised option '--allow-mising' \(did you mean '--allow-missing'\?\)" \
  "$record" --allow-mising -e a:b -- true
expect 2 "^usdt-record: error: invalid probe" "$record" -e 'usdt::x:y' -- true
expect 2 "^usdt-record: error: no probe given" "$record" -- true
expect 2 "^usdt-record: error: -a cannot be combined with -l" "$record" -l -a "$fixture"

# usdt-report
expect 0 '' "$report" summary "$traces/golden.trace"
expect 0 "is truncated at offset [0-9]+: events after \+[0-9.]+ s are incomplete" \
  "$report" summary "$traces/truncated.trace"
expect 1 "^usdt-report: error: " "$report" summary /nonexistent.trace
expect 1 "did you mean 'demo:req_start'" \
  "$report" latency --start demo:req_strat --end demo:req_done "$traces/golden.trace"
expect 1 "^usdt-report: error: " "$report" stacks "$traces/golden.trace"
expect 2 "unknown command 'summry' \(did you mean 'summary'\?\)" "$report" summry "$traces/golden.trace"
expect 2 "unrecognised option '--probee' \(did you mean '--probe'\?\)" \
  "$report" summary --probee x "$traces/golden.trace"
expect 2 "^usdt-report: error: " "$report" latency --start demo:req_start "$traces/golden.trace"

if [ "$failures" -ne 0 ]; then
  echo "$failures exit status(es) differ from the documented ones" >&2
  exit 1
fi
echo "usdt-record and usdt-report exit as documented"
