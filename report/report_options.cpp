#include "report/report_options.h"

#include <boost/program_options.hpp>
#include <charconv>
#include <filesystem>
#include <sstream>

#include "common/build_info.h"
#include "formats/arg_name.h"
#include "report/export/clickhouse_export.h"
#include "report/stats/duration.h"
#include "report/input/wildcard.h"

namespace po = boost::program_options;

namespace usdt::report {

const char* command_name(Command command) {
  switch (command) {
    case Command::summary: return "summary";
    case Command::dump: return "dump";
    case Command::latency: return "latency";
    case Command::hist: return "hist";
    case Command::export_trace: return "export";
    case Command::stacks: return "stacks";
  }
  return "?";
}

int ArgRef::at(const SiteInfo* site) const {
  if (name.empty()) return index;
  return site != nullptr ? site->arg_named(name) : -1;
}

std::string ArgRef::text() const { return name.empty() ? "arg" + std::to_string(index) : name; }

Result<ArgRef> parse_arg_ref(const std::string& text, const char* option, bool numbers_too) {
  ArgRef a;
  std::string_view digits(text);
  if (text.size() > 3 && text.compare(0, 3, "arg") == 0) digits.remove_prefix(3);
  const bool positional = digits.size() != text.size() || numbers_too;
  if (positional && !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos) {
    int n = -1;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc() && ptr == digits.data() + digits.size() && n >= 0 && n < format::kMaxArgs) {
      a.index = n;
      return a;
    }
    return Error(std::string("invalid ") + option + " '" + text +
                 "': probes have at most 12 arguments (arg0 to arg11)");
  }
  if (format::is_valid_arg_name(text, 0)) {
    a.name = text;
    return a;
  }
  return Error(std::string("invalid ") + option + " '" + text +
               "': expected argN (N from 0 to 11) or an argument's name");
}

std::string KeySpec::text() const {
  switch (kind) {
    case Kind::tid: return "tid";
    case Kind::pid: return "pid";
    case Kind::arg: return arg.text();
    case Kind::host: return "host";
  }
  return "?";
}

Result<KeySpec> parse_key_spec(const std::string& text, const char* option) {
  KeySpec k;
  if (text == "tid") return k;
  if (text == "pid") {
    k.kind = KeySpec::Kind::pid;
    return k;
  }
  Result<ArgRef> arg = parse_arg_ref(text, option, false);
  if (!arg) {
    return Error(std::string("invalid ") + option + " '" + text +
                 "': expected tid, pid, argN (N from 0 to 11) or an argument's name");
  }
  k.kind = KeySpec::Kind::arg;
  k.arg = *arg;
  return k;
}

