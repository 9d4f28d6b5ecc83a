// Writes the golden traces with the real format writer, with fixed content so
// that every report command's output can be checked by hand:
//   golden.trace     host golden-host; demo:req_start(id, size)/demo:req_done(id)
//                    requests (nested, across threads, unmatched on both
//                    sides), demo:tick with an argument that is always
//                    missing, demo:never without events, process names
//                    (comm, fork, exec), two lost records; events appended per
//                    CPU (out of time order) into small chunks.
//   truncated.trace  golden.trace cut inside the chunk after the CPU 0 batch:
//                    only the CPU 0 events and process records are readable.
//   corrupted.trace  golden.trace with a byte flipped in the chunk after the
//                    CPU 0 batch: that chunk is skipped and reported.
//   other_host.trace host golden-host-b, whose clock is 4000 s ahead: merged by
//                    wall clock with golden.trace.
//   requests.trace   golden-host, 100 s later: requests paired on arg0 that
//                    overlap on one thread without nesting (export as async).
//   golden_copy.trace, golden_hardlink.trace, golden_link.trace: the same
//                    recording again as a copy, a hard link and a symlink.
//   fifo.trace       a FIFO without a writer (must be refused, not block).
//   strings.trace    golden-host, 200 s later: postgresql:query__start(query,
//                    client)/query__done(query) with string arguments: ASCII,
//                    empty, cut by the recorder, invalid UTF-8, quotes, commas,
//                    a newline, a tab and a control byte, the text "null", a
//                    missing (NULL) string, a long one, a start left open; the
//                    summary has drops by cause.
//   functions.trace  golden-host, 300 s later: function probes. work in
//                    /opt/demo/bin/app recursing to depth 3 on thread 600
//                    (uprobe:work, uretprobe:work), once on thread 601, a
//                    return whose call began before the recording, an entry
//                    that never returns; a work in another file
//                    (/opt/demo/lib/libwork.so); legacy, a uprobe pair named
//                    as files before 1.2 named them (provider = the file's
//                    base name); a C++ method ns::Server::handle(int).
//   named.trace      golden-host, 300 s later: app:begin(id, size),
//                    app:end(status, id), app:partial(arg0, value, arg2) with
//                    argument names (format 1.2), "id" at different positions.
// Times below are in microseconds after the recording start (kStart).
//
// usage: make_golden_traces DIR
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "formats/trace_writer.h"

namespace fmt = usdt::format;

namespace {

constexpr uint64_t kStart = 1000000000000ull;           // CLOCK_MONOTONIC, 1000 s
constexpr uint64_t kRealStart = 1767225600000000000ull;  // 2026-01-01 00:00:00 UTC
constexpr uint64_t kUs = 1000;

fmt::ArgDescriptor arg(const char* spec, uint8_t size, bool is_signed, bool sampled = true) {
  fmt::ArgDescriptor d;
  d.spec = spec;
  d.size = size;
  d.is_signed = is_signed;
  d.location = sampled ? usdt::ArgLocation::reg : usdt::ArgLocation::memory;
  d.source = sampled ? usdt::ArgSource::sampled_register : usdt::ArgSource::not_in_sample;
  return d;
}

fmt::ProbeSite site(uint32_t id, const char* name, std::vector<fmt::ArgDescriptor> args) {
  fmt::ProbeSite s;
  s.id = id;
  s.kind = fmt::ProbeKind::usdt;
  s.path = "/opt/demo/bin/demo";
  s.build_id = "0123456789abcdef";
  s.provider = "demo";
  s.name = name;
  s.file_offset = 0x1100 + id * 0x10;
  s.args = std::move(args);
  return s;
}

std::vector<fmt::ProbeSite> demo_sites() {
  return {site(0, "req_start", {arg("8@%rdi", 8, false), arg("-4@%esi", 4, true)}),
          site(1, "req_done", {arg("8@%rdi", 8, false)}),
          site(2, "tick", {arg("8@%rax", 8, false), arg("8@counter(%rip)", 8, false, false)}),
          site(3, "never", {})};
}

fmt::TraceMetadata metadata(const char* host, uint64_t mono, uint64_t real) {
  fmt::TraceMetadata m;
  m.hostname = host;
  m.kernel_release = "6.18.0-golden";
  m.arch = "x86_64";
  m.page_size = 4096;
  m.command_line = "usdt-record -e demo:* -o golden.trace -- ./demo";
  m.recorder_version = "0.1.0";
  m.start_monotonic_ns = mono;
  m.start_realtime_ns = real;
  m.cpus = {0, 1};  // as the recorder lists the CPUs it read (format 1.6)
  return m;
}

struct Ev {
  uint64_t us;
  uint32_t pid, tid, cpu, site;
  std::vector<long long> args;  // kMissing = not recorded
};
constexpr long long kMissing = -999999;

fmt::Event to_event(const Ev& e, uint64_t start) {
  fmt::Event out;
  out.time_ns = start + e.us * kUs;
  out.pid = e.pid;
  out.tid = e.tid;
  out.cpu = e.cpu;
  out.site_id = e.site;
  out.arg_count = static_cast<uint8_t>(e.args.size());
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (e.args[i] == kMissing) {
      out.missing_mask |= static_cast<uint16_t>(1u << i);
    } else {
      out.args[i] = static_cast<uint64_t>(e.args[i]);
    }
  }
  return out;
}

