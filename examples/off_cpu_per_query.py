#!/usr/bin/env python3
# Off-CPU time of each PostgreSQL query, from a recording of
#   usdt-record -a -e tracepoint:sched:sched_switch \
#       -e usdt:/usr/lib/postgresql/15/bin/postgres:postgresql:query__start \
#       -e usdt:/usr/lib/postgresql/15/bin/postgres:postgresql:query__done \
#       --string 'postgresql:query__start=arg0' -o pg.trace
# read as: usdt-report dump --format jsonl pg.trace | python3 off_cpu_per_query.py
#
# A backend leaves the CPU at a sched_switch whose prev_pid is its tid, and
# comes back at the one whose next_pid is: that one runs in the context of the
# task leaving the CPU, which is why the recording is system-wide (-a). A
# prev_state of 0 means the backend was preempted while runnable (waiting for a
# CPU); anything else, that it slept (I/O, a lock, pg_sleep).
import json
import sys

# sched_switch arguments: prev_comm prev_pid prev_prio prev_state next_comm next_pid next_prio
PREV_PID, PREV_STATE, NEXT_PID = 1, 3, 5

left = {}     # tid -> (time it left the CPU, prev_state)
queries = {}  # tid -> [query text, start time, ns waiting for a CPU, ns sleeping]
for line in sys.stdin:
    e = json.loads(line)
    t, tid, args = e["time_ns"], e["tid"], e["args"]
    if e["name"] == "sched_switch":
        left[args[PREV_PID]] = (t, args[PREV_STATE])
        back = left.pop(args[NEXT_PID], None)
        if back is not None and args[NEXT_PID] in queries:
            queries[args[NEXT_PID]][2 if back[1] == 0 else 3] += t - back[0]
    elif e["name"] == "query__start":
        left.pop(tid, None)
        queries[tid] = [args[0], t, 0, 0]
    elif e["name"] == "query__done" and tid in queries:
        text, start, waiting, sleeping = queries.pop(tid)
        print(f"pid {tid}: {(t - start) / 1e6:.1f} ms, off the CPU {(waiting + sleeping) / 1e6:.1f} ms"
              f" (waiting for a CPU {waiting / 1e6:.1f}, sleeping {sleeping / 1e6:.1f}): {text}")
