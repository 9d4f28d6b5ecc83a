#include "report/command_options.h"

#include <chrono>
#include <string>

#include "report/stats/duration.h"

namespace po = boost::program_options;

namespace usdt::report {



po::options_description common_options(RawOptions& raw) {
  po::options_description common("options");
  common.add_options()("help,h", "explain this command")("version", "print the version")(
      "probe", po::value(&raw.probes)->composing()->value_name("PATTERN"),
      "only events of probes matching PATTERN (provider:name; * and ? wildcards; repeatable)")(
      "pid", po::value(&raw.pid)->value_name("PID"), "only events of this process")(
      "tid", po::value(&raw.tid)->value_name("TID"), "only events of this thread")(
      "since", po::value(&raw.since)->value_name("TIME"),
      "only events from this time after the start (1.5s, 200ms, 10us, 500ns)")(
      "until", po::value(&raw.until)->value_name("TIME"),
      "only events up to this time after the start")(
      "jobs,j", po::value(&raw.jobs)->value_name("N"),
      "read with N threads (default: every CPU), each taking a part of the trace's time; the "
      "output is the same. A trace of too few chunks is read in one thread, which N threads "
      "decode ahead of only with -j N (docs/internals.md)")(
      "max-memory", po::value(&raw.max_memory)->value_name("SIZE"),
      "what each reader of a trace may hold of what it decodes (default 256M; K, M, G): a "
      "table or chunk beyond it is left out with a warning");
  return common;
}

// The options of latency and export: the pairing, and each one's own.
static void add_pairing_options(po::options_description& specific, Command c, RawOptions& raw,
                         ReportOptions& o) {
  specific.add_options()
      ("format", po::value(&raw.format)->value_name("FORMAT"),
       c == Command::latency ? "text (default) or json"
                             : "chrome (default), clickhouse-events or clickhouse-pairs")
      ("start", po::value(&o.start)->value_name("PROBE"), "the probe that starts an interval")
      ("end", po::value(&o.end)->value_name("PROBE"), "the probe that ends it")
      ("function", po::value(&raw.function)->value_name("SYMBOL"),
       "a function's own latency: --start uprobe:SYMBOL --end uretprobe:SYMBOL")
      ("key", po::value(&raw.key)->value_name("KEY"),
       c == Command::latency ? "pair starts and ends on tid (default), pid, argN, an argument's name, or sql(ARG)"
                             : "pair starts and ends on tid (default), pid, argN or an argument's name");
  if (c == Command::export_trace) {
    specific.add_options()
        ("output,o", po::value(&o.output)->value_name("FILE"), "the file to write")
        ("schema", "print the ClickHouse CREATE TABLE statements and exit");
    return;
  }
  specific.add_options()
      ("by", po::value(&raw.by)->value_name("KEY"), "one table per pid, tid, host, argN or argument name (of the start event, else of the end "
       "event); sql(ARG): per SQL statement shape, digits(ARG): with numbers folded")
      ("hist", po::value(&raw.hist)->value_name("KIND"), "log2 (default) or linear (needs --linear)")
      ("linear", po::value(&raw.linear)->value_name("MIN,MAX,STEP"), "linear buckets MIN,MAX,STEP in ns")
      ("top", po::value(&raw.top)->value_name("N"), "list the N slowest pairs")
      ("slowest", po::value(&raw.slowest)->value_name("N"),
       "the N slowest pairs with the call stacks of their start (and end) events")
      ("follow", "read the trace while it is written: the report of what it holds so far, "
       "every second on a terminal, until the recording ends (then the report of the whole)");
}

// top's own: several pairs, the screen's cadence, one screen.
static void add_top_options(po::options_description& specific, RawOptions& raw) {
  specific.add_options()
      ("format", po::value(&raw.format)->value_name("FORMAT"),
       "text (default: a screen for 80 columns) or json (one object per screen and line)")
      ("start", po::value(&raw.starts)->composing()->value_name("PROBE"),
       "a probe that starts an interval (repeatable; the Nth --start pairs with the Nth --end)")
      ("end", po::value(&raw.ends)->composing()->value_name("PROBE"), "the probe that ends it")
      ("key", po::value(&raw.key)->value_name("KEY"),
       "pair starts and ends on tid (default), pid, argN or an argument's name")
      ("interval", po::value(&raw.interval)->value_name("TIME"),
       "time between two screens (default 1s; 100ms to 1h)")
      ("once", "one screen of what the file holds now, then exit (for scripts)");
}

// The options of flamegraph, heatmap and html.
static void add_picture_options(po::options_description& specific, Command c, RawOptions& raw, ReportOptions& o) {
  const char* what = c == Command::html ? "the HTML file to write" : "the SVG file to write";
  specific.add_options()
      ("output,o", po::value(&o.output)->value_name("FILE"), (std::string(what) + " (default: standard output)").c_str())
      ("title", po::value(&o.title)->value_name("TEXT"), "the title shown above the picture");
  if (c == Command::flamegraph) {
    specific.add_options()
        ("reverse", "an icicle of the callers: stacks from the innermost frame, top down")
        ("diff", "the second TRACE against the first: red grew, blue shrank (two TRACEs)");
    return;
  }
  specific.add_options()
      ("start", po::value(&o.start)->value_name("PROBE"), "the probe that starts an interval")
      ("end", po::value(&o.end)->value_name("PROBE"), "the probe that ends it")
      ("function", po::value(&raw.function)->value_name("SYMBOL"),
       "a function's own latency: --start uprobe:SYMBOL --end uretprobe:SYMBOL")
      ("key", po::value(&raw.key)->value_name("KEY"), "pair starts and ends on tid (default), pid, argN or an argument's name")
      ("by", po::value(&raw.by)->value_name("KEY"),
       c == Command::heatmap ? "one heat map per pid, tid, host, argN, sql(argN) or digits(argN)"
                             : "latency per pid, tid, host, argN, sql(argN) or digits(argN)");
  if (c == Command::heatmap) {
    specific.add_options()("arg", po::value(&raw.arg)->value_name("N"), "instead of latency: argument N of --probe over time");
  } else {
    specific.add_options()("slowest", po::value(&raw.slowest)->value_name("N"), "the N slowest pairs with their stacks (default 10)");
  }
}

po::options_description command_options(Command c, RawOptions& raw, ReportOptions& o) {
  po::options_description specific(std::string(command_name(c)) + " options");
  switch (c) {
    case Command::summary:
      specific.add_options()
          ("format", po::value(&raw.format)->value_name("FORMAT"), "text (default) or json")
          ("by", po::value(&raw.by)->value_name("host"), "also count the events of each probe per host");
      break;
    case Command::dump:
      specific.add_options()("format", po::value(&raw.format)->value_name("FORMAT"), "text (default), jsonl or csv");
      break;
    case Command::latency:
    case Command::export_trace:
      add_pairing_options(specific, c, raw, o);
      break;
    case Command::hist:
      specific.add_options()
          ("format", po::value(&raw.format)->value_name("FORMAT"), "text (default) or json")
          ("arg", po::value(&raw.arg)->value_name("N"), "the argument: N (from 0), argN or its name")
          ("linear", po::value(&raw.linear)->value_name("MIN,MAX,STEP"), "linear buckets MIN,MAX,STEP")
          ("by", po::value(&raw.by)->value_name("KEY"), "one histogram per pid, tid, argN or argument name (a number or a string); sql(ARG), "
           "digits(ARG): per statement shape, with numbers folded");
      break;
    case Command::stacks:
      specific.add_options()
          ("format", po::value(&raw.format)->value_name("FORMAT"), "text (default) or json")
          ("folded", "folded lines for flame graphs: probe;outermost;...;innermost COUNT");
      break;
    case Command::flamegraph:
    case Command::heatmap:
    case Command::html:
      add_picture_options(specific, c, raw, o);
      break;
    case Command::top:
      add_top_options(specific, raw);
      break;
  }
  if (c == Command::summary) {
    specific.add_options()("follow",
                           "read the trace while it is written: the summary of what it holds so "
                           "far, every second on a terminal, until the recording ends (then the "
                           "summary of the whole)");
  }
  return specific;
}

// What flamegraph, heatmap and html need.
Status check_pictures(const RawOptions& raw, const po::variables_map& vm, ReportOptions& o) {
  o.reverse = vm.count("reverse") > 0;
  o.diff = vm.count("diff") > 0;
  if (o.diff && o.traces.size() != 2) return Error("--diff needs two TRACEs: before and after");
  if (o.command == Command::heatmap) {
    const bool latency = !o.start.empty() || !o.end.empty();
    if (o.arg && (latency || raw.probes.empty())) return Error("heatmap --arg N needs --probe PROBE, without --start/--end");
    if (!o.arg && (o.start.empty() || o.end.empty())) return Error("heatmap needs --start PROBE and --end PROBE, or --probe PROBE --arg N");
  }
  if (o.command == Command::html && o.start.empty() != o.end.empty()) return Error("html needs both --start and --end, or neither");
  if (o.command == Command::html && raw.slowest.empty()) o.slowest = 10;
  return Status::success();
}

Status check_live(const RawOptions& raw, const po::variables_map& vm, ReportOptions& o) {
  o.follow = o.command == Command::top || vm.count("follow") != 0;
  o.once = vm.count("once") != 0;
  if (o.command != Command::top) {
    if (o.follow && o.traces.size() > 1) {
      return Error("--follow reads one trace, not " + std::to_string(o.traces.size()));
    }
    // The symbols that name frames are written at the end of a recording.
    if (o.follow && o.slowest > 0) return Error("--slowest cannot be followed: read the finished trace");
    return Status::success();
  }
  if (raw.starts.size() != raw.ends.size()) {
    return Error("top pairs each --start with an --end: " + std::to_string(raw.starts.size()) +
                 " --start and " + std::to_string(raw.ends.size()) + " --end given");
  }
  for (size_t i = 0; i < raw.starts.size(); ++i) o.pairs.emplace_back(raw.starts[i], raw.ends[i]);
  if (!raw.interval.empty()) {
    Result<uint64_t> ns = parse_duration(raw.interval);
    if (!ns) return ns.error().context("--interval");
    if (*ns < 100'000'000 || *ns > 3'600'000'000'000) {
      return Error("--interval must be from 100ms to 1h, not '" + raw.interval + "'");
    }
    o.interval = std::chrono::milliseconds(*ns / 1'000'000);
  }
  if (o.traces.size() > 1) return Error("top reads one trace, not " + std::to_string(o.traces.size()));
  return Status::success();
}

}  // namespace usdt::report
