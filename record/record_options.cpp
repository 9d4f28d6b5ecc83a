#include "record/record_options.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string_view>

namespace usdt::record {
namespace po = boost::program_options;
namespace {

// Options that take a value as the next argument: needed to find where the
// traced COMMAND starts when it is not preceded by "--".
const std::set<std::string_view> kValueOptions = {
    "-e", "--event", "-o", "--output", "-p", "--pid", "--duration", "--buffer-pages", "--stack-bytes",
    "--string", "--string-bytes", "--max-functions", "--call-graph", "--flush-interval",
    "--hostname", "--mount-ns-of",
};

// "fp", "dwarf", "fp,..." or "dwarf,...": what may follow -g as its MODE.
bool is_call_graph_mode(std::string_view arg) {
  std::string_view mode = arg.substr(0, arg.find(','));
  return mode == "fp" || mode == "dwarf";
}

bool is_list_flag(std::string_view arg) {
  if (arg == "--list") return true;
  // -l alone or in a cluster of flags such as -lv (not "-e..." or "-o..." with a value).
  if (arg.size() < 2 || arg[0] != '-' || arg[1] == '-') return false;
  if (arg[1] == 'e' || arg[1] == 'o' || arg[1] == 'p') return false;
  return arg.find('l') != std::string_view::npos;
}

Result<std::vector<pid_t>> parse_pids(const std::vector<std::string>& values) {
  std::vector<pid_t> pids;
  for (const auto& value : values) {
    std::string_view rest = value;
    while (true) {
      size_t comma = rest.find(',');
      std::string_view item = rest.substr(0, comma);
      long pid = 0;
      auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), pid);
      if (item.empty() || ec != std::errc() || p != item.data() + item.size() || pid <= 0 ||
          pid > 0x7fffffff) {
        return Error("invalid PID '" + std::string(item) + "' in -p " + value);
      }
      pids.push_back(static_cast<pid_t>(pid));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return pids;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// "postgresql:query__start=arg0,arg2" -> the pattern and the argument mask;
// "uprobe:./server:work=query" -> the pattern and a parameter name.
Result<StringArgs> parse_string_args(const std::string& value) {
  size_t eq = value.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
    return Error("--string needs PROBE=ARG[,ARG...] (argN or a parameter's name), not '" + value + "'");
  }
  StringArgs out;
  Result<ProbeSpec> probe = ProbeSpec::parse(std::string_view(value).substr(0, eq));
  if (!probe) return probe.error().context("--string");
  out.probe = std::move(*probe);
  std::string_view rest = std::string_view(value).substr(eq + 1);
  while (true) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    unsigned n = 0;
    const bool numbered = item.size() > 3 && item.substr(0, 3) == "arg" &&
                          std::isdigit(static_cast<unsigned char>(item[3]));
    bool ok = numbered;
    if (ok) {
      auto [p, ec] = std::from_chars(item.data() + 3, item.data() + item.size(), n);
      ok = ec == std::errc() && p == item.data() + item.size() && n < 12;
    }
    if (!numbered && is_identifier(item)) {
      // A parameter's name (uprobes with DWARF), matched against the sites later.
      out.arg_names.emplace_back(item);
    } else if (!ok) {
      return Error("--string " + value + ": '" + std::string(item) +
                   "' is not an argument (arg0 to arg11, or a parameter's name)");
    } else {
      out.arg_mask |= 1u << n;
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

// The numbers are taken as text and converted here: Boost reads "-1" into
// a uint32_t as 4294967295 and "1e30" or "nan" into a double without a word.
// The probe specs too: each is parsed once, into RecordOptions::probes.
struct NumberTexts {
  std::string duration, buffer_pages, stack_bytes, string_bytes, max_functions, call_graph;
  std::vector<std::string> probes;
  LiveFleetTexts live_fleet;
};

// A whole unsigned decimal number up to max, or an error naming the option
// and the value as the user typed it.
Result<uint32_t> parse_count(const std::string& option, const std::string& text, uint32_t max) {
  uint32_t value = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || value > max) {
    return Error(option + " must be a whole number up to " + std::to_string(max) + ", not '" + text +
                 "'");
  }
  return value;
}

// The longest --duration: the recording timer needs whole seconds in a
// time_t; ten years is long enough for any recording.
constexpr double kMaxDurationSeconds = 10 * 365.25 * 24 * 3600;

Result<double> parse_duration(const std::string& text) {
  double value = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !(value > 0) ||
      !(value <= kMaxDurationSeconds)) {
    return Error("--duration must be a number of seconds above 0 and at most " +
                 std::to_string(static_cast<uint64_t>(kMaxDurationSeconds)) + " (ten years), not '" +
                 text + "'");
  }
  return value;
}

po::options_description make_options(RecordOptions* o, std::vector<std::string>* pid_values,
                                     NumberTexts* numbers, std::vector<std::string>* string_values) {
  po::options_description desc("Options");
  desc.add_options()
      ("help,h", "show this help")
      ("version", "show the version")
      ("list,l", "list probes instead of recording")
      ("verbose,v", "with -l: show locations, semaphores, each argument spec with how it is "
       "read or why it is missing, and call frames")
      ("event,e", po::value<std::vector<std::string>>(&numbers->probes)->composing(), "probe to record (repeatable)")
      ("output,o", po::value<std::string>(&o->output), "trace file (default usdt.trace)")
      ("pid,p", po::value<std::vector<std::string>>(pid_values)->composing(), "trace (or list) PID[,PID...]")
      ("all,a", "trace every process that runs the probed files")
      ("duration", po::value<std::string>(&numbers->duration), "stop after SECONDS")
      ("quiet,q", "print nothing but errors")
      ("buffer-pages", po::value<std::string>(&numbers->buffer_pages),
       "per-CPU ring buffer size in pages, a power of 2 (default 1024)")
      ("stack-bytes", po::value<std::string>(&numbers->stack_bytes),
       "user stack bytes copied per event for stack arguments, multiple of 8 (default 512)")
      ("string", po::value<std::vector<std::string>>(string_values)->composing(),
       "PROBE=argN[,argN...]: record those arguments (argN, or a function parameter's name) of "
       "matching probes as strings read at "
       "the hit (repeatable; wildcards in PROBE)")
      ("string-bytes", po::value<std::string>(&numbers->string_bytes),
       "longest string kept, in bytes (default 256, at most 4095); longer ones are cut and "
       "marked truncated")
      ("max-functions", po::value<std::string>(&numbers->max_functions),
       "most functions one uprobe/uretprobe pattern may attach (default 1000); a pattern "
       "matching more is refused")
      (",g", "[MODE]: record the user call stack of each event; alone the same as "
       "--call-graph fp, followed by fp[,DEPTH] or dwarf[,BYTES] the same as --call-graph MODE")
      ("call-graph", po::value<std::string>(&numbers->call_graph)->value_name("MODE"),
       "record the user call stack of each event, as perf does: fp[,DEPTH] (frame "
       "pointers: the kernel's user callchain, at most DEPTH frames, default 127; the caller "
       "of a probe where no frame is set up is read from the stack, where its CFI says) or "
       "dwarf[,BYTES] (the registers and BYTES of the user stack, default 8192, a multiple "
       "of 8 up to 65528, unwound by the recorder with the binaries' CFI; the default "
       "--buffer-pages grows to hold such events)");
  add_live_fleet_options(desc, &numbers->live_fleet);
  return desc;
}

Status check_recording(const RecordOptions& o) {
  if (o.probes.empty()) return Error("no probe given: use -e PROBE (or -l to list probes)");
  int sources = (o.command.empty() ? 0 : 1) + (o.pids.empty() ? 0 : 1) + (o.all ? 1 : 0);
  if (sources == 0) return Error("nothing to trace: give -- COMMAND, -p PID or -a");
  if (sources > 1) return Error("give only one of -- COMMAND, -p PID and -a");
  if (o.buffer_pages == 0 || (o.buffer_pages & (o.buffer_pages - 1)) != 0) {
    return Error("--buffer-pages must be a power of 2, not " + std::to_string(o.buffer_pages));
  }
  // perf_event_attr::sample_stack_user is a u32 that must be 8-byte aligned
  // and below 64 KiB (the sample size field is 16 bits).
  if (o.stack_bytes % 8 != 0 || o.stack_bytes > 65528) {
    return Error("--stack-bytes must be a multiple of 8 up to 65528, not " +
                 std::to_string(o.stack_bytes));
  }
  if (o.string_bytes == 0 || o.string_bytes > kMaxStringBytes) {
    return Error("--string-bytes must be between 1 and " + std::to_string(kMaxStringBytes) +
                 ", not " + std::to_string(o.string_bytes));
  }
  if (o.output.empty()) return Error("-o needs a file name");
  return Status::success();
}

}  // namespace

Result<CallGraph> parse_call_graph(const std::string& text) {
  CallGraph graph;
  std::string_view mode = text;
  std::string_view value;
  bool has_value = false;
  if (size_t comma = mode.find(','); comma != std::string_view::npos) {
    value = mode.substr(comma + 1);
    mode = mode.substr(0, comma);
    has_value = true;
  }
  if (mode == "fp") {
    graph.mode = CallGraphMode::fp;
    if (has_value) {
      Result<uint32_t> depth =
          parse_count("--call-graph fp,DEPTH", std::string(value), kMaxCallGraphDepth);
      if (!depth) return depth.error();
      if (*depth == 0) return Error("--call-graph fp,DEPTH needs at least 1 frame, not 0");
      graph.depth = *depth;
    }
    return graph;
  }
  if (mode == "dwarf") {
    graph.mode = CallGraphMode::dwarf;
    if (has_value) {
      // perf_event_attr::sample_stack_user: 8-byte aligned, below 64 KiB.
      Result<uint32_t> bytes = parse_count("--call-graph dwarf,BYTES", std::string(value), 65528);
      if (!bytes || *bytes == 0 || *bytes % 8 != 0) {
        return Error("--call-graph dwarf,BYTES must be a multiple of 8 from 8 to 65528, not '" +
                     std::string(value) + "'");
      }
      graph.stack_bytes = *bytes;
    }
    return graph;
  }
  std::string hint = mode == "lbr" ? " (lbr needs hardware branch records of kernel samples; "
                                     "use fp or dwarf)"
                                   : "";
  return Error("--call-graph takes fp[,DEPTH] or dwarf[,BYTES], not '" + text + "'" + hint);
}

Result<RecordOptions> parse_record_options(int argc, const char* const* argv) {
  std::vector<std::string> args(argv + 1, argv + argc);

  // Split off the traced command: everything after "--", or (when not
  // listing) from the first positional argument on, as perf does. The
  // command's own options must not be parsed as ours.
  std::vector<std::string> ours, rest;
  bool listing = false;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      rest.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (is_list_flag(a)) listing = true;
    // -g takes a MODE when one follows ("-g dwarf", as CLI.md writes it);
    // alone it is fp, as perf's -g.
    if (a == "-g" && i + 1 < args.size() && is_call_graph_mode(args[i + 1])) {
      ours.push_back("--call-graph=" + args[++i]);
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      ours.push_back(a);
      if (kValueOptions.count(a) != 0 && i + 1 < args.size()) ours.push_back(args[++i]);
      continue;
    }
    if (!listing) {
      rest.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    ours.push_back(a);
  }

  RecordOptions o;
  std::vector<std::string> pid_values;
  NumberTexts numbers;
  std::vector<std::string> string_values;
  auto desc = make_options(&o, &pid_values, &numbers, &string_values);
  po::options_description hidden;
  hidden.add_options()("positional", po::value<std::vector<std::string>>(&o.list_args));
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description positional;
  positional.add("positional", -1);

  po::variables_map vm;
  try {
    auto style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(ours).options(all).positional(positional).style(style).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return Error(e.what());
  }
  o.help = vm.count("help") != 0;
  o.version = vm.count("version") != 0;
  o.list = vm.count("list") != 0;
  o.verbose = vm.count("verbose") != 0;
  o.all = vm.count("all") != 0;
  o.quiet = vm.count("quiet") != 0;
  if (vm.count("duration") != 0) {
    Result<double> duration = parse_duration(numbers.duration);
    if (!duration) return duration.error();
    o.duration_seconds = *duration;
  }
  if (vm.count("buffer-pages") != 0) {
    Result<uint32_t> pages = parse_count("--buffer-pages", numbers.buffer_pages, 1u << 30);
    if (!pages) return pages.error();
    o.buffer_pages = *pages;
    o.buffer_pages_given = true;
  }
  // A short-only option is stored under "-g".
  if (vm.count("-g") != 0 || vm.count("g") != 0) o.call_graph.mode = CallGraphMode::fp;
  if (vm.count("call-graph") != 0) {
    Result<CallGraph> graph = parse_call_graph(numbers.call_graph);
    if (!graph) return graph.error();
    o.call_graph = *graph;
  }
  if (vm.count("stack-bytes") != 0) {
    Result<uint32_t> bytes = parse_count("--stack-bytes", numbers.stack_bytes, 65528);
    if (!bytes) return bytes.error();
    o.stack_bytes = *bytes;
  }
  if (vm.count("string-bytes") != 0) {
    Result<uint32_t> bytes = parse_count("--string-bytes", numbers.string_bytes, kMaxStringBytes);
    if (!bytes) return bytes.error();
    o.string_bytes = *bytes;
  }
  if (vm.count("max-functions") != 0) {
    Result<uint32_t> n = parse_count("--max-functions", numbers.max_functions, 1u << 20);
    if (!n) return n.error();
    o.max_functions = *n;
  }
  Result<LiveFleetOptions> live_fleet =
      parse_live_fleet_options(vm, numbers.live_fleet, std::getenv("USDT_HOSTNAME"));
  if (!live_fleet) return live_fleet.error();
  o.live_fleet = std::move(*live_fleet);
  auto pids = parse_pids(pid_values);
  if (!pids) return pids.error();
  o.pids = std::move(*pids);
  for (const std::string& text : numbers.probes) {
    Result<ProbeSpec> spec = ProbeSpec::parse(text);
    if (!spec) return spec.error();
    o.probes.push_back(std::move(*spec));
  }
  for (const std::string& value : string_values) {
    Result<StringArgs> strings = parse_string_args(value);
    if (!strings) return strings.error();
    o.strings.push_back(std::move(*strings));
  }
  if (o.help || o.version) return o;

  if (o.list) {
    // After "--" while listing: more targets.
    o.list_args.insert(o.list_args.end(), rest.begin(), rest.end());
    // uprobe:PATH:PATTERN names its own file; tracepoints are the kernel's.
    bool names_file = std::any_of(o.probes.begin(), o.probes.end(),
                                  [](const ProbeSpec& p) { return p.kind != ProbeKind::usdt; });
    if (o.list_args.empty() && o.pids.empty() && !names_file) {
      return Error("-l needs a TARGET (file or library name) or -p PID");
    }
    if (o.all) return Error("-a cannot be combined with -l");
    return o;
  }
  o.command = std::move(rest);
  if (!o.list_args.empty()) {
    return Error("unexpected argument '" + o.list_args.front() + "'");
  }
  if (auto s = check_recording(o); !s) return s.error();
  return o;
}

std::string record_help_text() {
  RecordOptions o;
  std::vector<std::string> pids, strings;
  NumberTexts numbers;
  std::ostringstream text;
  text << "usage:\n"
          "  usdt-record -l [-v] [PATTERN...] TARGET...     list the USDT probes of files or libraries\n"
          "  usdt-record -l [-v] [PATTERN...] -p PID        list the probes of a running process\n"
          "  usdt-record -l [-v] 'uprobe:PATH:PATTERN'      list the functions PATTERN selects\n"
          "  usdt-record [OPTIONS] -e PROBE... -o FILE -- COMMAND [ARG...]\n"
          "  usdt-record [OPTIONS] -e PROBE... -o FILE -p PID[,PID...]\n"
          "  usdt-record [OPTIONS] -e PROBE... -o FILE -a\n"
          "\n"
          "Records USDT probes (sys/sdt.h) through uprobes into a compressed trace file;\n"
          "read it with usdt-report. Ctrl-C or SIGTERM ends a recording cleanly.\n"
          "--duration, Ctrl-C, SIGTERM and a write error (a full disk) end a recording alike:\n"
          "a COMMAND still running gets SIGTERM, then SIGKILL after 2 s (-p processes are\n"
          "left alone); after a write error the file keeps what fitted and the exit status is 1.\n"
          "-p takes process or thread ids; a thread id traces its whole process.\n"
          "\n"
          "TARGET is a path to an ELF file or a library name (libstdc++, libstdc++.so.6),\n"
          "found like the dynamic loader does (ld.so.cache, then the standard directories).\n"
          "With -l, an argument that is not an existing file and contains ':' is a PATTERN\n"
          "in the PROBE syntax below that filters the listing (as does -e PROBE).\n"
          "\n"
          "PROBE forms ('*' and '?' wildcards allowed in every part):\n"
          "  usdt:PATH:PROVIDER:NAME      e.g. usdt:/usr/bin/python3.11:python:function__entry\n"
          "  usdt:PATH:NAME               any provider\n"
          "  PROVIDER:NAME                in the command's binary and libraries, or -p's mapped files\n"
          "                               (-a: every process's), and in every library the traced\n"
          "                               processes load later (dlopen, memfd): attached then\n"
          "  NAME                         any provider, any of those files\n"
          "  uprobe:PATH:SYMBOL[+OFFSET]  function entry (arguments: the 6 ABI argument registers)\n"
          "  uretprobe:PATH:SYMBOL        function return (argument 0 = the return value)\n"
          "  tracepoint:SUBSYS:EVENT      a kernel tracepoint; its fields are the arguments\n"
          "SYMBOL is looked up in .symtab and .dynsym; C++ names are matched and shown demangled\n"
          "('uprobe:./server:ns::Server::handle*'; quote a symbol holding a lone ':'). Every\n"
          "function a SYMBOL pattern selects is attached (static functions of one name too), at\n"
          "most --max-functions; aliases at one address are attached once. In traces they are\n"
          "named uprobe:SYMBOL and uretprobe:SYMBOL.\n"
          "PATH may be a library name; a PATH that contains ':' needs the usdt:PATH:PROVIDER:NAME form.\n"
          "Tracepoints are per traced task with -- and -p (children included), system-wide with -a;\n"
          "-l 'tracepoint:sched:*' lists them, -v with their fields.\n"
          "\n"
          << make_options(&o, &pids, &numbers, &strings)
          << "\n"
             "The traced COMMAND follows '--' or the last option.\n"
             "\n"
             "examples:\n"
             "  usdt-record -l /usr/lib/postgresql/15/bin/postgres\n"
             "  usdt-record -l -v 'postgresql:query__*' /usr/lib/postgresql/15/bin/postgres\n"
             "  usdt-record -l -p 1234\n"
             "  usdt-record -e 'python:function__*' -o py.trace -- python3.11 script.py\n"
             "  usdt-record -e 'postgresql:query__*' -p 1234 --duration 10\n"
             "  usdt-record -e 'postgresql:query__*' --string 'postgresql:query__start=arg0' -p 1234\n"
             "  usdt-record -e usdt:libstdc++:libstdcxx:throw -a --duration 5\n"
             "  usdt-record -e tracepoint:syscalls:sys_enter_write -e 'demo:*' -- ./demo\n"
             "  usdt-record --call-graph dwarf -e 'postgresql:query__start' -p 1234 --duration 10\n"
             "  usdt-record -l 'uprobe:libc.so.6:malloc*'\n"
             "  usdt-record -e uprobe:libc.so.6:malloc -e uretprobe:libc.so.6:malloc -o m.trace -- ls\n";
  return text.str();
}

}  // namespace usdt::record
