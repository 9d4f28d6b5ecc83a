// usdt-report export --format chrome: a Chrome trace-event JSON file
// ({"traceEvents":[...],"displayTimeUnit":"ns"}) that Perfetto's UI and
// chrome://tracing load. Fields follow the Trace Event Format document:
//   matched latency pairs paired on tid or pid: complete events, "ph":"X",
//     "ts" and "dur" in microseconds (fractional, so nanoseconds survive),
//     on the start event's pid/tid. Pairing is last-in first-out per key,
//     and a thread has one tid and one pid, so these slices always nest on
//     their thread, as X events must;
//   pairs paired on an argument (--key argN, e.g. a request id): requests
//     overlap on one thread without nesting, which X events cannot show, so
//     each pair is an async slice: "ph":"b" at the start and "ph":"e" at the
//     end, with "cat":"latency", the start probe as name and "id" the key's
//     value in hex ("0x2a"; for a string key, its 64-bit FNV-1a hash),
//     both on the start event's pid/tid. Perfetto
//     gives each (pid, cat, id, name) its own track, where the LIFO pairing
//     of one key nests again;
//   every other selected event (also unmatched starts and ends): instant
//     events, "ph":"i", "s":"t" (thread scope), with args cpu and argN (a
//     string argument as a JSON string; "truncated_args":[N,...] lists the
//     ones the recorder cut);
//   process and thread names: metadata events, "ph":"M", "process_name" /
//     "thread_name" with args.name;
//   call stacks (format 1.3, usdt-record -g): a "stackFrames" dictionary
//     after traceEvents (report/chrome_stack_frames.h); instants and b/e
//     events with a stack have "sf", X slices "sf" (start) and "esf" (end).
// ts is relative to the timeline start. When the files come from different
// hosts, pids are made distinct as file_index * 10000000 + pid (Linux pids
// stay below 2^22) and process names carry the host.
#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "report/arg_format.h"
#include "report/clickhouse_export.h"
#include "report/commands.h"
#include "report/json_writer.h"
#include "report/export_setup.h"
#include "report/latency_analyzer.h"
#include "report/latency_setup.h"
#include "report/output_buffer.h"
#include "report/output_file.h"
#include "report/process_names.h"
#include "report/chrome_stack_frames.h"

