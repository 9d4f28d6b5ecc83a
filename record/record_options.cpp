#include "record/record_options.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdlib>
#include <set>
#include <string_view>

#include "common/closest_match.h"
#include "record/option_table.h"
#include "record/option_values.h"

namespace usdt::record {
namespace po = boost::program_options;
namespace {

// Options that take a value as the next argument: needed to find where the
// traced COMMAND starts when it is not preceded by "--".
// clang-format off
const std::set<std::string_view> kValueOptions = {
    "-e", "--event", "-o", "--output", "-p", "--pid", "--duration", "--buffer-pages",
    "--stack-bytes", "--string", "--string-bytes", "--max-functions", "--call-graph", "--capture",
    "--flush-interval", "--hostname", "--mount-ns-of",
};
// clang-format on

// "fp", "dwarf", "fp,..." or "dwarf,...": what may follow -g as its MODE.
bool is_call_graph_mode(std::string_view arg) {
  std::string_view mode = arg.substr(0, arg.find(','));
  return mode == "fp" || mode == "dwarf";
}

bool takes_value(const std::string& arg) {
  if (kValueOptions.count(arg) != 0) return true;
  const std::vector<std::string>& output = output_value_options();
  return std::find(output.begin(), output.end(), arg) != output.end();
}

bool is_list_flag(std::string_view arg) {
  if (arg == "--list") return true;
  // -l alone or in a cluster of flags such as -lv (not "-e..." or "-o..." with a value).
  if (arg.size() < 2 || arg[0] != '-' || arg[1] == '-') return false;
  if (arg[1] == 'e' || arg[1] == 'o' || arg[1] == 'p') return false;
  return arg.find('l') != std::string_view::npos;
}

// argv split in two: our options (and, when listing, the TARGETs and
// PATTERNs), and the traced command: everything after "--", or (when not
// listing) from the first positional argument on, as perf does. The
// command's own options must not be parsed as ours.
struct SplitArgs {
  std::vector<std::string> ours, rest;
};

SplitArgs split_command(const std::vector<std::string>& args) {
  SplitArgs out;
  bool listing = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      out.rest.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (is_list_flag(a)) listing = true;
    // -g takes a MODE when one follows ("-g dwarf", as CLI.md writes it);
    // alone it is fp, as perf's -g.
    if (a == "-g" && i + 1 < args.size() && is_call_graph_mode(args[i + 1])) {
      out.ours.push_back("--call-graph=" + args[++i]);
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      out.ours.push_back(a);
      if (takes_value(a) && i + 1 < args.size()) out.ours.push_back(args[++i]);
      continue;
    }
    if (!listing) {
      out.rest.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    out.ours.push_back(a);
  }
  return out;
}

// Runs Boost over our part of the command line; an unknown option's error
// names the closest known one.
Result<po::variables_map> parse_ours(const std::vector<std::string>& ours, RecordOptions& o,
                                     OptionTexts& texts) {
  po::options_description all = make_options(&o, &texts);
  po::options_description hidden;
  hidden.add_options()("positional", po::value<std::vector<std::string>>(&o.list_args));
  all.add(hidden);
  po::positional_options_description positional;
  positional.add("positional", -1);
  po::variables_map vm;
  try {
    auto style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(ours).options(all).positional(positional).style(style).run(),
              vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return Error(suggest_option(e.what(), option_spellings()));
  }
  return vm;
}

// The numbers, checked and converted.
Status apply_numbers(const po::variables_map& vm, const OptionTexts& t, RecordOptions& o) {
  if (vm.count("duration") != 0) {
    Result<double> duration = parse_duration(t.duration);
    if (!duration) return duration.error();
    o.duration_seconds = *duration;
  }
  if (vm.count("buffer-pages") != 0) {
    Result<uint32_t> pages = parse_count("--buffer-pages", t.buffer_pages, 1u << 30);
    if (!pages) return pages.error();
    o.buffer_pages = *pages;
    o.buffer_pages_given = true;
  }
  // A short-only option is stored under "-g".
  if (vm.count("-g") != 0 || vm.count("g") != 0) o.call_graph.mode = CallGraphMode::fp;
  if (vm.count("call-graph") != 0) {
    Result<CallGraph> graph = parse_call_graph(t.call_graph);
    if (!graph) return graph.error();
    o.call_graph = *graph;
  }
  if (vm.count("stack-bytes") != 0) {
    Result<uint32_t> bytes = parse_count("--stack-bytes", t.stack_bytes, 65528);
    if (!bytes) return bytes.error();
    o.stack_bytes = *bytes;
  }
  if (vm.count("string-bytes") != 0) {
    Result<uint32_t> bytes = parse_count("--string-bytes", t.string_bytes, kMaxStringBytes);
    if (!bytes) return bytes.error();
    o.string_bytes = *bytes;
  }
  if (vm.count("capture") != 0) {
    Result<CaptureMode> capture = parse_capture_mode(t.capture);
    if (!capture) return capture.error();
    o.capture = *capture;
  }
  if (vm.count("max-functions") != 0) {
    Result<uint32_t> n = parse_count("--max-functions", t.max_functions, 1u << 20);
    if (!n) return n.error();
    o.max_functions = *n;
  }
  return Status::success();
}

// The flags, PIDs, probe specs and --string lists.
Status apply_values(const po::variables_map& vm, const OptionTexts& t, RecordOptions& o) {
  o.help = vm.count("help") != 0;
  o.version = vm.count("version") != 0;
  o.list = vm.count("list") != 0;
  o.verbose = vm.count("verbose") != 0;
  o.all = vm.count("all") != 0;
  o.quiet = vm.count("quiet") != 0;
  o.allow_missing = vm.count("allow-missing") != 0;
  if (Status s = apply_numbers(vm, t, o); !s) return s;
  auto pids = parse_pids(t.pids);
  if (!pids) return pids.error();
  o.pids = std::move(*pids);
  for (const std::string& text : t.probes) {
    Result<ProbeSpec> spec = ProbeSpec::parse(text);
    if (!spec) return spec.error();
    o.probes.push_back(std::move(*spec));
  }
  for (const std::string& value : t.strings) {
    Result<StringArgs> strings = parse_string_args(value);
    if (!strings) return strings.error();
    o.strings.push_back(std::move(*strings));
  }
  Result<OutputPolicy> policy = read_output_options(vm, t.output);
  if (!policy) return policy.error();
  o.output_policy = std::move(*policy);
  Result<LiveFleetOptions> live_fleet =
      parse_live_fleet_options(vm, t.live_fleet, std::getenv("USDT_HOSTNAME"));
  if (!live_fleet) return live_fleet.error();
  o.live_fleet = std::move(*live_fleet);
  return Status::success();
}

Status check_listing(RecordOptions& o, std::vector<std::string> rest) {
  // After "--" while listing: more targets.
  o.list_args.insert(o.list_args.end(), rest.begin(), rest.end());
  // uprobe:PATH:PATTERN names its own file; tracepoints are the kernel's.
  bool names_file = std::any_of(o.probes.begin(), o.probes.end(),
                                [](const ProbeSpec& p) { return p.kind != ProbeKind::usdt; });
  if (o.list_args.empty() && o.pids.empty() && !names_file) {
    return Error("-l needs a TARGET (file or library name) or -p PID");
  }
  if (o.all) return Error("-a cannot be combined with -l");
  return Status::success();
}

Status check_recording(const RecordOptions& o) {
  if (!o.list_args.empty()) return Error("unexpected argument '" + o.list_args.front() + "'");
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

Result<RecordOptions> parse_record_options(int argc, const char* const* argv) {
  SplitArgs split = split_command(std::vector<std::string>(argv + 1, argv + argc));
  RecordOptions o;
  OptionTexts texts;
  Result<po::variables_map> vm = parse_ours(split.ours, o, texts);
  if (!vm) return vm.error();
  if (Status s = apply_values(*vm, texts, o); !s) return s.error();
  if (o.help || o.version) return o;
  if (o.list) {
    if (Status s = check_listing(o, std::move(split.rest)); !s) return s.error();
    return o;
  }
  o.command = std::move(split.rest);
  if (Status s = check_recording(o); !s) return s.error();
  return o;
}

}  // namespace usdt::record
