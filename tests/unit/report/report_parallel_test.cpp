// usdt-report with -j N against -j 1 on traces of many chunks: every command
// and format prints the same bytes; start/end pairs that span chunk
// boundaries are all matched; --since/--until equal reading everything and
// filtering; the same recording given twice counts once; hosts label events.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "tests/unit/support/format_test_util.h"
#include "formats/trace_writer.h"
#include "report/report_main.h"

using namespace usdt::format;
using namespace usdt::format::test;

namespace {

struct Output {
  int rc = 0;
  std::string out, err;
};

Output run(std::vector<std::string> args) {
  args.insert(args.begin(), "usdt-report");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  Output o;
  char *out_buf = nullptr, *err_buf = nullptr;
  size_t out_len = 0, err_len = 0;
  std::FILE* out = open_memstream(&out_buf, &out_len);
  std::FILE* err = open_memstream(&err_buf, &err_len);
  o.rc = usdt::report::report_main(static_cast<int>(argv.size()), argv.data(), out, err);
  std::fclose(out);
  std::fclose(err);
  o.out.assign(out_buf, out_len);
  o.err.assign(err_buf, err_len);
  std::free(out_buf);
  std::free(err_buf);
  return o;
}

// An export's file and stderr (the file's name in it replaced by "OUT").
Output run_export(std::vector<std::string> args, const char* jobs) {
  TempPath out;
  args.insert(args.begin(), "export");
  args.insert(args.end(), {"-o", out.str(), "-j", jobs});
  Output o = run(args);
  o.out = read_file_bytes(out.str());
  for (size_t at = o.err.find(out.str()); at != std::string::npos; at = o.err.find(out.str()))
    o.err.replace(at, out.str().size(), "OUT");
  return o;
}

std::vector<ProbeSite> pair_sites() {
  std::vector<ProbeSite> sites(3);
  const char* names[] = {"start", "done", "tick"};
  for (uint32_t i = 0; i < 3; ++i) {
    sites[i].id = i;
    sites[i].path = "/usr/bin/server";
    sites[i].provider = "srv";
    sites[i].name = names[i];
    ArgDescriptor a;
    a.spec = "8@%rdi";
    a.location = usdt::ArgLocation::reg;
    a.source = usdt::ArgSource::sampled_register;
    sites[i].args = {a, a};
  }
  return sites;
}

// Requests on 4 threads, each lasting several chunks' worth of events
// (chunks of about 60 events), so that most pairs span chunk boundaries;
// `pairs` complete requests in all. Events reach the writer a little out
// of order, as per-CPU buffers deliver them, so chunks overlap in time.
void write_pairs(const std::string& path, const TraceMetadata& meta, int pairs) {
  WriterOptions opt;
  opt.chunk_bytes = 512;
  opt.flush_interval_ms = 0;
  auto w = TraceWriter::create(path, meta, pair_sites(), opt);
  REQUIRE(w.ok());
  std::mt19937_64 rng(5);
  uint64_t now = meta.start_monotonic_ns + 1000;
  for (uint32_t t = 0; t < 4; ++t) {
    REQUIRE(w->append(ProcessEvent{now, ProcessEventKind::comm, 50, 50 + t, 0, 0, "server"}));
  }
  std::vector<Event> pending;
  int done = 0, started = 0;
  bool open[4] = {};
  uint64_t id = 0;
  while (done < pairs) {
    uint64_t r = rng();
    uint32_t t = static_cast<uint32_t>(r % 4);
    now += 10 + (r >> 8) % 90;
    Event e;
    e.time_ns = now;
    e.pid = 50;
    e.tid = 50 + t;
    e.cpu = t % 2;
    e.arg_count = 2;
    if ((r >> 16) % 8 != 0) {
      e.site_id = 2;  // ticks between the start and the end
    } else if (!open[t] && started < pairs) {
      e.site_id = 0;
      e.args[0] = ++id;
      open[t] = true;
      ++started;
    } else if (open[t]) {
      e.site_id = 1;
      open[t] = false;
      ++done;
    } else {
      e.site_id = 2;
    }
    e.args[1] = (r >> 24) % 100;
    pending.push_back(e);
    if (pending.size() == 7) {
      std::swap(pending[1], pending[4]);  // a little disorder
      for (const Event& p : pending) REQUIRE(w->append(p));
      pending.clear();
    }
  }
  for (const Event& p : pending) REQUIRE(w->append(p));
  REQUIRE(w->finish(TraceSummary{}));
}

TraceMetadata meta_of(const std::string& host, uint64_t mono, uint64_t real) {
  TraceMetadata m = sample_metadata();
  m.hostname = host;
  m.start_monotonic_ns = mono;
  m.start_realtime_ns = real;
  return m;
}

const std::vector<std::vector<std::string>>& commands() {
  static const std::vector<std::vector<std::string>> c = {
      {"summary"},
      {"summary", "--format", "json"},
      {"summary", "--by", "host", "--format", "json"},
      {"dump"},
      {"dump", "--format", "jsonl"},
      {"dump", "--format", "csv"},
      {"dump", "--probe", "srv:start", "--since", "100us", "--until", "300us"},
      {"latency", "--start", "srv:start", "--end", "srv:done", "--format", "json"},
      {"latency", "--start", "srv:start", "--end", "srv:done", "--key", "arg0", "--top", "5"},
      {"latency", "--start", "srv:start", "--end", "srv:done", "--by", "host"},
      {"latency", "--start", "srv:start", "--end", "srv:done"},
      {"latency", "--start", "srv:start", "--end", "srv:done", "--by", "tid", "--format", "json"},
      {"latency", "--start", "srv:start", "--end", "srv:done", "--key", "arg0", "--by", "arg1"},
      {"latency", "--start", "srv:start", "--end", "srv:done", "--key", "arg0", "--format", "json"},
      {"latency", "--start", "srv:start", "--end", "srv:done", "--since", "150us", "--until",
       "700us"},
      {"summary", "--tid", "51", "--format", "json"},
      {"summary", "--since", "150us"},
      {"hist", "--probe", "srv:tick", "--arg", "1", "--by", "tid"},
      {"hist", "--probe", "srv:*", "--arg", "1", "--format", "json"},
      {"hist", "--probe", "srv:start", "--arg", "0", "--linear", "0,400,50"},
  };
  return c;
}

}  // namespace

