#include "report/command_help.h"

#include "common/build_info.h"
#include "report/top/top_help.h"

namespace usdt::report {

std::string version_text() {
  return std::string("usdt-report ") + kVersion + " (git " + kGitRevision + ")\n";
}


namespace {

const char* const kSummaryUsage =
    "usage: usdt-report [summary] [OPTIONS] TRACE...\n\n"
    "What the trace holds: its time span (wall clock and duration), events per probe\n"
    "with their rate, events per process, lost events per CPU and per probe, and\n"
    "whether the file was cut short or had corrupted chunks. Counts are of the\n"
    "events actually read. Samples the recorder dropped itself are shown by cause.\n"
    "--follow reads a trace while usdt-record writes it (the chunks it flushed):\n"
    "on a terminal the summary of what it holds so far, every second; at the end\n"
    "of the recording the summary of the whole, as without --follow.\n";

const char* const kDumpUsage =
    "usage: usdt-report dump [--format text|jsonl|csv] [OPTIONS] TRACE...\n\n"
    "One line per event, in time order. text: process name, pid/tid, [cpu], seconds\n"
    "since the start, provider:name, arguments. jsonl: one JSON object per event,\n"
    "time_ns being the recorded CLOCK_MONOTONIC time. csv: with a header line.\n"
    "An argument that could not be recorded is null (in csv too), never 0. In csv\n"
    "an empty argN field means that the event's probe has no argument N.\n"
    "A string argument is quoted: text escapes \\\" \\\\ \\n and \\xNN (control bytes,\n"
    "invalid UTF-8) and adds ... after a string the recorder cut; jsonl gives a JSON\n"
    "string and \"truncated_args\":[N]; csv a quoted field and a truncated_args column.\n"
    "Arguments with a name (DWARF parameters, tracepoint fields) print as name=value\n"
    "in text; jsonl and csv stay positional.\n"
    "Call stacks (usdt-record -g): text prints the frames under each event (address,\n"
    "function+0xOFF, (object)), jsonl adds \"stack\":[{\"ip\",\"function\",\"object\"}],\n"
    "csv a stack column (frames joined by ';') when the trace holds their symbols.\n";

const char* const kLatencyUsage =
    "usage: usdt-report latency --start PROBE --end PROBE [--key tid|pid|argN]\n"
    "                           [--by pid|tid|argN] [--hist log2|linear]\n"
    "                           [--linear MIN,MAX,STEP] [--top N] [--slowest N]\n"
    "                           [OPTIONS] TRACE...\n"
    "       usdt-report latency --function SYMBOL [OPTIONS] TRACE...\n\n"
    "Durations from each start event to the end event of the same key (tid by\n"
    "default; argN pairs on an argument such as a request id, also across\n"
    "threads). Nested starts on one key pair like a stack. Prints count, min, mean,\n"
    "p50, p90, p99, p99.9, max (percentiles within 0.39%) and a histogram;\n"
    "unmatched starts and ends are counted.\n\n"
    "Function latency: --function work (= --start uprobe:work --end uretprobe:work)\n"
    "pairs each return with the innermost open entry on its thread, so recursion\n"
    "pairs correctly. A return without an earlier entry (the call began before the\n"
    "recording) is an unmatched end; an entry whose return never came (longjmp, an\n"
    "exception unwinding through the function, thread exit, end of recording) is an\n"
    "unmatched start. Function probes carry the stack pointer of each hit, so a\n"
    "return pairs with its own entry even after a longjmp or an exception: open\n"
    "entries deeper on the stack were abandoned and count as unmatched starts.\n"
    "(Traces of function probes made before format 1.2 have no stack pointers:\n"
    "there a return pairs with the innermost open entry.)\n\n"
    "--by 'sql(argN)' groups a string argument by its SQL statement's shape, as\n"
    "pg_stat_statements shows it (constants and IN lists become $1, $2, ...; words\n"
    "lower-cased; whitespace folded); 'digits(argN)' folds the numbers of any string.\n"
    "Long labels are shortened in the middle, never to look alike; JSON has them whole.\n\n"
    "Where arguments have names (DWARF parameters, tracepoint fields), --key and\n"
    "--by also take a name, looked up in each probe (the words tid and pid mean\n"
    "the thread and process, whatever the arguments are called).\n\n"
    "--follow reads a trace while usdt-record writes it: on a terminal the report\n"
    "of what it holds so far, every second; at the end of the recording the\n"
    "report of the whole, as without --follow.\n";

const char* const kHistUsage =
    "usage: usdt-report hist --probe PROBE --arg N [--linear MIN,MAX,STEP]\n"
    "                        [--by pid|tid|argN] [OPTIONS] TRACE...\n\n"
    "The distribution of argument N (from 0; argN or the argument's name work too)\n"
    "of a probe: count, missing (events without that argument), min, mean, max,\n"
    "and a log2 (default) or linear histogram.\n";

const char* const kExportUsage =
    "usage: usdt-report export --format chrome -o FILE [--start PROBE --end PROBE]\n"
    "                          [--function SYMBOL]\n"
    "                          [--key tid|pid|argN] [OPTIONS] TRACE...\n"
    "       usdt-report export --format clickhouse-events -o FILE [OPTIONS] TRACE...\n"
    "       usdt-report export --format clickhouse-pairs --start PROBE --end PROBE\n"
    "                          [--key tid|pid|argN] -o FILE [OPTIONS] TRACE...\n"
    "       usdt-report export --schema\n\n"
    "chrome: a Chrome trace-event JSON file for Perfetto (ui.perfetto.dev) or\n"
    "chrome://tracing: start/end pairs as slices, other events as instants,\n"
    "process and thread names as metadata. Pairs on tid or pid nest on their\n"
    "thread: complete slices (ph X). Pairs on argN may overlap on a thread without\n"
    "nesting: async slices (ph b/e, id = the key's value in hex).\n\n"
    "clickhouse-events, clickhouse-pairs: rows in ClickHouse's TabSeparated text\n"
    "for the tables usdt_events (every selected event: host, wall-clock time_ns,\n"
    "pid, tid, cpu, comm, probe, argument names and values; a missing argument is\n"
    "NULL) and usdt_pairs (each start/end pair: host, start_time_ns, duration_ns,\n"
    "key, the start's arguments). --schema prints their CREATE TABLE statements.\n"
    "Host and time come from each event's own file. Load with\n"
    "  clickhouse-client --multiquery < schema.sql\n"
    "  clickhouse-client --query 'INSERT INTO usdt_events FORMAT TabSeparated' < FILE\n"
    "The layout uses only what ClickHouse 18.16 (Debian 12) and current releases\n"
    "both have; docs/clickhouse.md describes it, with example queries.\n";

const char* const kStacksUsage =
    "usage: usdt-report stacks [--probe PATTERN] [--folded] [--format text|json]\n"
    "                          [OPTIONS] TRACE...\n\n"
    "The call stacks of the selected events (a trace recorded with usdt-record -g),\n"
    "aggregated by probe and function names, hottest first: count, percent of the\n"
    "events with a stack, and the frames innermost first. Frames are named from\n"
    "the symbols the trace carries, never from the traced binaries: C++ names\n"
    "demangled, object+0xOFFSET without a symbol, [unknown] outside any mapping.\n"
    "--folded prints 'probe;outermost;...;innermost COUNT' lines for\n"
    "flamegraph.pl, speedscope or Perfetto; a stack the recorder cut short has\n"
    "[truncated] below the probe. ';' in names becomes ':'.\n"
    "A trace without stacks is an error (exit 1).\n";

const char* const kFlamegraphUsage =
    "usage: usdt-report flamegraph [--probe PATTERN] [--reverse] [--title TEXT]\n"
    "                              [-o FILE] [OPTIONS] TRACE...\n"
    "       usdt-report flamegraph --diff [--probe PATTERN] [-o FILE] BEFORE AFTER\n\n"
    "The call stacks of the selected events (usdt-record -g) as an interactive flame\n"
    "graph in one SVG file (standard output without -o), from the same stacks as\n"
    "'stacks --folded'. Open it in a browser: hover a frame for its name, object,\n"
    "events and share; click to zoom; Search highlights frames matching a regular\n"
    "expression. The probe is the root of its stacks; colors say where the code is:\n"
    "the program (red), libc (yellow), other libraries (aqua), the kernel (orange).\n"
    "--reverse draws an icicle of the callers: stacks from the innermost frame.\n"
    "--diff draws AFTER's stacks colored by the change of each frame's share of\n"
    "the events since BEFORE (red grew, blue shrank), so that traces of different\n"
    "lengths compare. Frames narrower than 0.1 px are not drawn; the graph says\n"
    "how many.\n";

const char* const kHeatmapUsage =
    "usage: usdt-report heatmap --start PROBE --end PROBE [--key KEY] [--by KEY]\n"
    "                           [--title TEXT] [-o FILE] [OPTIONS] TRACE...\n"
    "       usdt-report heatmap --probe PROBE --arg N [-o FILE] [OPTIONS] TRACE...\n\n"
    "A latency heat map in one SVG file (standard output without -o): time since\n"
    "the start of the recording on x (at each pair's end event), latency on y in\n"
    "log buckets (4 per power of two), each cell colored by its pairs, with the\n"
    "p50, p90 and p99 of each column drawn as lines. Rows run from the fastest to\n"
    "the slowest pair: nothing is clipped. --by draws one panel per group (the 8\n"
    "busiest; the others are counted under them). --probe P --arg N draws the\n"
    "argument's value over time instead.\n";

const char* const kHtmlUsage =
    "usage: usdt-report html [--start PROBE --end PROBE [--key KEY] [--by KEY]]\n"
    "                        [--slowest N] [--title TEXT] [-o FILE] [OPTIONS] TRACE...\n\n"
    "One HTML file to open offline in any browser or to mail (standard output\n"
    "without -o): the recording's metadata (hosts, commands, kernels, versions),\n"
    "the summary (probes and rates, lost and dropped events by cause, processes),\n"
    "with --start/--end the latency per pair and per group with histograms, a heat\n"
    "map and the slowest pairs with their stacks (10 unless --slowest N), and a\n"
    "flame graph of each probe with stacks. Tables sort by a click on a heading;\n"
    "long tables page. The numbers are those of summary and latency --format json,\n"
    "which the file embeds; it loads nothing.\n";

}  // namespace

const char* command_usage(Command c) {
  switch (c) {
    case Command::summary: return kSummaryUsage;
    case Command::dump: return kDumpUsage;
    case Command::latency: return kLatencyUsage;
    case Command::hist: return kHistUsage;
    case Command::export_trace: return kExportUsage;
    case Command::stacks: return kStacksUsage;
    case Command::flamegraph: return kFlamegraphUsage;
    case Command::heatmap: return kHeatmapUsage;
    case Command::html: return kHtmlUsage;
    case Command::top: return top_usage();
  }
  return "";
}

const char* const kMainUsage =
    "usage: usdt-report [COMMAND] [OPTIONS] TRACE...\n\n"
    "Analyses trace files written by usdt-record (TRACE defaults to usdt.trace).\n\n"
    "commands:\n"
    "  summary   events per probe and per process, lost events, time span (default)\n"
    "  dump      one line per event, in time order (text, jsonl, csv)\n"
    "  latency   durations between a start and an end probe, with percentiles\n"
    "  hist      distribution of one probe argument\n"
    "  export    Chrome/Perfetto trace JSON, or rows for ClickHouse\n"
    "  stacks    call stacks of the events (usdt-record -g), hottest first, or folded\n"
    "  flamegraph  an interactive flame graph of the stacks (SVG)\n"
    "  heatmap   a latency heat map: time, latency and count (SVG)\n"
    "  html      one HTML file with the summary, latency, heat map and flame graphs\n"
    "  top       live view of a recording in progress: events per second per probe,\n"
    "            pairs per second with p50/p99/max (--once: one screen)\n\n"
    "'usdt-report COMMAND --help' explains a command and its options.\n\n"
    "A first word that is not a command is a TRACE when it is an existing file or\n"
    "contains '/' or '.'; otherwise it is an unknown command.\n"
    "Several TRACEs merge in time order; recordings of different hosts are aligned\n"
    "by their wall clocks and each event is labelled with its host. The same\n"
    "recording given twice (one file under two names, or a copy: same host,\n"
    "command line and start times) is counted once, with a warning naming both.\n"
    "-j N reads on N threads (default: every CPU), each taking a part of the\n"
    "trace's time; the output is the same. --max-memory SIZE bounds what each\n"
    "reader of a trace holds (default 256M): what does not fit is left out with a\n"
    "warning.\n\n"
    "exit status: 0 done; 1 failure (no trace could be read, an unknown probe, a\n"
    "write error); 2 misuse (unknown command or option, bad option value).\n";

}  // namespace usdt::report
