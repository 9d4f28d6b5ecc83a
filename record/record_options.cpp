#include "record/record_options.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <sstream>
#include <string_view>

#include "record/output/output_options.h"
#include "record/record_option_values.h"

namespace usdt::record {
namespace po = boost::program_options;
namespace {

// Options that take a value as the next argument: needed to find where the
// traced COMMAND starts when it is not preceded by "--".
const std::set<std::string_view> kValueOptions = {
    "-e", "--event", "-o", "--output", "-p", "--pid", "--duration", "--buffer-pages", "--stack-bytes",
    "--string", "--string-bytes", "--max-functions", "--call-graph",
};

// "fp", "dwarf", "fp,..." or "dwarf,...": what may follow -g as its MODE.
bool is_call_graph_mode(std::string_view arg) {
  std::string_view mode = arg.substr(0, arg.find(','));
  return mode == "fp" || mode == "dwarf";
}

bool takes_value(const std::string& arg) {
  if (kValueOptions.count(arg) != 0) return true;
  for (const std::string& o : output_value_options()) {
    if (arg == o) return true;
  }
  return false;
}

bool is_list_flag(std::string_view arg) {
  if (arg == "--list") return true;
  // -l alone or in a cluster of flags such as -lv (not "-e..." or "-o..." with a value).
  if (arg.size() < 2 || arg[0] != '-' || arg[1] == '-') return false;
  if (arg[1] == 'e' || arg[1] == 'o' || arg[1] == 'p') return false;
  return arg.find('l') != std::string_view::npos;
}

// The numbers are taken as text and converted here: Boost reads "-1" into
// a uint32_t as 4294967295 and "1e30" or "nan" into a double without a word.
// The probe specs too: each is parsed once, into RecordOptions::probes.
struct NumberTexts {
  std::string duration, buffer_pages, stack_bytes, string_bytes, max_functions, call_graph;
  std::vector<std::string> probes;
  OutputTexts output;
};

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
  add_output_options(desc, &numbers->output);
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
  return check_output_policy(o.output_policy, o.call_graph.enabled());
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

namespace {

// Splits off the traced command (rest): everything after "--", or (when
// not listing) from the first positional argument on, as perf does. The
// command's own options must not be parsed as ours.
void split_arguments(const std::vector<std::string>& args, std::vector<std::string>& ours,
                     std::vector<std::string>& rest) {
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
      if (takes_value(a) && i + 1 < args.size()) ours.push_back(args[++i]);
      continue;
    }
    if (!listing) {
      rest.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    ours.push_back(a);
  }
}

// The options whose values are read from their text (NumberTexts), into o.
Status read_values(const po::variables_map& vm, const NumberTexts& numbers,
                   const std::vector<std::string>& pid_values,
                   const std::vector<std::string>& string_values, RecordOptions& o) {
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
  Result<OutputPolicy> policy = read_output_options(vm, numbers.output);
  if (!policy) return policy.error();
  o.output_policy = std::move(*policy);
  return Status::success();
}

}  // namespace

Result<RecordOptions> parse_record_options(int argc, const char* const* argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> ours, rest;
  split_arguments(args, ours, rest);

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
  if (auto s = read_values(vm, numbers, pid_values, string_values, o); !s) return s.error();
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

std::string record_options_text() {
  RecordOptions o;
  std::vector<std::string> pids, strings;
  NumberTexts numbers;
  std::ostringstream text;
  text << make_options(&o, &pids, &numbers, &strings);
  return text.str();
}

}  // namespace usdt::record