TEST_CASE("every command prints the same bytes with -j 1 and -j N", "[report][parallel]") {
  TempPath a, b;
  write_pairs(a.str(), meta_of("alpha", 1'000'000, 1'700'000'000'000'000'000), 400);
  write_pairs(b.str(), meta_of("beta", 9'000'000, 1'700'000'000'000'050'000), 300);
  for (const auto& files : {std::vector<std::string>{a.str()},
                            std::vector<std::string>{a.str(), b.str()}}) {
    for (std::vector<std::string> cmd : commands()) {
      cmd.insert(cmd.end(), files.begin(), files.end());
      std::vector<std::string> serial = cmd, parallel = cmd;
      serial.insert(serial.end(), {"-j", "1"});
      parallel.insert(parallel.end(), {"-j", "3"});
      Output s = run(serial), p = run(parallel);
      INFO(cmd[0] << " " << cmd[1] << " on " << files.size() << " file(s)");
      REQUIRE(s.rc == 0);
      REQUIRE(!s.out.empty());
      REQUIRE(s.out == p.out);
      REQUIRE(s.err == p.err);
    }
  }
}

TEST_CASE("pairs that span chunk boundaries are all matched", "[report][parallel]") {
  TempPath a;
  write_pairs(a.str(), meta_of("alpha", 1'000'000, 1'700'000'000'000'000'000), 400);
  for (const char* jobs : {"1", "2", "4"}) {
    Output o = run({"latency", "--start", "srv:start", "--end", "srv:done", "--format", "json",
                    "-j", jobs, a.str()});
    REQUIRE(o.rc == 0);
    REQUIRE(o.out.find("\"count\":400,") != std::string::npos);
    REQUIRE(o.out.find("\"unmatched_starts\":0,\"unmatched_ends\":0") != std::string::npos);
  }
}