namespace {

constexpr const char* kCommands[] = {"summary", "dump", "latency", "hist", "export", "stacks"};

std::string version_text() {
  return std::string("usdt-report ") + kVersion + " (git " + kGitRevision + ")\n";
}

std::optional<Command> command_of(const std::string& word) {
  if (word == "summary") return Command::summary;
  if (word == "dump") return Command::dump;
  if (word == "latency") return Command::latency;
  if (word == "hist") return Command::hist;
  if (word == "export") return Command::export_trace;
  if (word == "stacks") return Command::stacks;
  return std::nullopt;
}

const char* command_usage(Command c) {
  switch (c) {
    case Command::summary:
      return "usage: usdt-report [summary] [OPTIONS] TRACE...\n\n"
             "What the trace holds: its time span (wall clock and duration), events per probe\n"
             "with their rate, events per process, lost events per CPU and per probe, and\n"
             "whether the file was cut short or had corrupted chunks. Counts are of the\n"
             "events actually read. Samples the recorder dropped itself are shown by cause.\n";
    case Command::dump:
      return "usage: usdt-report dump [--format text|jsonl|csv] [OPTIONS] TRACE...\n\n"
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
    case Command::latency:
      return "usage: usdt-report latency --start PROBE --end PROBE [--key tid|pid|argN]\n"
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
             "Where arguments have names (DWARF parameters, tracepoint fields), --key and\n"
             "--by also take a name, looked up in each probe (the words tid and pid mean\n"
             "the thread and process, whatever the arguments are called).\n";
    case Command::hist:
      return "usage: usdt-report hist --probe PROBE --arg N [--linear MIN,MAX,STEP]\n"
             "                        [--by pid|tid|argN] [OPTIONS] TRACE...\n\n"
             "The distribution of argument N (from 0; argN or the argument's name work too)\n"
             "of a probe: count, missing (events without that argument), min, mean, max,\n"
             "and a log2 (default) or linear histogram.\n";
    case Command::export_trace:
      return "usage: usdt-report export --format chrome -o FILE [--start PROBE --end PROBE]\n"
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
    case Command::stacks:
      return "usage: usdt-report stacks [--probe PATTERN] [--folded] [--format text|json]\n"
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
  }
  return "";
}

const char* kMainUsage =
    "usage: usdt-report [COMMAND] [OPTIONS] TRACE...\n\n"
    "Analyses trace files written by usdt-record (TRACE defaults to usdt.trace).\n\n"
    "commands:\n"
    "  summary   events per probe and per process, lost events, time span (default)\n"
    "  dump      one line per event, in time order (text, jsonl, csv)\n"
    "  latency   durations between a start and an end probe, with percentiles\n"
    "  hist      distribution of one probe argument\n"
    "  export    Chrome/Perfetto trace JSON, or rows for ClickHouse\n"
    "  stacks    call stacks of the events (usdt-record -g), hottest first, or folded\n\n"
    "'usdt-report COMMAND --help' explains a command and its options.\n\n"
    "A first word that is not a command is a TRACE when it is an existing file or\n"
    "contains '/' or '.'; otherwise it is an unknown command.\n"
    "Several TRACEs merge in time order; recordings of different hosts are aligned\n"
    "by their wall clocks and each event is labelled with its host. The same\n"
    "recording given twice (one file under two names, or a copy: same host,\n"
    "command line and start times) is counted once, with a warning naming both.\n"
    "-j N reads on N threads (default: every CPU), each taking a part of the\n"
    "trace's time; the output is the same.\n\n"
    "exit status: 0 done; 1 failure (no trace could be read, an unknown probe, a\n"
    "write error); 2 misuse (unknown command or option, bad option value).\n";

// The first word is taken for a command when it is not an option, not an
// existing file, and does not look like a path (no '/' or '.'): so
// `usdt-report frobnicate x.trace` is a misuse, while `usdt-report
// gone.trace` still says that the file is missing.
bool is_unknown_command(const std::string& word) {
  if (word.empty() || word[0] == '-') return false;
  if (word.find_first_of("/.") != std::string::npos) return false;
  std::error_code ec;
  return !std::filesystem::exists(word, ec);
}

ParsedCommandLine usage_error(const std::string& message, const std::string& command) {
  ParsedCommandLine p;
  p.action = ParsedCommandLine::Action::print_and_exit;
  p.exit_code = 2;
  p.to_stderr = true;
  p.text = "usdt-report: error: " + message + "\nhint: see 'usdt-report " + (command.empty() ? "" : command + " ") +
           "--help'\n";
  return p;
}

Result<uint32_t> parse_u32(const std::string& text, const char* option) {
  uint32_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    return Error(std::string("invalid ") + option + " '" + text + "': expected a non-negative integer");
  }
  return v;
}

}  // namespace