fmt::ProcessEvent proc(uint64_t us, fmt::ProcessEventKind kind, uint32_t pid, uint32_t tid, const char* comm,
                       uint32_t ppid = 0, uint32_t ptid = 0) {
  fmt::ProcessEvent p;
  p.time_ns = kStart + us * kUs;
  p.kind = kind;
  p.pid = pid;
  p.tid = tid;
  p.parent_pid = ppid;
  p.parent_tid = ptid;
  p.comm = comm;
  return p;
}

bool check(const usdt::Status& s) {
  if (!s) std::fprintf(stderr, "make_golden_traces: %s\n", s.error().message().c_str());
  return s.ok();
}

int write_golden(const std::string& dir) {
  // CPU 0: server thread 101 and the worker 300. CPU 1: server thread 102 and the client 200.
  std::vector<Ev> cpu0 = {
      {100, 300, 300, 0, 2, {1, kMissing}},
      {1000, 100, 101, 0, 0, {1, 100}},
      {1500, 100, 101, 0, 1, {1}},          // id 1: 500 us
      {2000, 100, 101, 0, 0, {2, 200}},
      {2100, 100, 101, 0, 0, {3, -1}},      // nested in id 2
      {2400, 100, 101, 0, 1, {3}},          // id 3: 300 us
      {3000, 100, 101, 0, 1, {2}},          // id 2: 1000 us
      {3500, 300, 300, 0, 2, {2, kMissing}},
      {4800, 100, 101, 0, 1, {5}},          // id 5 started on tid 102: 800 us by arg0, unmatched by tid
      {6000, 300, 300, 0, 2, {3, kMissing}},
      {9500, 300, 300, 0, 2, {4, kMissing}},
  };
  std::vector<Ev> cpu1 = {
      {2200, 100, 102, 1, 0, {4, 50}},
      {2250, 100, 102, 1, 1, {4}},          // id 4: 50 us
      {4000, 100, 102, 1, 0, {5, 500}},     // id 5: its end comes on tid 101
      {5000, 200, 200, 1, 0, {6, 10}},
      {7000, 200, 200, 1, 1, {6}},          // id 6: 2000 us
      {8000, 200, 200, 1, 1, {99}},         // end without start
      {9000, 200, 200, 1, 0, {7, 70}},      // start without end
  };
  fmt::WriterOptions options;
  options.chunk_bytes = 160;  // a few events per chunk
  std::string path = dir + "/golden.trace";
  auto w = fmt::TraceWriter::create(path, metadata("golden-host", kStart, kRealStart), demo_sites(), options);
  if (!w) {
    std::fprintf(stderr, "make_golden_traces: %s\n", w.error().message().c_str());
    return 1;
  }
  using K = fmt::ProcessEventKind;
  for (const auto& p : {proc(0, K::comm, 100, 101, "server"), proc(0, K::comm, 100, 100, "server"),
                        proc(0, K::comm, 200, 200, "client"), proc(0, K::comm, 300, 300, "sh"),
                        proc(50, K::exec, 300, 300, "worker"), proc(1800, K::fork, 100, 102, "server", 100, 101),
                        proc(1900, K::comm, 100, 102, "server-io")}) {
    if (!check(w->append(p))) return 1;
  }
  fmt::TraceSummary summary;
  summary.end_monotonic_ns = kStart + 10000 * kUs;
  summary.events_per_site.assign(4, 0);
  summary.lost_per_site.assign(4, 0);
  for (const Ev& e : cpu0) {
    if (!check(w->append(to_event(e, kStart)))) return 1;
    ++summary.events_per_site[e.site];
  }
  if (!check(w->flush())) return 1;
  uint64_t cut = w->bytes_written() + 24;  // inside the next block
  for (const Ev& e : cpu1) {
    if (!check(w->append(to_event(e, kStart)))) return 1;
    ++summary.events_per_site[e.site];
  }
  fmt::LostEvent lost;
  lost.time_begin_ns = kStart + 6500 * kUs;
  lost.time_end_ns = kStart + 6600 * kUs;
  lost.cpu = 1;
  lost.site_id = 2;
  lost.count = 3;
  if (!check(w->append(lost))) return 1;
  lost.time_begin_ns = kStart + 8500 * kUs;
  lost.time_end_ns = kStart + 8700 * kUs;
  lost.cpu = 0;
  lost.site_id = fmt::kNoSite;
  lost.count = 2;
  if (!check(w->append(lost))) return 1;
  summary.events = cpu0.size() + cpu1.size();
  summary.lost = 5;
  summary.lost_per_site[2] = 3;
  if (!check(w->finish(summary))) return 1;

  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (cut >= bytes.size()) {
    std::fprintf(stderr, "make_golden_traces: the cut %llu is past the end\n", static_cast<unsigned long long>(cut));
    return 1;
  }
  std::ofstream(dir + "/truncated.trace", std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(cut));
  // corrupted.trace: one byte flipped inside the first block after the CPU 0
  // batch; the reader skips that chunk (its checksum fails) and goes on.
  std::string corrupted = bytes;
  corrupted[cut + 16] = static_cast<char>(corrupted[cut + 16] ^ 0x5a);
  std::ofstream(dir + "/corrupted.trace", std::ios::binary).write(corrupted.data(),
                                                                  static_cast<std::streamsize>(corrupted.size()));
  return 0;
}