TEST_CASE("--since/--until read the same events as filtering everything", "[report][parallel]") {
  TempPath a;
  write_pairs(a.str(), meta_of("alpha", 1'000'000, 1'700'000'000'000'000'000), 400);
  // The window's events, from a dump of everything: times are seconds from
  // the start, after "comm pid/tid [cpu] ".
  Output all = run({"dump", "-j", "1", a.str()});
  REQUIRE(all.rc == 0);
  std::string expected;
  size_t at = 0;
  while (at < all.out.size()) {
    size_t end = all.out.find('\n', at);
    std::string line = all.out.substr(at, end - at + 1);
    at = end + 1;
    size_t cpu_end = line.find("] ");
    REQUIRE(cpu_end != std::string::npos);
    double t = std::stod(line.substr(cpu_end + 2));
    if (t >= 0.000200 && t <= 0.000700) expected += line;
  }
  REQUIRE(!expected.empty());
  for (const char* jobs : {"1", "3"}) {
    Output w = run({"dump", "--since", "200us", "--until", "700us", "-j", jobs, a.str()});
    REQUIRE(w.rc == 0);
    REQUIRE(w.out == expected);
  }
}

TEST_CASE("the same recording twice is counted once, with a warning", "[report][parallel]") {
  TempPath a, copy, other;
  TraceMetadata m = meta_of("alpha", 1'000'000, 1'700'000'000'000'000'000);
  write_pairs(a.str(), m, 50);
  write_pairs(copy.str(), m, 50);  // the same bytes under another name
  Output once = run({"summary", "--format", "json", a.str()});
  Output twice = run({"summary", "--format", "json", a.str(), copy.str()});
  REQUIRE(twice.rc == 0);
  REQUIRE(twice.err.find("is the same recording as") != std::string::npos);
  REQUIRE(twice.out == once.out);  // the copy is left out entirely
  // Another recording of the same host that overlaps in time is merged.
  TraceMetadata later = m;
  later.start_monotonic_ns += 5000;
  later.start_realtime_ns += 5000;
  write_pairs(other.str(), later, 50);
  Output both = run({"dump", "--format", "jsonl", a.str(), other.str()});
  REQUIRE(both.err.empty());
  REQUIRE(both.out.find("\"host\"") == std::string::npos);  // one host: no labels
  Output dump_one = run({"dump", "--format", "jsonl", a.str()});
  REQUIRE(std::count(both.out.begin(), both.out.end(), '\n') >
          std::count(dump_one.out.begin(), dump_one.out.end(), '\n'));
}

TEST_CASE("events of several hosts carry their host", "[report][parallel]") {
  TempPath a, b;
  write_pairs(a.str(), meta_of("alpha", 1'000'000, 1'700'000'000'000'000'000), 20);
  write_pairs(b.str(), meta_of("beta", 9'000'000, 1'700'000'000'000'000'000), 20);
  Output o = run({"dump", "--format", "jsonl", a.str(), b.str()});
  REQUIRE(o.rc == 0);
  REQUIRE(o.out.find("\"host\":\"alpha\"") != std::string::npos);
  REQUIRE(o.out.find("\"host\":\"beta\"") != std::string::npos);
  Output l = run({"latency", "--start", "srv:start", "--end", "srv:done", "--by", "host", "--format",
                  "json", a.str(), b.str()});
  REQUIRE(l.out.find("{\"key\":\"alpha\",\"count\":20,") != std::string::npos);
  REQUIRE(l.out.find("{\"key\":\"beta\",\"count\":20,") != std::string::npos);
  Output s = run({"summary", "--by", "host", "--format", "json", a.str(), b.str()});
  REQUIRE(s.out.find("\"hosts\":[{\"host\":\"alpha\"") != std::string::npos);
}