ParsedCommandLine parse_command_line(int argc, const char* const* argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  ParsedCommandLine parsed;
  ReportOptions& o = parsed.options;
  std::string command_word;

  if (!args.empty()) {
    std::optional<Command> c = command_of(args[0]);
    if (c) {
      o.command = *c;
      command_word = args[0];
      args.erase(args.begin());
    } else if (args[0] == "--version") {
      parsed.action = ParsedCommandLine::Action::print_and_exit;
      parsed.text = version_text();
      return parsed;
    } else if (args[0] == "--help" || args[0] == "-h") {
      parsed.action = ParsedCommandLine::Action::print_and_exit;
      parsed.text = kMainUsage;
      return parsed;
    } else if (is_unknown_command(args[0])) {
      std::vector<std::string> names(std::begin(kCommands), std::end(kCommands));
      std::string guess = closest_match(args[0], names);
      std::string message = "unknown command '" + args[0] + "'";
      if (!guess.empty()) message += " (did you mean '" + guess + "'?)";
      message += "; the commands are summary, dump, latency, hist, export, stacks";
      return usage_error(message, "");
    }
  }
  if (o.command == Command::export_trace) o.format = "chrome";

  std::string format = o.format;
  std::vector<std::string> probes;
  std::string pid, tid, since, until, key = "tid", by, hist = "log2", linear, top, slowest, arg, function, jobs;
  po::options_description common("options");
  common.add_options()("help,h", "explain this command")("version", "print the version")(
      "probe", po::value(&probes)->composing()->value_name("PATTERN"),
      "only events of probes matching PATTERN (provider:name; * and ? wildcards; repeatable)")(
      "pid", po::value(&pid)->value_name("PID"), "only events of this process")(
      "tid", po::value(&tid)->value_name("TID"), "only events of this thread")(
      "since", po::value(&since)->value_name("TIME"),
      "only events from this time after the start (1.5s, 200ms, 10us, 500ns)")(
      "until", po::value(&until)->value_name("TIME"),
      "only events up to this time after the start")(
      "jobs,j", po::value(&jobs)->value_name("N"),
      "read with N threads (default: every CPU), each taking a part of the trace's time; the "
      "output is the same. A trace of too few chunks is read in one thread, which N threads "
      "decode ahead of (see the README)");
  po::options_description specific(std::string(command_name(o.command)) + " options");
  switch (o.command) {
    case Command::summary:
      specific.add_options()
          ("format", po::value(&format)->value_name("FORMAT"), "text (default) or json")
          ("by", po::value(&by)->value_name("host"), "also count the events of each probe per host");
      break;
    case Command::dump:
      specific.add_options()("format", po::value(&format)->value_name("FORMAT"), "text (default), jsonl or csv");
      break;
    case Command::latency:
    case Command::export_trace:
      specific.add_options()
          ("format", po::value(&format)->value_name("FORMAT"),
           o.command == Command::latency ? "text (default) or json"
                                         : "chrome (default), clickhouse-events or clickhouse-pairs")
          ("start", po::value(&o.start)->value_name("PROBE"), "the probe that starts an interval")
          ("end", po::value(&o.end)->value_name("PROBE"), "the probe that ends it")
          ("function", po::value(&function)->value_name("SYMBOL"),
           "a function's own latency: --start uprobe:SYMBOL --end uretprobe:SYMBOL")
          ("key", po::value(&key)->value_name("KEY"), "pair starts and ends on tid (default), pid, argN or an argument's name");
      if (o.command == Command::export_trace) {
        specific.add_options()
            ("output,o", po::value(&o.output)->value_name("FILE"), "the file to write")
            ("schema", "print the ClickHouse CREATE TABLE statements and exit");
      } else {
        specific.add_options()
            ("by", po::value(&by)->value_name("KEY"), "one table per pid, tid, host, argN or argument name (of the start event, else of the end event)")
            ("hist", po::value(&hist)->value_name("KIND"), "log2 (default) or linear (needs --linear)")
            ("linear", po::value(&linear)->value_name("MIN,MAX,STEP"), "linear buckets MIN,MAX,STEP in ns")
            ("top", po::value(&top)->value_name("N"), "list the N slowest pairs")
            ("slowest", po::value(&slowest)->value_name("N"),
             "the N slowest pairs with the call stacks of their start (and end) events");
      }
      break;
    case Command::hist:
      specific.add_options()
          ("format", po::value(&format)->value_name("FORMAT"), "text (default) or json")
          ("arg", po::value(&arg)->value_name("N"), "the argument: N (from 0), argN or its name")
          ("linear", po::value(&linear)->value_name("MIN,MAX,STEP"), "linear buckets MIN,MAX,STEP")
          ("by", po::value(&by)->value_name("KEY"), "one histogram per pid, tid, argN or argument name (a number or a string)");
      break;
    case Command::stacks:
      specific.add_options()
          ("format", po::value(&format)->value_name("FORMAT"), "text (default) or json")
          ("folded", "folded lines for flame graphs: probe;outermost;...;innermost COUNT");
      break;
  }
  po::options_description hidden;
  hidden.add_options()("trace", po::value(&o.traces)->composing());
  po::positional_options_description positional;
  positional.add("trace", -1);
  po::options_description all;
  all.add(specific).add(common).add(hidden);

  po::variables_map vm;
  try {
    std::vector<const char*> rest;
    rest.push_back(argv[0]);
    for (const std::string& a : args) rest.push_back(a.c_str());
    po::store(po::command_line_parser(static_cast<int>(rest.size()), rest.data())
                  .options(all)
                  .positional(positional)
                  .run(),
              vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error(e.what(), command_word);
  }

  if (vm.count("help")) {
    std::ostringstream text;
    text << command_usage(o.command) << "\n" << specific << "\n" << common;
    if (command_word.empty()) text << "\n" << kMainUsage;
    parsed.action = ParsedCommandLine::Action::print_and_exit;
    parsed.text = text.str();
    return parsed;
  }
  if (vm.count("version")) {
    parsed.action = ParsedCommandLine::Action::print_and_exit;
    parsed.text = version_text();
    return parsed;
  }
  if (vm.count("schema")) {  // needs no trace
    parsed.action = ParsedCommandLine::Action::print_and_exit;
    parsed.text = clickhouse_schema();
    return parsed;
  }

  o.format = format;
  const char* formats = "";
  switch (o.command) {
    case Command::summary:
    case Command::latency:
    case Command::hist:
    case Command::stacks: formats = "text json"; break;
    case Command::dump: formats = "text jsonl csv"; break;
    case Command::export_trace: formats = "chrome clickhouse-events clickhouse-pairs"; break;
  }
  {
    std::istringstream known(formats);
    std::string word;
    bool ok = false;
    while (known >> word) ok = ok || word == format;
    if (!ok) {
      return usage_error(std::string(command_name(o.command)) + " cannot write format '" + format + "' (" +
                             formats + ")",
                         command_word);
    }
  }
  o.filter.probes = probes;
  auto fail = [&](const Error& e) { return usage_error(e.message(), command_word); };
  if (!pid.empty()) {
    Result<uint32_t> v = parse_u32(pid, "--pid");
    if (!v) return fail(v.error());
    o.filter.pid = *v;
  }
  if (!tid.empty()) {
    Result<uint32_t> v = parse_u32(tid, "--tid");
    if (!v) return fail(v.error());
    o.filter.tid = *v;
  }
  if (!jobs.empty()) {
    Result<uint32_t> v = parse_u32(jobs, "-j");
    if (!v) return fail(v.error());
    if (*v == 0 || *v > kMaxJobs) {
      return usage_error("invalid -j '" + jobs + "': expected 1.." + std::to_string(kMaxJobs), command_word);
    }
    o.jobs = *v;
  }
  if (vm.count("since")) {
    Result<uint64_t> v = parse_duration(since);
    if (!v) return fail(v.error().context("--since"));
    o.filter.since_ns = *v;
  }
  if (vm.count("until")) {
    Result<uint64_t> v = parse_duration(until);
    if (!v) return fail(v.error().context("--until"));
    o.filter.until_ns = *v;
  }
  if (o.filter.since_ns && o.filter.until_ns && *o.filter.since_ns > *o.filter.until_ns) {
    return usage_error("--since is after --until", command_word);
  }
  {
    Result<KeySpec> k = parse_key_spec(key, "--key");
    if (!k) return fail(k.error());
    o.key = *k;
  }
  if (!by.empty()) {
    // host groups by the recording machine (the file's metadata): no
    // pairing key, and the only grouping summary has.
    if (by == "host") {
      o.by = KeySpec{KeySpec::Kind::host, ArgRef{}};
    } else if (o.command == Command::summary) {
      return usage_error("invalid --by '" + by + "': summary groups by host only", command_word);
    } else {
      Result<KeySpec> k = parse_key_spec(by, "--by");
      if (!k) return fail(k.error());
      o.by = *k;
    }
  }
  if (hist != "log2" && hist != "linear") return usage_error("invalid --hist '" + hist + "': log2 or linear", command_word);
  o.linear_hist = hist == "linear";
  if (!linear.empty()) {
    Result<LinearSpec> l = parse_linear_spec(linear);
    if (!l) return fail(l.error());
    o.linear = *l;
    o.linear_hist = true;
  }
  if (o.linear_hist && !o.linear) return usage_error("--hist linear needs --linear MIN,MAX,STEP", command_word);
  if (!top.empty()) {
    Result<uint32_t> v = parse_u32(top, "--top");
    if (!v) return fail(v.error());
    o.top = std::min<uint32_t>(*v, 100000);
  }
  if (!slowest.empty()) {
    Result<uint32_t> v = parse_u32(slowest, "--slowest");
    if (!v) return fail(v.error());
    o.slowest = std::min<uint32_t>(*v, 100000);
  }
  o.folded = vm.count("folded") > 0;
  if (o.folded && format != "text") return usage_error("--folded is a format of its own: leave out --format", command_word);
  if (!arg.empty()) {
    Result<ArgRef> a = parse_arg_ref(arg, "--arg", true);
    if (!a) return usage_error(a.error().message(), command_word);
    o.arg = *a;
  }
  if (!function.empty()) {
    if (!o.start.empty() || !o.end.empty())
      return usage_error("--function SYMBOL stands for --start and --end: give one or the other", command_word);
    o.start = "uprobe:" + function;
    o.end = "uretprobe:" + function;
  }
  if (o.command == Command::latency && (o.start.empty() || o.end.empty())) {
    return usage_error("latency needs --start PROBE and --end PROBE", command_word);
  }
  if (o.command == Command::export_trace && (o.start.empty() != o.end.empty())) {
    return usage_error("export needs both --start and --end, or neither", command_word);
  }
  if (o.command == Command::export_trace && format == "clickhouse-pairs" && o.start.empty()) {
    return usage_error("--format clickhouse-pairs needs --start PROBE and --end PROBE", command_word);
  }
  if (o.command == Command::export_trace && format == "clickhouse-events" && !o.start.empty()) {
    return usage_error("--format clickhouse-events writes every event; --start/--end are for clickhouse-pairs",
                       command_word);
  }
  if (o.command == Command::hist && (probes.empty() || !o.arg)) {
    return usage_error("hist needs --probe PROBE and --arg N", command_word);
  }
  if (o.command == Command::export_trace && o.output.empty()) {
    return usage_error("export needs -o FILE", command_word);
  }
  // Like perf report with perf.data: the recorder's default output file.
  if (o.traces.empty()) o.traces.push_back("usdt.trace");
  return parsed;
}

}  // namespace usdt::report