int write_other_host(const std::string& dir) {
  // Same wall-clock start, monotonic clock 4000 s ahead; pid 100 here is
  // another process than golden-host's pid 100.
  uint64_t start = kStart + 4000000000000ull;
  auto w = fmt::TraceWriter::create(dir + "/other_host.trace", metadata("golden-host-b", start, kRealStart + 1000 * kUs),
                                    demo_sites());
  if (!w) {
    std::fprintf(stderr, "make_golden_traces: %s\n", w.error().message().c_str());
    return 1;
  }
  fmt::ProcessEvent p = proc(0, fmt::ProcessEventKind::comm, 100, 100, "remote");
  p.time_ns = start;
  if (!check(w->append(p))) return 1;
  // At +1200/+1300 us of its own start, i.e. +2200/+2300 us on golden-host's timeline.
  if (!check(w->append(to_event({1200, 100, 100, 0, 0, {42, 1}}, start)))) return 1;
  if (!check(w->append(to_event({1300, 100, 100, 0, 1, {42}}, start)))) return 1;
  fmt::TraceSummary summary;
  summary.end_monotonic_ns = start + 2000 * kUs;
  summary.events = 2;
  summary.events_per_site = {1, 1, 0, 0};
  summary.lost_per_site = {0, 0, 0, 0};
  return check(w->finish(summary)) ? 0 : 1;
}

int write_requests(const std::string& dir) {
  uint64_t start = kStart + 100000000000ull;  // 100 s after golden.trace
  auto w = fmt::TraceWriter::create(dir + "/requests.trace", metadata("golden-host", start, kRealStart + 100000000000ull),
                                    demo_sites());
  if (!w) {
    std::fprintf(stderr, "make_golden_traces: %s\n", w.error().message().c_str());
    return 1;
  }
  fmt::ProcessEvent p = proc(0, fmt::ProcessEventKind::comm, 400, 401, "proxy");
  p.time_ns = start;
  if (!check(w->append(p))) return 1;
  // Requests 1 and 2 on thread 401 overlap without nesting; request 3 ends
  // on another thread.
  for (const Ev& e : std::vector<Ev>{{100, 400, 401, 0, 0, {1, 10}},
                                     {200, 400, 401, 0, 0, {2, 20}},
                                     {300, 400, 401, 0, 1, {1}},
                                     {400, 400, 401, 0, 1, {2}},
                                     {500, 400, 401, 0, 0, {3, 30}},
                                     {600, 400, 402, 1, 1, {3}}}) {
    if (!check(w->append(to_event(e, start)))) return 1;
  }
  fmt::TraceSummary summary;
  summary.end_monotonic_ns = start + 1000 * kUs;
  summary.events = 6;
  summary.events_per_site = {3, 3, 0, 0};
  summary.lost_per_site = {0, 0, 0, 0};
  return check(w->finish(summary)) ? 0 : 1;
}