namespace usdt::report {

namespace {

// Writes the traceEvents array: each event is built with a JsonWriter into
// a scratch string, then appended to the file's buffer.
class ChromeWriter {
 public:
  ChromeWriter(std::FILE* file, uint64_t start) : out_(file), start_(start), json_(event_) {
    out_.append("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  }

  // Starts the next event: the writer is positioned before its '{'.
  JsonWriter& begin_event() {
    event_.clear();
    json_.reset_top_level();
    return json_;
  }
  void end_event() {
    if (!first_) out_.append(",\n");
    first_ = false;
    out_.append(event_);
    out_.maybe_flush();
  }

  // Microseconds with three decimals: "1000.000".
  static std::string us_text(uint64_t ns) {
    std::string s = std::to_string(ns / 1000);
    char frac[4] = {static_cast<char>('0' + ns % 1000 / 100), static_cast<char>('0' + ns % 100 / 10),
                    static_cast<char>('0' + ns % 10), 0};
    return s + "." + frac;
  }
  std::string ts_text(uint64_t time) const { return us_text(time >= start_ ? time - start_ : 0); }

  // Ends the traceEvents array and the document; stack_frames: the
  // stackFrames object, if any.
  void finish(const std::string& stack_frames) {
    out_.append("\n]");
    if (!stack_frames.empty()) {
      out_.append(",\n\"stackFrames\":");
      out_.append(stack_frames);
    }
    out_.append("}\n");
    out_.flush();
  }
  bool failed() const { return out_.failed(); }

 private:
  OutputBuffer out_;
  uint64_t start_;
  bool first_ = true;
  std::string event_;
  JsonWriter json_;
};

uint64_t chrome_id(uint32_t domain, uint32_t id) { return uint64_t{domain} * 10000000u + id; }

void write_ids(JsonWriter& j, uint64_t pid, uint64_t tid) { j.key("pid").uint(pid).key("tid").uint(tid); }

void write_instant(ChromeWriter& w, const ProbeCatalog& catalog, uint32_t site, uint32_t domain,
                   const format::Event& e, uint64_t time, uint64_t sf) {
  const SiteInfo& info = catalog.site(site);
  JsonWriter& j = w.begin_event();
  j.begin_object().key("ph").string("i").key("s").string("t");
  j.key("name").string(catalog.probe_of_site(site).shown_name);
  j.key("cat").string(catalog.probe_of_site(site).provider);
  j.key("ts").number_text(w.ts_text(time));
  write_ids(j, chrome_id(domain, e.pid), chrome_id(domain, e.tid));
  if (sf != 0) j.key("sf").uint(sf);
  j.key("args").begin_object().key("cpu").uint(e.cpu);
  for (int i = 0; i < e.arg_count && i < format::kMaxArgs; ++i) {
    j.key(info.arg_label(static_cast<size_t>(i))).number_text(event_arg_text(e, i, arg_type_at(&info, i), true));
  }
  write_truncated_args(j, e);
  j.end_object().end_object();
  w.end_event();
}

// The args of a pair's slice: end probe, exact duration, the key's value.
void write_pair_args(JsonWriter& j, const ProbeCatalog& catalog, const LatencyPair& p, const KeySpec& key) {
  j.key("args").begin_object();
  j.key("end").string(catalog.probe_of_site(p.end_site).shown_name);
  j.key("duration_ns").uint(p.duration);
  j.key(key.text());
  if (p.key_type == ArgType::string) {
    j.string(p.key_text);
    if (p.key_truncated) j.key("key_truncated").boolean(true);
  } else if (key.kind == KeySpec::Kind::arg) {
    j.number_text(arg_text(p.key, p.key_type, true));
  } else {
    j.uint(p.key);
  }
  j.end_object();
}

// The async id of an argument-keyed pair: the key's raw value in hex.
std::string async_id(uint64_t key) {
  static const char kHex[] = "0123456789abcdef";
  std::string digits;
  do {
    digits.insert(digits.begin(), kHex[key & 15]);
    key >>= 4;
  } while (key != 0);
  return "0x" + digits;
}

// start_sf, end_sf: the stack frames of the start and end events (0: none).
void write_pair(ChromeWriter& w, const ProbeCatalog& catalog, const LatencyPair& p, const KeySpec& key,
                uint64_t start_sf, uint64_t end_sf) {
  const std::string& name = catalog.probe_of_site(p.start_site).shown_name;
  const uint64_t pid = chrome_id(p.domain, p.pid);
  const uint64_t tid = chrome_id(p.domain, p.tid);
  if (key.kind != KeySpec::Kind::arg) {
    JsonWriter& j = w.begin_event();
    j.begin_object().key("ph").string("X").key("name").string(name).key("cat").string("latency");
    j.key("ts").number_text(w.ts_text(p.start_time)).key("dur").number_text(ChromeWriter::us_text(p.duration));
    write_ids(j, pid, tid);
    if (start_sf != 0) j.key("sf").uint(start_sf);
    if (end_sf != 0) j.key("esf").uint(end_sf);
    write_pair_args(j, catalog, p, key);
    j.end_object();
    w.end_event();
    return;
  }
  const std::string id = async_id(p.key);
  JsonWriter& b = w.begin_event();
  b.begin_object().key("ph").string("b").key("name").string(name).key("cat").string("latency").key("id").string(id);
  b.key("ts").number_text(w.ts_text(p.start_time));
  write_ids(b, pid, tid);
  if (start_sf != 0) b.key("sf").uint(start_sf);
  write_pair_args(b, catalog, p, key);
  b.end_object();
  w.end_event();
  JsonWriter& e = w.begin_event();
  e.begin_object().key("ph").string("e").key("name").string(name).key("cat").string("latency").key("id").string(id);
  e.key("ts").number_text(w.ts_text(p.end_time));
  write_ids(e, pid, tid);
  if (end_sf != 0) e.key("sf").uint(end_sf);
  e.end_object();
  w.end_event();
}

}  // namespace

int run_export(const ReportOptions& options, TraceInput& input, CommandIo io) {
  if (options.format.starts_with("clickhouse-")) return run_clickhouse_export(options, input, io);
  if (options.format != "chrome") {
    print_error(io.err, "export writes --format chrome, clickhouse-events or clickhouse-pairs (got '" +
                            options.format + "')");
    return 2;
  }
  bool pairs = !options.start.empty() || !options.end.empty();
  int exit_code = 0;
  std::optional<ExportSetup> setup = prepare_export(options, input, pairs, true, io, &exit_code);
  if (!setup) return exit_code;
  EventFilter* filter = &setup->filter;
  std::optional<LatencyAnalyzer>& analyzer = setup->analyzer;
  OutputFile* file = &setup->file;
  const ProbeCatalog& catalog = input.catalog();
  std::vector<uint32_t> domains = file_domains(input);
  ProcessNames names;
  uint64_t pair_count = 0;
  // Events with a call stack (format 1.3) carry "sf": each event's stack is
  // stored once per distinct stack and turned into frames once.
  StackSymbolizer symbols(input.files());
  StackStore stacks;
  ChromeStackFrames frames(symbols, stacks);
  {
    ChromeWriter w(file->get(), input.timeline_start());
    Record r;
    while (input.next(r)) {
      if (r.kind == format::RecordKind::process) {
        names.on_process(domains[r.file], *r.process);
        symbols.on_process(r.file, *r.process);
        continue;
      }
      if (r.kind != format::RecordKind::event) continue;
      const format::Event& e = *r.event;
      uint32_t site = catalog.global_site(r.file, e.site_id);
      if (!filter->accepts(site, e, r.time)) continue;
      uint32_t domain = domains[r.file];
      const uint64_t tag = stacks.add(symbols, r.file, e);
      if (analyzer) {
        LatencyPair p;
        LatencyAnalyzer::Outcome o = analyzer->on_event(site, domain, e, r.time, &p, tag);
        if (o == LatencyAnalyzer::Outcome::started) continue;  // written when paired or at the end
        if (o == LatencyAnalyzer::Outcome::paired) {
          ++pair_count;
          write_pair(w, catalog, p, options.key, frames.id_of(p.start_tag), frames.id_of(p.end_tag));
          continue;
        }
      }
      write_instant(w, catalog, site, domain, e, r.time, frames.id_of(tag));
    }
    if (analyzer) {
      analyzer->for_each_open_start(
          [&](uint32_t site, uint32_t domain, const format::Event& e, uint64_t time, uint64_t tag) {
            write_instant(w, catalog, site, domain, e, time, frames.id_of(tag));
          });
    }
    // Names: one process_name per named process, one thread_name per
    // named thread, sorted so that the file does not depend on hash order.
    struct Named {
      uint32_t domain, pid, tid;
      std::string name;
      bool operator<(const Named& o) const {
        return std::tie(domain, pid, tid) < std::tie(o.domain, o.pid, o.tid);
      }
    };
    std::vector<Named> processes, threads;
    names.for_each_process([&](uint32_t domain, uint32_t pid, const std::string& name) {
      std::string shown = input.hosts_differ() ? name + " (" + input.files()[domain].metadata.hostname + ")" : name;
      processes.push_back(Named{domain, pid, pid, shown});
    });
    names.for_each_thread([&](uint32_t domain, uint32_t tid, const std::string& name) {
      threads.push_back(Named{domain, names.pid_of_thread(domain, tid), tid, name});
    });
    std::sort(processes.begin(), processes.end());
    std::sort(threads.begin(), threads.end());
    for (const auto& [list, kind] : {std::pair{&processes, "process_name"}, std::pair{&threads, "thread_name"}}) {
      for (const Named& n : *list) {
        JsonWriter& j = w.begin_event();
        j.begin_object().key("ph").string("M").key("name").string(kind);
        write_ids(j, chrome_id(n.domain, n.pid), chrome_id(n.domain, n.tid));
        j.key("args").begin_object().key("name").string(n.name).end_object();
        j.end_object();
        w.end_event();
      }
    }
    std::string stack_frames;
    if (!frames.empty()) {
      JsonWriter sf(stack_frames);
      sf.begin_object();
      frames.write(sf);
      sf.end_object();
    }
    w.finish(stack_frames);
    if (w.failed()) {
      print_error(io.err, "cannot write '" + options.output + "'");
      return 1;  // the file is closed by its owner
    }
  }
  if (Status closed = file->close(); !closed) {
    print_error(io.err, closed.error().message());
    return 1;
  }
  report_read_problems(input, io.err);
  if (analyzer) {
    std::fprintf(io.err, "usdt-report: wrote '%s': %llu pairs as slices, %llu unmatched starts, %llu unmatched ends\n",
                 options.output.c_str(), static_cast<unsigned long long>(pair_count),
                 static_cast<unsigned long long>(analyzer->unmatched_starts()),
                 static_cast<unsigned long long>(analyzer->unmatched_ends()));
  }
  return 0;
}

}  // namespace usdt::report