namespace {

// A trace file of host alpha, started at 1 ms, in chunks of a few events.
TraceWriter small_chunk_writer(const std::string& path) {
  WriterOptions opt;
  opt.chunk_bytes = 512;
  opt.flush_interval_ms = 0;
  auto w = TraceWriter::create(path, meta_of("alpha", 1'000'000, 1'700'000'000'000'000'000),
                               pair_sites(), opt);
  REQUIRE(w.ok());
  return std::move(*w);
}

// A server whose process 60 is forked from 50 in the middle of the
// recording and named only by that fork: the name must reach events that a
// later segment reads.
void write_forking(const std::string& path) {
  TraceWriter w = small_chunk_writer(path);
  uint64_t now = 1'000'000 + 1000;  // the recording's start + 1 us
  REQUIRE(w.append(ProcessEvent{now, ProcessEventKind::comm, 50, 50, 0, 0, "server"}));
  for (int i = 0; i < 3000; ++i) {
    now += 50;
    if (i == 1500) REQUIRE(w.append(ProcessEvent{now, ProcessEventKind::fork, 60, 60, 50, 50, ""}));
    if (i == 2200)
      REQUIRE(w.append(ProcessEvent{now, ProcessEventKind::comm, 50, 50, 0, 0, "renamed"}));
    Event e;
    e.time_ns = now;
    e.pid = i > 1500 && i % 2 == 0 ? 60 : 50;
    e.tid = e.pid;
    e.site_id = 2;
    e.arg_count = 2;
    REQUIRE(w.append(e));
  }
  REQUIRE(w.finish(TraceSummary{}));
}

// Call stacks through a plugin that another replaces at the same address
// halfway, in chunks of a few events: the frames of the later segments are
// named from mappings mapped in an earlier one. pairs: the events are
// srv:start and srv:done in turn, of durations that vary, instead of ticks.
void write_stacked(const std::string& path, bool pairs = false) {
  TraceWriter w = small_chunk_writer(path);
  REQUIRE(w.add_object(
      ObjectTable{"aa11", "/opt/app/server", {{0x1000, 0x100, "main"}, {0x1200, 0x40, "work"}}}));
  REQUIRE(w.add_object(ObjectTable{"cc33", "/opt/app/plugin1.so", {{0x500, 0x100, "plugin_one"}}}));
  REQUIRE(w.add_object(ObjectTable{"dd44", "/opt/app/plugin2.so", {{0x500, 0x100, "plugin_two"}}}));
  uint64_t now = 1'000'000 + 1000;  // the recording's start + 1 us
  auto mmap = [&](uint64_t address, uint64_t length, const char* build_id, const char* file) {
    ProcessEvent p{now, ProcessEventKind::mmap, 50, 50, 0, 0, ""};
    p.map_address = address;
    p.map_length = length;
    p.build_id = build_id;
    p.path = file;
    return p;
  };
  REQUIRE(w.append(ProcessEvent{now, ProcessEventKind::comm, 50, 50, 0, 0, "server"}));
  REQUIRE(w.append(mmap(0x400000, 0x10000, "aa11", "/opt/app/server")));
  REQUIRE(w.append(mmap(0x7f0000100000, 0x1000, "cc33", "/opt/app/plugin1.so")));
  const std::vector<uint64_t> via_plugin = {0x401210, 0x7f0000100511, 0x401021};
  for (int i = 0; i < 3000; ++i) {
    now += 50;
    if (i == 1500) REQUIRE(w.append(mmap(0x7f0000100000, 0x1000, "dd44", "/opt/app/plugin2.so")));
    Event e;
    e.time_ns = now;
    e.pid = 50;
    e.tid = 50;
    e.site_id = pairs ? static_cast<uint32_t>(i % 2) : 2;
    if (pairs) now += static_cast<uint64_t>(i * 37 % 101);
    e.arg_count = 2;
    e.stack = via_plugin.data();
    e.stack_depth = static_cast<uint16_t>(via_plugin.size());
    REQUIRE(w.append(e));
  }
  REQUIRE(w.finish(TraceSummary{}));
}

// cmd on path with -j 1 and with -j jobs: the same exit code, output and
// messages (and the serial run succeeds).
void check_same_with_jobs(const std::vector<std::string>& cmd, const std::string& path,
                          const char* jobs) {
  std::vector<std::string> serial = cmd, parallel = cmd;
  serial.insert(serial.end(), {"-j", "1", path});
  parallel.insert(parallel.end(), {"-j", jobs, path});
  const Output s = run(serial), p = run(parallel);
  std::string words;
  for (const std::string& w : cmd) words += w + " ";
  INFO(words << "-j " << jobs);
  REQUIRE(s.rc == 0);
  CHECK(p.rc == s.rc);
  CHECK(p.out == s.out);
  CHECK(p.err == s.err);
}

}  // namespace