fmt::ArgDescriptor string_arg(const char* spec) {
  fmt::ArgDescriptor d = arg(spec, 8, false);
  d.is_string = true;
  d.source = usdt::ArgSource::kernel_read;
  return d;
}

int write_strings(const std::string& dir) {
  uint64_t start = kStart + 200000000000ull;  // 200 s after golden.trace
  std::vector<fmt::ProbeSite> sites = {
      site(0, "query__start", {string_arg("8@%rdi"), arg("-4@%esi", 4, true)}),
      site(1, "query__done", {string_arg("8@%rdi")})};
  for (fmt::ProbeSite& s : sites) {
    s.path = "/usr/lib/postgresql/bin/postgres";
    s.provider = "postgresql";
  }
  auto w = fmt::TraceWriter::create(
      dir + "/strings.trace", metadata("golden-host", start, kRealStart + 200000000000ull), sites);
  if (!w) {
    std::fprintf(stderr, "make_golden_traces: %s\n", w.error().message().c_str());
    return 1;
  }
  using K = fmt::ProcessEventKind;
  for (fmt::ProcessEvent p :
       {proc(0, K::comm, 500, 500, "postgres"), proc(0, K::comm, 501, 501, "postgres")}) {
    p.time_ns += start - kStart;
    if (!check(w->append(p))) return 1;
  }
  struct Query {
    uint64_t us;
    uint32_t tid, site;
    const char* text;  // nullptr: the string could not be read
    size_t size;
    bool truncated;
  };
  const std::string quoted = "UPDATE t SET note = 'a,\"b\"'\n\tWHERE id = 1 \x01";
  const std::string invalid = "caf\xe9 \xff";
  const std::string cut = "SELECT * FROM pgbench_accounts WHERE aid = ";
  const std::string utf8 = "SELECT 'caf\xc3\xa9'";
  const std::string longer =
      "SELECT abalance FROM pgbench_accounts WHERE aid = 12345 AND bid = 1 ORDER BY 1";
  const std::vector<Query> queries = {
      {100, 500, 0, "SELECT 1", 8, false},
      {300, 500, 1, "SELECT 1", 8, false},
      {400, 501, 0, "SELECT 1", 8, false},
      {500, 501, 1, "SELECT 1", 8, false},
      {600, 500, 0, "", 0, false},
      {650, 500, 1, "", 0, false},
      {700, 500, 0, cut.data(), cut.size(), true},
      {800, 501, 0, invalid.data(), invalid.size(), false},
      {900, 501, 1, invalid.data(), invalid.size(), false},
      {1000, 501, 0, quoted.data(), quoted.size(), false},
      {1400, 501, 1, quoted.data(), quoted.size(), false},
      {1700, 500, 1, cut.data(), cut.size(), true},
      {2000, 500, 0, nullptr, 0, false},
      {2100, 500, 1, nullptr, 0, false},
      {2200, 501, 0, "null", 4, false},
      {2250, 501, 1, "null", 4, false},
      {2300, 500, 0, utf8.data(), utf8.size(), false},
      {2600, 500, 1, utf8.data(), utf8.size(), false},
      {2700, 501, 0, longer.data(), longer.size(), false},
      {3000, 501, 1, longer.data(), longer.size(), false},
      {3500, 500, 0, "VACUUM", 6, false},  // never done
  };
  fmt::TraceSummary summary;
  summary.events_per_site = {0, 0};
  summary.lost_per_site = {0, 0};
  for (const Query& q : queries) {
    fmt::StringArg text{std::string_view(q.text == nullptr ? "" : q.text, q.size), q.truncated};
    fmt::Event e;
    e.time_ns = start + q.us * kUs;
    e.pid = q.tid;
    e.tid = q.tid;
    e.cpu = q.tid == 500 ? 0 : 1;
    e.site_id = q.site;
    e.arg_count = q.site == 0 ? 2 : 1;
    e.string_mask = 1;
    if (q.text == nullptr) {
      e.missing_mask = 1;
    } else {
      e.args[0] = reinterpret_cast<uintptr_t>(&text);
    }
    if (q.site == 0) e.args[1] = static_cast<uint64_t>(int64_t{-7} + q.tid % 2);
    if (!check(w->append(e))) return 1;
    ++summary.events_per_site[q.site];
    ++summary.events;
  }
  summary.end_monotonic_ns = start + 4000 * kUs;
  summary.dropped = {{"malformed", 3}, {"unknown_event_id", 0}, {"foreign_process", 120}};
  return check(w->finish(summary)) ? 0 : 1;
}

