// usdt-report export --format chrome: a Chrome trace-event JSON file
// ({"traceEvents":[...],"displayTimeUnit":"ns"}) that Perfetto's UI and
// chrome://tracing load. Fields follow the Trace Event Format document:
//   matched latency pairs: complete events, "ph":"X", "ts" and "dur" in
//     microseconds (fractional, so nanoseconds survive), on the start
//     event's pid/tid;
//   every other selected event (also unmatched starts and ends): instant
//     events, "ph":"i", "s":"t" (thread scope);
//   process and thread names: metadata events, "ph":"M", "process_name" /
//     "thread_name" with args.name.
// ts is relative to the timeline start. When the files come from different
// hosts, pids are made distinct as file_index * 10000000 + pid (Linux pids
// stay below 2^22) and process names carry the host.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "report/arg_format.h"
#include "report/commands.h"
#include "report/json_text.h"
#include "report/latency_analyzer.h"
#include "report/latency_setup.h"
#include "report/output_buffer.h"
#include "report/process_names.h"

namespace usdt::report {

namespace {

class ChromeWriter {
 public:
  ChromeWriter(std::FILE* file, uint64_t start) : out_(file), start_(start) {
    out_.append("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  }

  void begin_event() {
    if (!first_) out_.append(",\n");
    first_ = false;
  }
  void append_us(uint64_t ns) {
    out_.append_int(ns / 1000);
    out_.append('.');
    out_.append_padded(ns % 1000, 3);
  }
  void append_ts(uint64_t time) { append_us(time >= start_ ? time - start_ : 0); }
  void append_ids(uint64_t pid, uint64_t tid) {
    out_.append(",\"pid\":");
    out_.append_int(pid);
    out_.append(",\"tid\":");
    out_.append_int(tid);
  }
  OutputBuffer& out() { return out_; }
  void finish() {
    out_.append("\n]}\n");
    out_.flush();
  }

 private:
  OutputBuffer out_;
  uint64_t start_;
  bool first_ = true;
};

uint64_t chrome_id(uint32_t domain, uint32_t id) { return uint64_t{domain} * 10000000u + id; }

void write_instant(ChromeWriter& w, const ProbeCatalog& catalog, uint32_t site, uint32_t domain,
                   const format::Event& e, uint64_t time) {
  const SiteInfo& info = catalog.site(site);
  OutputBuffer& out = w.out();
  w.begin_event();
  out.append("{\"ph\":\"i\",\"s\":\"t\",\"name\":");
  out.append(json_string(catalog.probe_of_site(site).full_name));
  out.append(",\"cat\":");
  out.append(json_string(catalog.probe_of_site(site).provider));
  out.append(",\"ts\":");
  w.append_ts(time);
  w.append_ids(chrome_id(domain, e.pid), chrome_id(domain, e.tid));
  out.append(",\"args\":{\"cpu\":");
  out.append_int(e.cpu);
  for (int i = 0; i < e.arg_count && i < format::kMaxArgs; ++i) {
    out.append(",\"arg");
    out.append_int(i);
    out.append("\":");
    if (e.has_arg(i)) {
      append_arg(out, e.args[i], arg_type_at(&info, i), true);
    } else {
      out.append("null");
    }
  }
  out.append("}}");
  out.maybe_flush();
}

}  // namespace

int run_export(const ReportOptions& options, TraceInput& input, CommandIo io) {
  if (options.format != "chrome") {
    print_error(io.err, "export writes --format chrome only (got '" + options.format + "')");
    return 2;
  }
  if (options.output.empty()) {
    print_error(io.err, "export needs -o FILE");
    return 2;
  }
  bool pairs = !options.start.empty() || !options.end.empty();
  Result<EventFilter> filter = make_filter(options, input);
  if (!filter) {
    print_error(io.err, filter.error().message());
    return 1;
  }
  const ProbeCatalog& catalog = input.catalog();
  std::optional<LatencyAnalyzer> analyzer;
  if (pairs) {
    Result<LatencyConfig> config = make_latency_config(options, catalog);
    if (!config) {
      print_error(io.err, config.error().message());
      return 1;
    }
    config->keep_open_events = true;
    analyzer.emplace(std::move(*config));
  }
  std::FILE* file = std::fopen(options.output.c_str(), "we");
  if (file == nullptr) {
    print_error(io.err, "cannot create '" + options.output + "': " + std::strerror(errno));
    return 1;
  }
  std::vector<uint32_t> domains = file_domains(input);
  ProcessNames names;
  uint64_t pair_count = 0;
  {
    ChromeWriter w(file, input.timeline_start());
    Record r;
    while (input.next(r)) {
      if (r.kind == format::RecordKind::process) {
        names.on_process(domains[r.file], *r.process);
        continue;
      }
      if (r.kind != format::RecordKind::event) continue;
      const format::Event& e = *r.event;
      uint32_t site = catalog.global_site(r.file, e.site_id);
      if (!filter->accepts(site, e, r.time)) continue;
      uint32_t domain = domains[r.file];
      if (analyzer) {
        LatencyPair p;
        LatencyAnalyzer::Outcome o = analyzer->on_event(site, domain, e, r.time, &p);
        if (o == LatencyAnalyzer::Outcome::started) continue;  // written when paired or at the end
        if (o == LatencyAnalyzer::Outcome::paired) {
          ++pair_count;
          OutputBuffer& out = w.out();
          w.begin_event();
          out.append("{\"ph\":\"X\",\"name\":");
          out.append(json_string(catalog.probe_of_site(p.start_site).full_name));
          out.append(",\"cat\":\"latency\",\"ts\":");
          w.append_ts(p.start_time);
          out.append(",\"dur\":");
          w.append_us(p.duration);
          w.append_ids(chrome_id(p.domain, p.pid), chrome_id(p.domain, p.tid));
          out.append(",\"args\":{\"end\":");
          out.append(json_string(catalog.probe_of_site(p.end_site).full_name));
          out.append(",\"duration_ns\":");
          out.append_int(p.duration);
          out.append(",\"");
          out.append(options.key.text());
          out.append("\":");
          out.append(options.key.kind == KeySpec::Kind::arg ? arg_text(p.key, p.key_type, true)
                                                           : std::to_string(p.key));
          out.append("}}");
          out.maybe_flush();
          continue;
        }
      }
      write_instant(w, catalog, site, domain, e, r.time);
    }
    if (analyzer) {
      analyzer->for_each_open_start([&](uint32_t site, uint32_t domain, const format::Event& e, uint64_t time) {
        write_instant(w, catalog, site, domain, e, time);
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
        w.begin_event();
        w.out().append("{\"ph\":\"M\",\"name\":\"");
        w.out().append(kind);
        w.out().append("\"");
        w.append_ids(chrome_id(n.domain, n.pid), chrome_id(n.domain, n.tid));
        w.out().append(",\"args\":{\"name\":" + json_string(n.name) + "}}");
      }
    }
    w.finish();
    if (w.out().failed()) {
      std::fclose(file);
      print_error(io.err, "cannot write '" + options.output + "'");
      return 1;
    }
  }
  if (std::fclose(file) != 0) {
    print_error(io.err, "cannot write '" + options.output + "': " + std::strerror(errno));
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