TEST_CASE("dump and stacks name every frame by the mappings of its time in every segment",
          "[report][parallel]") {
  TempPath a;
  write_stacked(a.str());
  for (const std::vector<std::string>& cmd : {std::vector<std::string>{"dump"},
                                              {"dump", "--format", "jsonl"},
                                              {"dump", "--format", "csv"},
                                              {"stacks"},
                                              {"stacks", "--format", "json"},
                                              {"stacks", "--folded"}}) {
    check_same_with_jobs(cmd, a.str(), "4");
  }
  // The slowest pairs' stacks, half of them named through each plugin.
  TempPath b;
  write_stacked(b.str(), true);
  for (const char* format : {"text", "json"}) {
    Output s = run({"latency", "--start", "srv:start", "--end", "srv:done", "--slowest", "12",
                    "--format", format, "-j", "1", b.str()});
    Output p = run({"latency", "--start", "srv:start", "--end", "srv:done", "--slowest", "12",
                    "--format", format, "-j", "4", b.str()});
    INFO(format);
    REQUIRE(s.rc == 0);
    CHECK(p.out == s.out);
    CHECK(p.err == s.err);
    CHECK(s.out.find("plugin_one") != std::string::npos);
    CHECK(s.out.find("plugin_two") != std::string::npos);
  }
  // Chrome's stack ids are numbered by first use over the whole file: the
  // segments' holes are filled in order, pairs' starts before their ends.
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"--format", "chrome", a.str()},
        {"--format", "chrome", "--start", "srv:start", "--end", "srv:done", b.str()},
        {"--format", "chrome", "--start", "srv:start", "--end", "srv:done", "--key", "arg0",
         b.str()}}) {
    const Output s = run_export(cmd, "1");
    INFO(cmd.size() << " words");
    REQUIRE(s.rc == 0);
    CHECK(s.out.find("\"sf\":") != std::string::npos);
    for (const char* jobs : {"2", "4"}) {
      const Output p = run_export(cmd, jobs);
      CHECK(p.out == s.out);
      CHECK(p.err == s.err);
    }
  }
  Output folded = run({"stacks", "--folded", "-j", "4", a.str()});
  CHECK(folded.out.find("srv:tick;main;plugin_one;work 1500\n") != std::string::npos);
  CHECK(folded.out.find("srv:tick;main;plugin_two;work 1500\n") != std::string::npos);
}

TEST_CASE("a process forked late is named in every segment", "[report][parallel]") {
  TempPath a;
  write_forking(a.str());
  Output s = run({"summary", "--format", "json", "-j", "1", a.str()});
  Output p = run({"summary", "--format", "json", "-j", "4", a.str()});
  REQUIRE(s.rc == 0);
  CHECK(p.out == s.out);
  CHECK(p.err == s.err);
  CHECK(s.out.find("{\"pid\":60,\"comm\":\"server\",\"events\":749}") != std::string::npos);
}

TEST_CASE("a dump names every thread as of its event in every segment", "[report][parallel]") {
  // Segments past the fork and the rename start from the process records
  // before them.
  TempPath a;
  write_forking(a.str());
  for (const char* format : {"text", "jsonl", "csv"}) {
    check_same_with_jobs({"dump", "--format", format}, a.str(), "4");
  }
  Output text = run({"dump", "-j", "4", a.str()});
  // Forked at event 1500, renamed at 2200: pid 60 keeps the name it was
  // forked with, pid 50's last lines carry the new one.
  CHECK(text.out.find("server 60/60 [") != std::string::npos);
  CHECK(text.out.find("renamed 50/50 [") != std::string::npos);
  const size_t last_line = text.out.rfind('\n', text.out.size() - 2);
  CHECK(text.out.find("renamed 50/50 [", last_line) != std::string::npos);
}