int write_functions(const std::string& dir) {
  const uint64_t start = kStart + 300000000000ull;
  auto function = [](uint32_t id, fmt::ProbeKind kind, const char* path, const char* provider,
                     const char* name, std::vector<fmt::ArgDescriptor> args) {
    fmt::ProbeSite s;
    s.id = id;
    s.kind = kind;
    s.path = path;
    s.provider = provider;
    s.name = name;
    s.file_offset = 0x1130 + id * 0x20;
    s.args = std::move(args);
    return s;
  };
  const auto U = fmt::ProbeKind::uprobe;
  const auto R = fmt::ProbeKind::uretprobe;
  const char* app = "/opt/demo/bin/app";
  std::vector<fmt::ProbeSite> sites = {
      function(0, U, app, "uprobe", "work", {arg("%di", 8, false), arg("%si", 8, false)}),
      function(1, R, app, "uretprobe", "work", {arg("%ax", 8, false)}),
      function(2, U, "/opt/demo/lib/libwork.so", "uprobe", "work", {arg("%di", 8, false)}),
      function(3, U, "/opt/demo/lib/libold.so", "libold.so", "legacy", {arg("%di", 8, false)}),
      function(4, R, "/opt/demo/lib/libold.so", "libold.so", "legacy", {arg("%ax", 8, false)}),
      function(5, U, app, "uprobe", "ns::Server::handle(int)", {arg("%di", 8, false), arg("%si", 8, true)}),
  };
  auto w = fmt::TraceWriter::create(
      dir + "/functions.trace", metadata("golden-host", start, kRealStart + 300000000000ull), sites);
  if (!w) {
    std::fprintf(stderr, "make_golden_traces: %s\n", w.error().message().c_str());
    return 1;
  }
  using K = fmt::ProcessEventKind;
  for (fmt::ProcessEvent p : {proc(0, K::comm, 600, 600, "app"), proc(0, K::comm, 600, 601, "app-worker")}) {
    p.time_ns += start - kStart;
    if (!check(w->append(p))) return 1;
  }
  std::vector<Ev> events = {
      {50, 600, 600, 0, 1, {7}},        // returns from a call made before the recording
      {100, 600, 600, 0, 0, {2, 0}},    // work(2)
      {110, 600, 600, 0, 0, {1, 0}},    //   work(1)
      {120, 600, 600, 0, 0, {0, 0}},    //     work(0)
      {150, 600, 601, 1, 0, {1, 0}},    // thread 601: work(1)
      {200, 600, 600, 0, 1, {0}},       //     work(0) returns: 80 us
      {230, 600, 600, 0, 1, {1}},       //   work(1) returns: 120 us
      {250, 600, 601, 1, 1, {1}},       // thread 601: 100 us
      {300, 600, 600, 0, 1, {2}},       // work(2) returns: 200 us
      {400, 600, 600, 0, 2, {5}},       // libwork.so's work
      {500, 600, 600, 0, 3, {4}},       // legacy entry
      {560, 600, 600, 0, 4, {8}},       // legacy return: 60 us
      {600, 600, 600, 0, 5, {1, -3}},   // ns::Server::handle(int)
      {700, 600, 600, 0, 0, {9, 0}},    // work(9) never returns
  };
  fmt::TraceSummary summary;
  summary.events_per_site.assign(sites.size(), 0);
  summary.lost_per_site.assign(sites.size(), 0);
  for (const Ev& e : events) {
    if (!check(w->append(to_event(e, start)))) return 1;
    ++summary.events_per_site[e.site];
    ++summary.events;
  }
  summary.end_monotonic_ns = start + 1000 * kUs;
  return check(w->finish(summary)) ? 0 : 1;
}

