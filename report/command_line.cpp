#include "report/command_line.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <filesystem>
#include <sstream>
#include <tuple>

#include "common/closest_match.h"
#include "report/command_help.h"
#include "report/command_options.h"
#include "report/input/wildcard.h"
#include "report/stats/duration.h"

namespace po = boost::program_options;

namespace usdt::report {

namespace {

constexpr const char* kCommands[] = {"summary", "dump",       "latency", "hist", "export",
                                     "stacks",  "flamegraph", "heatmap", "html", "top"};

std::optional<Command> command_of(const std::string& word) {
  if (word == "summary") return Command::summary;
  if (word == "dump") return Command::dump;
  if (word == "latency") return Command::latency;
  if (word == "hist") return Command::hist;
  if (word == "export") return Command::export_trace;
  if (word == "stacks") return Command::stacks;
  if (word == "flamegraph") return Command::flamegraph;
  if (word == "heatmap") return Command::heatmap;
  if (word == "html") return Command::html;
  if (word == "top") return Command::top;
  return std::nullopt;
}

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

Status check_format(Command c, const std::string& format) {
  const char* formats = "";
  switch (c) {
    case Command::summary:
    case Command::latency:
    case Command::hist:
    case Command::stacks:
    case Command::top: formats = "text json"; break;
    case Command::dump: formats = "text jsonl csv"; break;
    case Command::export_trace: formats = "chrome clickhouse-events clickhouse-pairs"; break;
    case Command::flamegraph:
    case Command::heatmap: formats = "svg"; break;
    case Command::html: formats = "html"; break;
  }
  std::istringstream known(formats);
  std::string word;
  while (known >> word) {
    if (word == format) return Status::success();
  }
  return Error(std::string(command_name(c)) + " cannot write format '" + format + "' (" + formats + ")");
}

// SIZE of --max-memory: bytes, or with a K, M or G suffix (binary).
Result<uint64_t> parse_memory_size(const std::string& text) {
  constexpr uint64_t kMin = 1ull << 20, kMax = 1ull << 40;
  const Error invalid("invalid --max-memory '" + text + "': expected a size from 1M to 1024G");
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr == text.data()) return invalid;
  const std::string_view suffix(ptr, static_cast<size_t>(text.data() + text.size() - ptr));
  int shift = suffix.empty()  ? 0
              : suffix == "K" ? 10
              : suffix == "M" ? 20
              : suffix == "G" ? 30
                              : -1;
  if (shift < 0 || v > (kMax >> shift)) return invalid;
  v <<= shift;
  if (v < kMin) return invalid;
  return v;
}

// --probe, --pid, --tid, --since, --until, -j, --max-memory.
Status fill_filter(const RawOptions& raw, const po::variables_map& vm, ReportOptions& o) {
  o.filter.probes = raw.probes;
  if (!raw.pid.empty()) {
    Result<uint32_t> v = parse_u32(raw.pid, "--pid");
    if (!v) return v.error();
    o.filter.pid = *v;
  }
  if (!raw.tid.empty()) {
    Result<uint32_t> v = parse_u32(raw.tid, "--tid");
    if (!v) return v.error();
    o.filter.tid = *v;
  }
  if (!raw.jobs.empty()) {
    Result<uint32_t> v = parse_u32(raw.jobs, "-j");
    if (!v) return v.error();
    if (*v == 0 || *v > kMaxJobs) {
      return Error("invalid -j '" + raw.jobs + "': expected 1.." + std::to_string(kMaxJobs));
    }
    o.jobs = *v;
  }
  if (!raw.max_memory.empty()) {
    Result<uint64_t> v = parse_memory_size(raw.max_memory);
    if (!v) return v.error();
    o.memory_budget = *v;
  }
  if (vm.count("since")) {
    Result<uint64_t> v = parse_duration(raw.since);
    if (!v) return v.error().context("--since");
    o.filter.since_ns = *v;
  }
  if (vm.count("until")) {
    Result<uint64_t> v = parse_duration(raw.until);
    if (!v) return v.error().context("--until");
    o.filter.until_ns = *v;
  }
  if (o.filter.since_ns && o.filter.until_ns && *o.filter.since_ns > *o.filter.until_ns) {
    return Error("--since is after --until");
  }
  return Status::success();
}

// --key, --by, --hist, --linear, --top, --slowest.
Status fill_keys_and_buckets(const RawOptions& raw, ReportOptions& o) {
  Result<KeySpec> key = parse_key_spec(raw.key, "--key");
  if (!key) return key.error();
  o.key = *key;
  if (!raw.by.empty()) {
    // host groups by the recording machine (the file's metadata): no
    // pairing key, and the only grouping summary has.
    if (raw.by == "host") {
      o.by = KeySpec{KeySpec::Kind::host, ArgRef{}};
    } else if (o.command == Command::summary) {
      return Error("invalid --by '" + raw.by + "': summary groups by host only");
    } else {
      Result<KeySpec> by = parse_key_spec(raw.by, "--by");
      if (!by) return by.error();
      o.by = *by;
    }
  }
  if (raw.hist != "log2" && raw.hist != "linear") return Error("invalid --hist '" + raw.hist + "': log2 or linear");
  o.linear_hist = raw.hist == "linear";
  if (!raw.linear.empty()) {
    Result<LinearSpec> l = parse_linear_spec(raw.linear);
    if (!l) return l.error();
    o.linear = *l;
    o.linear_hist = true;
  }
  if (o.linear_hist && !o.linear) return Error("--hist linear needs --linear MIN,MAX,STEP");
  for (auto [text, option, value] : {std::tuple{&raw.top, "--top", &o.top}, std::tuple{&raw.slowest, "--slowest", &o.slowest}}) {
    if (text->empty()) continue;
    Result<uint32_t> v = parse_u32(*text, option);
    if (!v) return v.error();
    *value = std::min<uint32_t>(*v, 100000);
  }
  return Status::success();
}

// --folded, --arg, --function, and what each command needs.
Status fill_command_specific(const RawOptions& raw, const po::variables_map& vm, ReportOptions& o) {
  o.folded = vm.count("folded") > 0;
  if (o.folded && raw.format != "text") return Error("--folded is a format of its own: leave out --format");
  if (!raw.arg.empty()) {
    Result<ArgRef> a = parse_arg_ref(raw.arg, "--arg", true);
    if (!a) return a.error();
    o.arg = *a;
  }
  if (!raw.function.empty()) {
    if (!o.start.empty() || !o.end.empty()) return Error("--function SYMBOL stands for --start and --end: give one or the other");
    o.start = "uprobe:" + raw.function;
    o.end = "uretprobe:" + raw.function;
  }
  const bool exporting = o.command == Command::export_trace;
  if (o.command == Command::latency && (o.start.empty() || o.end.empty())) {
    return Error("latency needs --start PROBE and --end PROBE");
  }
  if (exporting && (o.start.empty() != o.end.empty())) return Error("export needs both --start and --end, or neither");
  if (exporting && raw.format == "clickhouse-pairs" && o.start.empty()) {
    return Error("--format clickhouse-pairs needs --start PROBE and --end PROBE");
  }
  if (exporting && raw.format == "clickhouse-events" && !o.start.empty()) {
    return Error("--format clickhouse-events writes every event; --start/--end are for clickhouse-pairs");
  }
  if (o.command == Command::hist && (raw.probes.empty() || !o.arg)) return Error("hist needs --probe PROBE and --arg N");
  if (exporting && o.output.empty()) return Error("export needs -o FILE");
  if (Status s = check_pictures(raw, vm, o); !s) return s;
  return check_live(raw, vm, o);
}

ParsedCommandLine print_and_exit(std::string text) {
  ParsedCommandLine p;
  p.action = ParsedCommandLine::Action::print_and_exit;
  p.text = std::move(text);
  return p;
}

// Every option's spellings with their dashes ("--probe", "-j"): what an
// unknown option is compared with for "did you mean".
std::vector<std::string> option_spellings(const po::options_description& options) {
  std::vector<std::string> out;
  for (const auto& option : options.options()) {
    if (!option->long_name().empty()) out.push_back("--" + option->long_name());
    std::string short_name =
        option->canonical_display_name(po::command_line_style::allow_dash_for_short);
    if (short_name.size() == 2 && short_name[0] == '-') out.push_back(short_name);
  }
  return out;
}

// The first word: a command, --version, --help, a misspelt command, or the
// first trace (nullopt: go on parsing, with *command_word set for a command).
std::optional<ParsedCommandLine> read_first_word(std::vector<std::string>& args, ReportOptions& o,
                                                 std::string* command_word) {
  if (args.empty()) return std::nullopt;
  if (std::optional<Command> c = command_of(args[0])) {
    o.command = *c;
    *command_word = args[0];
    args.erase(args.begin());
    return std::nullopt;
  }
  if (args[0] == "--version") return print_and_exit(version_text());
  if (args[0] == "--help" || args[0] == "-h") return print_and_exit(kMainUsage);
  if (!is_unknown_command(args[0])) return std::nullopt;
  std::vector<std::string> names(std::begin(kCommands), std::end(kCommands));
  std::string guess = closest_match(args[0], names);
  std::string message = "unknown command '" + args[0] + "'";
  if (!guess.empty()) message += " (did you mean '" + guess + "'?)";
  message += "; the commands are summary, dump, latency, hist, export, stacks, flamegraph, heatmap, html, top";
  return usage_error(message, "");
}

}  // namespace