TEST_CASE("names and mappings carried from segment to segment are those of each time",
          "[report][parallel]") {
  // A rename and a new mapping every 400 events (in few enough chunks that
  // the commands cut the trace): every segment starts from a state its
  // thread carried from an earlier segment, advanced through the process
  // records in between (CarriedStates).
  TempPath a;
  {
    TraceWriter w = small_chunk_writer(a.str());
    REQUIRE(w.add_object(ObjectTable{"aa11", "/opt/app/server", {{0x1000, 0x100, "main"}}}));
    REQUIRE(w.add_object(ObjectTable{"bb22", "/opt/app/other", {{0x1000, 0x100, "other_main"}}}));
    uint64_t now = 1'000'000 + 1000;
    const std::vector<uint64_t> stack = {0x401010};
    for (int i = 0; i < 6000; ++i) {
      // srv:start and srv:done in turn, pairs of durations that vary.
      now += 50 + (i % 2 == 1 ? static_cast<uint64_t>(i * 37 % 1001) : 0);
      if (i % 400 == 0) {
        const std::string name = "gen" + std::to_string(i / 400);
        REQUIRE(w.append(ProcessEvent{now, ProcessEventKind::comm, 50, 50, 0, 0, name}));
        ProcessEvent m{now, ProcessEventKind::mmap, 50, 50, 0, 0, ""};
        m.map_address = 0x400000;
        m.map_length = 0x10000;
        m.build_id = i % 800 == 0 ? "aa11" : "bb22";
        m.path = i % 800 == 0 ? "/opt/app/server" : "/opt/app/other";
        REQUIRE(w.append(m));
      }
      Event e;
      e.time_ns = now;
      e.pid = 50;
      e.tid = 50;
      e.site_id = i % 2;
      e.arg_count = 2;
      e.stack = stack.data();
      e.stack_depth = 1;
      REQUIRE(w.append(e));
    }
    REQUIRE(w.finish(TraceSummary{}));
  }
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"dump"}, {"dump", "--format", "csv"}, {"stacks"}}) {
    check_same_with_jobs(cmd, a.str(), "3");
  }
  Output text = run({"dump", "-j", "3", a.str()});
  CHECK(text.out.find("gen0 50/50 [") != std::string::npos);
  CHECK(text.out.find("gen14 50/50 [") != std::string::npos);
  CHECK(text.out.find("other_main") != std::string::npos);
  const Output chrome = run_export({"--format", "chrome", a.str()}, "1");
  REQUIRE(chrome.rc == 0);
  CHECK(run_export({"--format", "chrome", a.str()}, "3").out == chrome.out);
  for (const char* format : {"text", "json"}) {
    check_same_with_jobs({"latency", "--start", "srv:start", "--end", "srv:done", "--slowest", "5",
                          "--format", format},
                         a.str(), "3");
  }
}