fmt::ArgDescriptor named_arg(const char* spec, uint8_t size, bool is_signed, const char* name) {
  fmt::ArgDescriptor d = arg(spec, size, is_signed);
  d.name = name;
  return d;
}

int write_named(const std::string& dir) {
  uint64_t start = kStart + 300000000000ull;  // 300 s after golden.trace
  // "id" is argument 0 of app:begin and argument 1 of app:end. app:partial
  // names only its argument 1; the name of its argument 2 breaks the rule
  // (a space) and the reader must drop it.
  std::vector<fmt::ProbeSite> sites = {
      site(0, "begin", {named_arg("8@%rdi", 8, false, "id"), named_arg("-4@%esi", 4, true, "size")}),
      site(1, "end", {named_arg("-4@%edi", 4, true, "status"), named_arg("8@%rsi", 8, false, "id")}),
      site(2, "partial",
           {arg("4@%edi", 4, false), named_arg("-8@%rsi", 8, true, "value"), named_arg("4@%edx", 4, false, "bad name")})};
  for (fmt::ProbeSite& s : sites) s.provider = "app";
  auto w = fmt::TraceWriter::create(dir + "/named.trace",
                                    metadata("golden-host", start, kRealStart + 300000000000ull), sites);
  if (!w) {
    std::fprintf(stderr, "make_golden_traces: %s\n", w.error().message().c_str());
    return 1;
  }
  fmt::ProcessEvent p = proc(0, fmt::ProcessEventKind::comm, 600, 600, "app");
  p.time_ns = start;
  if (!check(w->append(p))) return 1;
  // Request 1 starts on thread 600 and ends on 601; request 2 the other way.
  for (const Ev& e : std::vector<Ev>{{100, 600, 600, 0, 0, {1, 10}},
                                     {150, 600, 601, 1, 0, {2, 20}},
                                     {300, 600, 600, 0, 1, {0, 2}},
                                     {400, 600, 601, 1, 1, {-1, 1}},
                                     {500, 600, 600, 0, 2, {7, -3, 9}}}) {
    if (!check(w->append(to_event(e, start)))) return 1;
  }
  fmt::TraceSummary summary;
  summary.end_monotonic_ns = start + 1000 * kUs;
  summary.events = 5;
  summary.events_per_site = {2, 2, 1};
  summary.lost_per_site = {0, 0, 0};
  return check(w->finish(summary)) ? 0 : 1;
}