ParsedCommandLine parse_command_line(int argc, const char* const* argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  ParsedCommandLine parsed;
  ReportOptions& o = parsed.options;
  std::string command_word;
  if (std::optional<ParsedCommandLine> early = read_first_word(args, o, &command_word)) return *early;
  RawOptions raw;
  raw.format = o.command == Command::export_trace                                  ? "chrome"
               : o.command == Command::flamegraph || o.command == Command::heatmap ? "svg"
               : o.command == Command::html                                        ? "html"
                                                                                   : o.format;
  po::options_description common = common_options(raw);
  po::options_description specific = command_options(o.command, raw, o);
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
    po::store(po::command_line_parser(static_cast<int>(rest.size()), rest.data()).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error(suggest_option(e.what(), option_spellings(all)), command_word);
  }
  if (vm.count("help")) {
    std::ostringstream text;
    text << command_usage(o.command) << "\n" << specific << "\n" << common;
    if (command_word.empty()) text << "\n" << kMainUsage;
    return print_and_exit(text.str());
  }
  if (vm.count("version")) return print_and_exit(version_text());
  if (vm.count("schema")) {  // needs no trace
    parsed.action = ParsedCommandLine::Action::print_schema;
    return parsed;
  }
  o.format = raw.format;
  for (Status s : {check_format(o.command, raw.format), fill_filter(raw, vm, o), fill_keys_and_buckets(raw, o),
                   fill_command_specific(raw, vm, o)}) {
    if (!s) return usage_error(s.error().message(), command_word);
  }
  // Like perf report with perf.data: the recorder's default output file.
  if (o.traces.empty()) o.traces.push_back("usdt.trace");
  return parsed;
}

}  // namespace usdt::report