TEST_CASE("every export writes the same bytes with -j 1 and -j N", "[report][parallel]") {
  // Pairs cross the segments' cuts; srv:start to srv:tick on arg1 leaves
  // ends alone and starts open in every segment and at the end.
  TempPath a, b, forking;
  write_pairs(a.str(), meta_of("alpha", 1'000'000, 1'700'000'000'000'000'000), 400);
  write_pairs(b.str(), meta_of("beta", 9'000'000, 1'700'000'000'000'050'000), 300);
  write_forking(forking.str());
  const std::vector<std::vector<std::string>> exports = {
      {"--format", "chrome"},
      {"--format", "chrome", "--start", "srv:start", "--end", "srv:done"},
      {"--format", "chrome", "--start", "srv:start", "--end", "srv:done", "--key", "arg0"},
      {"--format", "chrome", "--start", "srv:start", "--end", "srv:tick", "--key", "arg1"},
      {"--format", "clickhouse-events"},
      {"--format", "clickhouse-events", "--probe", "srv:tick", "--since", "100us"},
      {"--format", "clickhouse-pairs", "--start", "srv:start", "--end", "srv:done"},
      {"--format", "clickhouse-pairs", "--start", "srv:start", "--end", "srv:tick", "--key",
       "arg1"},
  };
  for (const auto& files :
       {std::vector<std::string>{a.str()}, std::vector<std::string>{a.str(), b.str()},
        std::vector<std::string>{forking.str()}}) {
    for (std::vector<std::string> cmd : exports) {
      // The forking trace (renames, a fork) has ticks only: no pairs.
      const bool pairs = std::find(cmd.begin(), cmd.end(), "--start") != cmd.end();
      if (pairs && files[0] == forking.str()) continue;
      cmd.insert(cmd.end(), files.begin(), files.end());
      const Output s = run_export(cmd, "1");
      INFO(cmd[1] << " " << cmd.size() << " words on " << files.size() << " file(s)");
      REQUIRE(s.rc == 0);
      REQUIRE(s.out.size() > 1000);
      for (const char* jobs : {"2", "3"}) {
        const Output p = run_export(cmd, jobs);
        CHECK(p.rc == 0);
        CHECK(p.out == s.out);
        CHECK(p.err == s.err);
      }
    }
  }
  // The pairs of srv:start and srv:done are all there: 400 of alpha.
  const Output pairs = run_export(
      {"--format", "clickhouse-pairs", "--start", "srv:start", "--end", "srv:done", a.str()}, "3");
  CHECK(std::count(pairs.out.begin(), pairs.out.end(), '\n') == 400);
  CHECK(pairs.err.find("400 pairs, 0 unmatched starts, 0 unmatched ends") != std::string::npos);
}

TEST_CASE("a damaged file says the same with -j 1 and -j N", "[report][parallel]") {
  TempPath a, damaged;
  write_pairs(a.str(), meta_of("alpha", 1'000'000, 1'700'000'000'000'000'000), 400);
  const std::string bytes = read_file_bytes(a.str());
  // Flipped bytes inside chunks at a third and two thirds of the file (each
  // loses its chunk), then the same file cut short (no index: it is scanned).
  std::string flipped = bytes;
  flipped[flipped.size() / 3] ^= 0x5a;
  flipped[flipped.size() * 2 / 3] ^= 0x5a;
  for (const std::string& variant : {flipped, flipped.substr(0, flipped.size() * 9 / 10)}) {
    write_file_bytes(damaged.str(), variant);
    for (std::vector<std::string> cmd : commands()) {
      cmd.push_back(damaged.str());
      std::vector<std::string> serial = cmd, parallel = cmd;
      serial.insert(serial.end(), {"-j", "1"});
      parallel.insert(parallel.end(), {"-j", "3"});
      Output s = run(serial), p = run(parallel);
      INFO(cmd[0] << " " << cmd[1] << " on " << variant.size() << " bytes");
      REQUIRE(s.err.find("corrupted chunk") != std::string::npos);
      CHECK(s.out == p.out);
      CHECK(s.err == p.err);
    }
  }
}

TEST_CASE("more groups than the limit: read again in one pass, the same bytes",
          "[report][parallel]") {
  TempPath a;
  // 1500 requests, each its own arg0: over the limit of 1000 groups, so
  // which groups are kept depends on the order of all events.
  write_pairs(a.str(), meta_of("alpha", 1'000'000, 1'700'000'000'000'000'000), 1500);
  for (std::vector<std::string> cmd :
       {std::vector<std::string>{"latency", "--start", "srv:start", "--end", "srv:done", "--by",
                                 "arg0"},
        std::vector<std::string>{"hist", "--probe", "srv:start", "--arg", "1", "--by", "arg0",
                                 "--format", "json"}}) {
    cmd.push_back(a.str());
    std::vector<std::string> serial = cmd, parallel = cmd;
    serial.insert(serial.end(), {"-j", "1"});
    parallel.insert(parallel.end(), {"-j", "3"});
    Output s = run(serial), p = run(parallel);
    INFO(cmd[0]);
    REQUIRE(s.rc == 0);
    CHECK(p.out == s.out);
    CHECK(p.err == s.err);
  }
}