// stacks.trace (format 1.3): call stacks of one process whose plugin is
// unloaded and another mapped at the same address halfway through, so the
// same frame address names two functions; a frame without a symbol, one
// without a mapping and a truncated stack.
int write_stacks(const std::string& dir) {
  const uint64_t start = kStart + 600000000000ull;
  std::vector<fmt::ProbeSite> sites = {site(0, "req_start", {arg("8@%rdi", 8, false)}),
                                       site(1, "req_done", {arg("8@%rdi", 8, false)})};
  auto w = fmt::TraceWriter::create(dir + "/stacks.trace",
                                    metadata("golden-host", start, kRealStart + 600000000000ull), sites);
  if (!w) {
    std::fprintf(stderr, "make_golden_traces: %s\n", w.error().message().c_str());
    return 1;
  }
  // The server binary (build-id aa11), a stripped library known by path only,
  // and two plugins mapped in turn at 0x7f0000100000.
  fmt::ObjectTable server{"aa11", "/opt/app/server",
                          {{0x1000, 0x100, "main"}, {0x1100, 0x80, "_ZN2ns6Server6handleEi"}, {0x1200, 0x40, "work"}}};
  fmt::ObjectTable libz{"", "/usr/lib/libz.so.1", {{0x2000, 0x100, "deflate"}}};
  fmt::ObjectTable plugin1{"cc33", "/opt/app/plugin1.so", {{0x500, 0x100, "plugin_one"}}};
  fmt::ObjectTable plugin2{"dd44", "/opt/app/plugin2.so", {{0x500, 0x100, "plugin_two"}}};
  for (const fmt::ObjectTable* o : {&server, &libz, &plugin1, &plugin2}) {
    if (!check(w->add_object(*o))) return 1;
  }
  auto mmap = [&](uint64_t us, uint64_t address, uint64_t length, uint64_t offset, const char* build_id,
                  const char* path) {
    fmt::ProcessEvent p = proc(0, fmt::ProcessEventKind::mmap, 700, 700, "");
    p.time_ns = start + us * kUs;
    p.map_address = address;
    p.map_length = length;
    p.map_file_offset = offset;
    p.build_id = build_id;
    p.path = path;
    return p;
  };
  fmt::ProcessEvent comm = proc(0, fmt::ProcessEventKind::comm, 700, 700, "server");
  comm.time_ns = start;
  for (const fmt::ProcessEvent& p :
       {comm, mmap(0, 0x400000, 0x10000, 0, "aa11", "/opt/app/server"),
        mmap(0, 0x7f0000000000, 0x10000, 0x1000, "", "/usr/lib/libz.so.1"),
        mmap(0, 0x7f0000100000, 0x1000, 0, "cc33", "/opt/app/plugin1.so")}) {
    if (!check(w->append(p))) return 1;
  }
  // Frames: ip at the hit, then return addresses (one past the call).
  const std::vector<uint64_t> via_handle = {0x401210, 0x401141, 0x401011};
  const std::vector<uint64_t> via_plugin = {0x401210, 0x7f0000100511, 0x401021};
  const std::vector<uint64_t> via_libz = {0x7f0000001010, 0x7f0000003001, 0x401031};
  const std::vector<uint64_t> unmapped = {0x401210, 0x12345678};
  struct StackEv {
    uint64_t us;
    uint32_t site;
    uint64_t id;
    const std::vector<uint64_t>* stack;
    bool truncated;
  };
  std::vector<StackEv> events = {
      {100, 0, 1, &via_handle, false}, {150, 1, 1, &via_handle, false}, {200, 0, 2, &via_plugin, false},
      {260, 1, 2, &via_plugin, false}, {300, 0, 3, &via_handle, false}, {320, 1, 3, &via_libz, false},
      {400, 0, 4, &via_plugin, false},  // after plugin2 replaced plugin1 at 350 us
      {480, 1, 4, &unmapped, true},     {500, 0, 5, nullptr, false},
  };
  fmt::TraceSummary summary;
  summary.events_per_site.assign(sites.size(), 0);
  summary.lost_per_site.assign(sites.size(), 0);
  bool replaced = false;
  for (const StackEv& e : events) {
    if (e.us > 350 && !replaced) {
      if (!check(w->append(mmap(350, 0x7f0000100000, 0x1000, 0, "dd44", "/opt/app/plugin2.so")))) return 1;
      replaced = true;
    }
    fmt::Event out = to_event({e.us, 700, 700, 0, e.site, {static_cast<long long>(e.id)}}, start);
    if (e.stack) {
      out.stack = e.stack->data();
      out.stack_depth = static_cast<uint16_t>(e.stack->size());
      out.stack_truncated = e.truncated;
    }
    if (!check(w->append(out))) return 1;
    ++summary.events_per_site[e.site];
    ++summary.events;
  }
  summary.end_monotonic_ns = start + 1000 * kUs;
  return check(w->finish(summary)) ? 0 : 1;
}

// Other names for golden.trace and a FIFO, for the input checks.
int write_other_names(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::copy_file(dir + "/golden.trace", dir + "/golden_copy.trace", fs::copy_options::overwrite_existing, ec);
  for (const char* name : {"/golden_hardlink.trace", "/golden_link.trace", "/fifo.trace"}) {
    fs::remove(dir + name, ec);
  }
  if (!ec) fs::create_hard_link(dir + "/golden.trace", dir + "/golden_hardlink.trace", ec);
  if (!ec) fs::create_symlink("golden.trace", dir + "/golden_link.trace", ec);
  if (ec) {
    std::fprintf(stderr, "make_golden_traces: %s\n", ec.message().c_str());
    return 1;
  }
  if (::mkfifo((dir + "/fifo.trace").c_str(), 0600) != 0) {
    std::perror("make_golden_traces: mkfifo");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_golden_traces DIR\n");
    return 2;
  }
  std::string dir = argv[1];
  if (int rc = write_golden(dir); rc != 0) return rc;
  if (int rc = write_requests(dir); rc != 0) return rc;
  if (int rc = write_strings(dir); rc != 0) return rc;
  if (int rc = write_functions(dir); rc != 0) return rc;
  if (int rc = write_named(dir); rc != 0) return rc;
  if (int rc = write_stacks(dir); rc != 0) return rc;
  if (int rc = write_other_names(dir); rc != 0) return rc;
  return write_other_host(dir);
}
