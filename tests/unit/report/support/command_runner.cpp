#include "tests/unit/report/support/command_runner.h"

#include <catch2/catch.hpp>

#include "report/command_line.h"
#include "report/report_main.h"

namespace usdt::report::test {

namespace fmt = usdt::format;

std::string read_all(std::FILE* f) {
  std::rewind(f);
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

Output run(const std::vector<std::string>& words, TraceInput& input) {
  std::vector<const char*> argv = {"usdt-report"};
  for (const std::string& w : words) argv.push_back(w.c_str());
  argv.push_back("memory.trace");
  ParsedCommandLine p = parse_command_line(static_cast<int>(argv.size()), argv.data());
  Output o;
  if (p.action != ParsedCommandLine::Action::run) {
    o.err = p.text;
    o.code = p.exit_code;
    return o;
  }
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  o.code = run_command(p.options, input, CommandIo{out, err});
  o.out = read_all(out);
  o.err = read_all(err);
  return o;
}

fmt::ProbeSite site(uint32_t id, std::string provider, std::string name, int args, bool is_signed) {
  fmt::ProbeSite s;
  s.id = id;
  s.provider = std::move(provider);
  s.name = std::move(name);
  for (int i = 0; i < args; ++i) {
    fmt::ArgDescriptor d;
    d.is_signed = is_signed && i == 1;
    s.args.push_back(d);
  }
  return s;
}

fmt::Event ev(uint32_t site_id, uint64_t time, uint32_t pid, uint32_t tid,
              std::vector<int64_t> args, uint16_t missing) {
  fmt::Event e;
  e.site_id = site_id;
  e.time_ns = time;
  e.pid = pid;
  e.tid = tid;
  e.cpu = tid % 2;
  e.arg_count = static_cast<uint8_t>(args.size());
  for (size_t i = 0; i < args.size(); ++i) e.args[i] = static_cast<uint64_t>(args[i]);
  e.missing_mask = missing;
  return e;
}

fmt::TraceMetadata meta(std::string host, uint64_t mono, uint64_t real) {
  fmt::TraceMetadata m;
  m.hostname = std::move(host);
  m.start_monotonic_ns = mono;
  m.start_realtime_ns = real;
  m.kernel_release = "6.18";
  m.arch = "x86_64";
  return m;
}

void fill_demo(MemoryTrace& t) {
  uint32_t f = t.add_file(meta("hostA", 1000000000, 1700000000000000000ull),
                          {site(0, "demo", "req_start", 2, true), site(1, "demo", "req_done", 1),
                           site(2, "demo", "tick", 0)});
  fmt::ProcessEvent p;
  p.time_ns = 1000000000;
  p.pid = 10;
  p.tid = 10;
  p.comm = "server";
  t.add(f, p);
  t.add(f, ev(0, 1000001000, 10, 11, {1, -5}));
  t.add(f, ev(0, 1000002000, 10, 11, {2, 7}));
  t.add(f, ev(2, 1000002500, 10, 10, {}));
  t.add(f, ev(1, 1000004000, 10, 11, {2}));        // pairs with 2: 2000 ns
  t.add(f, ev(1, 1000011000, 10, 11, {1}));        // pairs with 1: 10000 ns
  t.add(f, ev(1, 1000012000, 10, 12, {9}));        // unmatched end
  t.add(f, ev(0, 1000013000, 10, 12, {3, 0}, 2));  // arg1 missing; unmatched start
  fmt::LostEvent l;
  l.time_begin_ns = 1000014000;
  l.time_end_ns = 1000015000;
  l.cpu = 1;
  l.site_id = 2;
  l.count = 4;
  t.add(f, l);
  fmt::TraceSummary s;
  s.end_monotonic_ns = 1000020000;
  s.events = 7;
  s.lost = 4;
  t.set_summary(f, s);
}

std::string read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  REQUIRE(f != nullptr);
  return read_all(f);
}

namespace {

fmt::Event string_ev(uint32_t site_id, uint64_t time, uint32_t tid, const fmt::StringArg* s,
                     int64_t n = 0) {
  fmt::Event e = ev(site_id, time, 10, tid,
                    site_id == 0 ? std::vector<int64_t>{0, n} : std::vector<int64_t>{0});
  e.string_mask = 1;
  if (s == nullptr) {
    e.missing_mask = 1;
  } else {
    e.args[0] = reinterpret_cast<uintptr_t>(s);
  }
  return e;
}

}  // namespace

void fill_strings(MemoryTrace& t, const Strings& s) {
  fmt::ProbeSite query = site(0, "db", "query", 2, true);
  query.args[0].is_string = true;
  fmt::ProbeSite done = site(1, "db", "done", 1);
  done.args[0].is_string = true;
  uint32_t f = t.add_file(meta("hostA", 1000000000, 1700000000000000000ull),
                          {query, done, site(2, "db", "tick", 1)});
  t.add(f, string_ev(0, 1000001000, 11, &s.s_ascii, -1));
  t.add(f, string_ev(0, 1000002000, 12, &s.s_odd, 2));
  t.add(f, ev(2, 1000002500, 10, 10, {5}));
  t.add(f, string_ev(1, 1000003000, 11, &s.s_ascii));
  t.add(f, string_ev(1, 1000005000, 12, &s.s_odd));
  t.add(f, string_ev(0, 1000006000, 11, &s.s_cut, 3));
  t.add(f, string_ev(1, 1000006500, 11, &s.s_cut));
  t.add(f, string_ev(0, 1000007000, 11, nullptr, 4));
  t.add(f, string_ev(1, 1000007100, 11, &s.s_null_text));
  fmt::TraceSummary summary;
  summary.end_monotonic_ns = 1000020000;
  summary.events = 9;
  summary.dropped = {{"malformed", 3}, {"ring_resync", 0}, {"foreign_process", 120}};
  t.set_summary(f, summary);
}

}  // namespace usdt::report::test
