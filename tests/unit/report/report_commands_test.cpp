// The report commands end to end on in-memory traces (tests/unit/support/memory_trace.h),
// and the command-line parsing.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "report/command_line.h"
#include "report/report_main.h"
#include "tests/unit/support/memory_trace.h"
#include "report/input/query.h"

using namespace usdt::report;
namespace fmt = usdt::format;

namespace {

struct Output {
  std::string out;
  std::string err;
  int code = 0;
};

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

fmt::ProbeSite site(uint32_t id, std::string provider, std::string name, int args, bool is_signed = false) {
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

fmt::Event ev(uint32_t site_id, uint64_t time, uint32_t pid, uint32_t tid, std::vector<int64_t> args,
              uint16_t missing = 0) {
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

// Start at 1 s monotonic; two requests on tid 11, one nested.
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
  t.add(f, ev(1, 1000004000, 10, 11, {2}));   // pairs with 2: 2000 ns
  t.add(f, ev(1, 1000011000, 10, 11, {1}));   // pairs with 1: 10000 ns
  t.add(f, ev(1, 1000012000, 10, 12, {9}));   // unmatched end
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

}  // namespace

TEST_CASE("summary json counts what was read", "[report_commands]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"summary", "--format", "json"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("{\"events\":7,\"lost\":4,\"truncated\":false,") == 0);
  CHECK(o.out.find("\"start_ns\":1000000000,\"end_ns\":1000020000,\"duration_ns\":20000") != std::string::npos);
  CHECK(o.out.find("{\"provider\":\"demo\",\"name\":\"req_done\",\"count\":3,\"lost\":0") != std::string::npos);
  CHECK(o.out.find("{\"provider\":\"demo\",\"name\":\"tick\",\"count\":1,\"lost\":4") != std::string::npos);
  CHECK(o.out.find("\"processes\":[{\"pid\":10,\"comm\":\"server\",\"events\":7}]") != std::string::npos);
  CHECK(o.err.find("usdt-report: warning: 4 events were lost") != std::string::npos);
}

TEST_CASE("summary notices a file summary that disagrees", "[report_commands]") {
  MemoryTrace t;
  fill_demo(t);
  fmt::TraceSummary s;
  s.end_monotonic_ns = 1000020000;
  s.events = 9;
  s.lost = 4;
  t.set_summary(0, s);
  Output o = run({"summary"}, t);
  CHECK(o.err.find("its summary counts 9 events, 7 could be read") != std::string::npos);
}

TEST_CASE("summary's duration starts when the recorder enabled its events (format 1.5)", "[report_commands]") {
  MemoryTrace t;
  fill_demo(t);
  fmt::TraceSummary s;
  s.enabled_monotonic_ns = 1000000800;  // the file was made 800 ns before
  s.end_monotonic_ns = 1000020000;
  s.events = 7;
  s.lost = 4;
  t.set_summary(0, s);
  Output o = run({"summary", "--format", "json"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("\"start_ns\":1000000800,\"end_ns\":1000020000,\"duration_ns\":19200") != std::string::npos);
  // 3 req_done in 19.2 us, not in the 20 us since the file was made.
  CHECK(o.out.find("\"name\":\"req_done\",\"count\":3,\"lost\":0,\"rate_per_s\":156250") != std::string::npos);
  // --since counts from the timeline's start (the file's), not the span's.
  Output w = run({"summary", "--format", "json", "--since", "500ns"}, t);
  CHECK(w.out.find("\"start_ns\":1000000800,") != std::string::npos);
  Output later = run({"summary", "--format", "json", "--since", "1us"}, t);
  CHECK(later.out.find("\"start_ns\":1000001000,\"end_ns\":1000020000,\"duration_ns\":19000") != std::string::npos);
}

TEST_CASE("dump jsonl has exactly the documented keys", "[report_commands]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"dump", "--format", "jsonl", "--probe", "demo:req_start"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "{\"time_ns\":1000001000,\"pid\":10,\"tid\":11,\"cpu\":1,\"provider\":\"demo\",\"name\":\"req_start\",\"args\":[1,-5]}\n"
        "{\"time_ns\":1000002000,\"pid\":10,\"tid\":11,\"cpu\":1,\"provider\":\"demo\",\"name\":\"req_start\",\"args\":[2,7]}\n"
        "{\"time_ns\":1000013000,\"pid\":10,\"tid\":12,\"cpu\":0,\"provider\":\"demo\",\"name\":\"req_start\",\"args\":[3,null]}\n");
}

TEST_CASE("dump text and csv", "[report_commands]") {
  MemoryTrace t;
  fill_demo(t);
  Output text = run({"dump", "--tid", "12"}, t);
  CHECK(text.out ==
        "          server 10/12 [000] 0.000012000: demo:req_done arg0=9\n"
        "          server 10/12 [000] 0.000013000: demo:req_start arg0=3 arg1=null\n");
  MemoryTrace t2;  // a MemoryTrace is read once, like a file
  fill_demo(t2);
  Output csv = run({"dump", "--format", "csv", "--since", "12us", "--until", "13us"}, t2);
  CHECK(csv.out ==
        "time_ns,pid,tid,cpu,comm,provider,name,arg0,arg1\n"
        "1000012000,10,12,0,server,demo,req_done,9,\n"
        "1000013000,10,12,0,server,demo,req_start,3,null\n");
}

TEST_CASE("csv tells a missing argument from one the probe does not have", "[report_commands]") {
  MemoryTrace t;
  fill_demo(t);
  Output csv = run({"dump", "--format", "csv", "--tid", "12"}, t);
  // req_done has one argument: its arg1 field is empty. req_start's arg1
  // was not recorded: null.
  CHECK(csv.out.find("demo,req_done,9,\n") != std::string::npos);
  CHECK(csv.out.find("demo,req_start,3,null\n") != std::string::npos);
  CHECK(csv.out.find("demo,req_start,3,\n") == std::string::npos);
}

namespace {

std::string read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  REQUIRE(f != nullptr);
  return read_all(f);
}

}  // namespace

TEST_CASE("export pairs on an argument as async slices", "[report_commands]") {
  MemoryTrace t;
  uint32_t f = t.add_file(meta("hostA", 1000000000, 1700000000000000000ull),
                          {site(0, "demo", "req_start", 1), site(1, "demo", "req_done", 1)});
  // Requests 1 and 2 overlap on thread 11 without nesting.
  t.add(f, ev(0, 1000001000, 10, 11, {1}));
  t.add(f, ev(0, 1000002000, 10, 11, {2}));
  t.add(f, ev(1, 1000003000, 10, 11, {1}));
  t.add(f, ev(1, 1000004000, 10, 11, {2}));
  std::string path = "/tmp/usdt_report_export_test_";
  path.append(std::to_string(::getpid())).append(".json");
  Output o = run({"export", "-o", path, "--start", "demo:req_start", "--end", "demo:req_done", "--key", "arg0"}, t);
  REQUIRE(o.code == 0);
  std::string json = read_file(path);
  std::remove(path.c_str());
  CHECK(json.find("\"ph\":\"X\"") == std::string::npos);
  CHECK(json.find("{\"ph\":\"b\",\"name\":\"demo:req_start\",\"cat\":\"latency\",\"id\":\"0x1\",\"ts\":1.000,"
                  "\"pid\":10,\"tid\":11,\"args\":{\"end\":\"demo:req_done\",\"duration_ns\":2000,\"arg0\":1}}") !=
        std::string::npos);
  CHECK(json.find("{\"ph\":\"e\",\"name\":\"demo:req_start\",\"cat\":\"latency\",\"id\":\"0x1\",\"ts\":3.000,"
                  "\"pid\":10,\"tid\":11}") != std::string::npos);
  CHECK(json.find("\"id\":\"0x2\",\"ts\":2.000") != std::string::npos);
  CHECK(json.find("\"id\":\"0x2\",\"ts\":4.000") != std::string::npos);

  // Paired on tid, slices nest on their thread: complete events.
  MemoryTrace t2;
  fill_demo(t2);
  o = run({"export", "-o", path, "--start", "demo:req_start", "--end", "demo:req_done"}, t2);
  REQUIRE(o.code == 0);
  json = read_file(path);
  std::remove(path.c_str());
  CHECK(json.find("\"ph\":\"X\"") != std::string::npos);
  CHECK(json.find("\"ph\":\"b\"") == std::string::npos);
}

TEST_CASE("export to a file that cannot be created fails", "[report_commands]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"export", "-o", "/nonexistent-dir/out.json"}, t);
  CHECK(o.code == 1);
  CHECK(o.err == "usdt-report: error: cannot create '/nonexistent-dir/out.json': No such file or directory\n");
}

TEST_CASE("latency json", "[report_commands]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"latency", "--start", "demo:req_start", "--end", "demo:req_done", "--format", "json"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("{\"start\":\"demo:req_start\",\"end\":\"demo:req_done\",\"key\":\"tid\",\"count\":2,"
                   "\"min_ns\":2000,\"mean_ns\":6000.000,\"p50_ns\":2003,") == 0);
  CHECK(o.out.find("\"max_ns\":10000,\"relative_error\":0.00390625") != std::string::npos);
  CHECK(o.out.find("\"histogram\":[{\"low_ns\":2048,\"high_ns\":4096,\"count\":0},") == std::string::npos);
  CHECK(o.out.find("\"histogram\":[{\"low_ns\":1024,\"high_ns\":2048,\"count\":1},{\"low_ns\":2048,\"high_ns\":4096,\"count\":0},"
                   "{\"low_ns\":4096,\"high_ns\":8192,\"count\":0},{\"low_ns\":8192,\"high_ns\":16384,\"count\":1}]") !=
        std::string::npos);
  CHECK(o.out.find("\"unmatched_starts\":1,\"unmatched_ends\":1") != std::string::npos);
}

TEST_CASE("latency on an argument key", "[report_commands]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"latency", "--start", "req_start", "--end", "req_done", "--key", "arg0", "--top", "1"}, t);
  REQUIRE(o.code == 0);
  // id 2: 2000 ns, id 1: 10000 ns; end id 9 unmatched; start id 3 unmatched.
  CHECK(o.out.find("count   2\n") != std::string::npos);
  CHECK(o.out.find("max     10000 ns\n") != std::string::npos);
  CHECK(o.out.find("unmatched starts: 1, unmatched ends: 1") != std::string::npos);
  CHECK(o.out.find("slowest 1 pair:") != std::string::npos);
}

TEST_CASE("an unknown probe lists the trace's probes", "[report_commands]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"latency", "--start", "demo:req_strat", "--end", "demo:req_done"}, t);
  CHECK(o.code == 1);
  CHECK(o.err ==
        "usdt-report: error: --start: no probe in the trace matches 'demo:req_strat' (did you mean "
        "'demo:req_start'?); the trace has: demo:req_done, demo:req_start, demo:tick\n");
}

TEST_CASE("latency with no pair says so", "[report_commands]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"latency", "--start", "demo:req_done", "--end", "demo:tick", "--format", "json"}, t);
  CHECK(o.code == 0);
  CHECK(o.out.find("\"count\":0,\"min_ns\":null,\"mean_ns\":null,\"p50_ns\":null") != std::string::npos);
  MemoryTrace t2;
  fill_demo(t2);
  Output text = run({"latency", "--start", "demo:req_done", "--end", "demo:tick"}, t2);
  CHECK(text.out.find("no start/end pair matched") != std::string::npos);
}

TEST_CASE("hist json", "[report_commands]") {
  MemoryTrace t;
  fill_demo(t);
  Output o = run({"hist", "--probe", "demo:req_start", "--arg", "1", "--format", "json"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "{\"probe\":\"demo:req_start\",\"arg\":1,\"count\":2,\"missing\":1,\"min\":-5,\"mean\":1.000,\"max\":7,"
        "\"histogram\":[{\"low\":-7,\"high\":-3,\"count\":1},{\"low\":-3,\"high\":-1,\"count\":0},"
        "{\"low\":-1,\"high\":0,\"count\":0},{\"low\":0,\"high\":1,\"count\":0},{\"low\":1,\"high\":2,\"count\":0},"
        "{\"low\":2,\"high\":4,\"count\":0},{\"low\":4,\"high\":8,\"count\":1}]}\n");
}

TEST_CASE("files of different hosts are merged and labelled", "[report_commands]") {
  MemoryTrace t;
  // Host B's monotonic clock is 5 s ahead for the same wall-clock moment.
  uint32_t a = t.add_file(meta("hostA", 1000000000, 1700000000000000000ull), {site(0, "demo", "tick", 1)});
  uint32_t b = t.add_file(meta("hostB", 6000000000, 1700000000000000000ull), {site(0, "demo", "tock", 1)});
  t.add(a, ev(0, 1000000300, 1, 1, {1}));
  t.add(b, ev(0, 6000000200, 1, 1, {2}));
  Output o = run({"dump", "--format", "jsonl"}, t);
  CHECK(o.out ==
        "{\"time_ns\":6000000200,\"host\":\"hostB\",\"pid\":1,\"tid\":1,\"cpu\":1,\"provider\":\"demo\",\"name\":\"tock\",\"args\":[2]}\n"
        "{\"time_ns\":1000000300,\"host\":\"hostA\",\"pid\":1,\"tid\":1,\"cpu\":1,\"provider\":\"demo\",\"name\":\"tick\",\"args\":[1]}\n");
}

TEST_CASE("summary says when probes attached during the recording became active",
          "[report_commands]") {
  // Starts at 1 s monotonic, 2023-11-14 22:13:20 UTC; a plugin dlopen()ed
  // at +2.314 s brings plugin:load and a second site of demo:tick (format 1.4).
  auto fill = [](MemoryTrace& t) {
    fmt::ProbeSite load = site(1, "plugin", "load", 0);
    load.active_since_ns = 3314000000;
    fmt::ProbeSite tick_in_plugin = site(2, "demo", "tick", 0);
    tick_in_plugin.active_since_ns = 3314000000;
    uint32_t f = t.add_file(meta("hostA", 1000000000, 1700000000000000000ull),
                            {site(0, "demo", "tick", 0), load, tick_in_plugin});
    t.add(f, ev(0, 1500000000, 10, 10, {}));
    t.add(f, ev(1, 3400000000, 10, 10, {}));
    t.add(f, ev(2, 3500000000, 10, 10, {}));
  };
  MemoryTrace t;
  fill(t);
  Output o = run({"summary"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("demo:tick                          2           0.800         0\n"
                   "  (1 of its 2 sites attached at +2.314000000 s: no events of that site before)\n"
                   // From its attach at 3.314 s to the last event at 3.5 s.
                   "plugin:load                        1           5.376         0\n"
                   "  (attached at +2.314000000 s, 22:13:22.314 UTC: no events before)\n") != std::string::npos);

  MemoryTrace j;
  fill(j);
  o = run({"summary", "--format", "json"}, j);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("\"name\":\"tick\",\"count\":2,\"lost\":0,\"rate_per_s\":0.800,\"late_sites\":1,"
                   "\"late_sites_since_ns\":3314000000,\"args\"") != std::string::npos);
  CHECK(o.out.find("\"name\":\"load\",\"count\":1,\"lost\":0,\"rate_per_s\":5.376,"
                   "\"active_since_ns\":3314000000,\"args\"") != std::string::npos);

  // A file of another host: its time moves onto the first file's clock.
  auto fill_two = [](MemoryTrace& t) {
    t.add_file(meta("hostA", 1000000000, 1700000000000000000ull), {site(0, "demo", "tick", 0)});
    fmt::ProbeSite late = site(0, "plugin", "load", 0);
    late.active_since_ns = 8000000000;  // host B's clock is 5 s ahead: +2 s
    uint32_t b = t.add_file(meta("hostB", 6000000000, 1700000000000000000ull), {late});
    t.add(b, ev(0, 8100000000, 10, 10, {}));
  };
  MemoryTrace two;
  fill_two(two);
  o = run({"summary"}, two);
  CHECK(o.out.find("  (attached at +2.000000000 s, 22:13:22.000 UTC: no events before)\n") != std::string::npos);
  MemoryTrace two_json;
  fill_two(two_json);
  o = run({"summary", "--format", "json"}, two_json);
  CHECK(o.out.find("\"active_since_ns\":3000000000") != std::string::npos);
}

TEST_CASE("a summary of probes watched from the start says nothing of attaching",
          "[report_commands]") {
  MemoryTrace t;
  fill_demo(t);
  CHECK(run({"summary"}, t).out.find("attached") == std::string::npos);
  MemoryTrace j;
  fill_demo(j);
  Output o = run({"summary", "--format", "json"}, j);
  CHECK(o.out.find("active_since") == std::string::npos);
  CHECK(o.out.find("late_sites") == std::string::npos);
}

TEST_CASE("command line parsing", "[report_options]") {
  auto parse = [](std::vector<const char*> words) {
    words.insert(words.begin(), "usdt-report");
    return parse_command_line(static_cast<int>(words.size()), words.data());
  };
  ParsedCommandLine p = parse({"memory.trace"});
  CHECK(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.command == Command::summary);
  p = parse({"latency", "--start", "a", "--end", "b", "--key", "arg2", "--by", "pid", "--linear", "0,100,10", "x.trace"});
  REQUIRE(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.key.kind == KeySpec::Kind::arg);
  CHECK(p.options.key.arg.index == 2);
  CHECK(p.options.by->kind == KeySpec::Kind::pid);
  CHECK(p.options.linear_hist);
  p = parse({"dump", "--since", "1.5s", "--probe", "a:*", "--probe", "b", "x.trace"});
  REQUIRE(p.action == ParsedCommandLine::Action::run);
  CHECK(*p.options.filter.since_ns == 1500000000);
  CHECK(p.options.filter.probes.size() == 2);

  p = parse({"dump", "--bogus", "x.trace"});
  CHECK(p.exit_code == 2);
  CHECK(p.text.find("usdt-report: error: ") == 0);
  CHECK(p.text.find("hint: see 'usdt-report dump --help'") != std::string::npos);
  CHECK(parse({"latency", "--start", "a", "x.trace"}).exit_code == 2);
  CHECK(parse({"dump", "--pid", "-1", "x.trace"}).exit_code == 2);
  CHECK(parse({"dump", "--since", "5q", "x.trace"}).exit_code == 2);
  p = parse({"dump"});  // no TRACE: the recorder's default output
  REQUIRE(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.traces == std::vector<std::string>{"usdt.trace"});
  CHECK(parse({"hist", "--probe", "a", "x.trace"}).exit_code == 2);
  CHECK(parse({"latency", "--start", "a", "--end", "b", "--key", "arg12", "x.trace"}).exit_code == 2);
  CHECK(parse({"latency", "--start", "a", "--end", "b", "--key", "a b", "x.trace"}).exit_code == 2);
  CHECK(parse({"latency", "--start", "a", "--end", "b", "--key", "9lives", "x.trace"}).exit_code == 2);
  // Argument names (format 1.2), resolved per probe later.
  p = parse({"latency", "--start", "a", "--end", "b", "--key", "query", "--by", "client.port", "x.trace"});
  REQUIRE(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.key.kind == KeySpec::Kind::arg);
  CHECK(p.options.key.arg.name == "query");
  CHECK(p.options.key.text() == "query");
  CHECK(p.options.by->arg.name == "client.port");
  p = parse({"hist", "--probe", "a", "--arg", "3", "x.trace"});
  REQUIRE(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.arg->index == 3);
  CHECK(p.options.arg->name.empty());
  p = parse({"hist", "--probe", "a", "--arg", "arg4", "x.trace"});
  CHECK(p.options.arg->index == 4);
  p = parse({"hist", "--probe", "a", "--arg", "size", "x.trace"});
  CHECK(p.options.arg->name == "size");
  CHECK(parse({"hist", "--probe", "a", "--arg", "12", "x.trace"}).exit_code == 2);
  p = parse({"sumary", "x.trace"});
  CHECK(p.exit_code == 2);
  CHECK(p.text.find("unknown command 'sumary' (did you mean 'summary'?)") != std::string::npos);
  p = parse({"hist", "--probe", "a", "--arg", "0", "--by", "arg1", "x.trace"});
  CHECK(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.by->kind == KeySpec::Kind::arg);
  CHECK(p.options.by->arg.index == 1);
  CHECK(parse({"hist", "--probe", "a", "--arg", "0", "--by", "arg12", "x.trace"}).exit_code == 2);
}

TEST_CASE("an unknown command word is a misuse, a path is a trace", "[report_options]") {
  auto parse = [](std::vector<const char*> words) {
    words.insert(words.begin(), "usdt-report");
    return parse_command_line(static_cast<int>(words.size()), words.data());
  };
  ParsedCommandLine p = parse({"frobnicate", "x.trace"});
  CHECK(p.action == ParsedCommandLine::Action::print_and_exit);
  CHECK(p.exit_code == 2);
  CHECK(p.to_stderr);
  CHECK(p.text.find("usdt-report: error: unknown command 'frobnicate'; the commands are summary, "
                    "dump, latency, "
                    "hist, export, stacks, top\n") == 0);
  CHECK(p.text.find("did you mean") == std::string::npos);
  // A word that looks like a path is a trace, even when missing: the
  // missing file is reported when it is opened.
  p = parse({"gone.trace"});
  CHECK(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.command == Command::summary);
  CHECK(p.options.traces == std::vector<std::string>{"gone.trace"});
  p = parse({"./frobnicate"});
  CHECK(p.action == ParsedCommandLine::Action::run);
  p = parse({"/dev/null"});
  CHECK(p.action == ParsedCommandLine::Action::run);
  p = parse({"--help"});
  CHECK(p.text.find("exit status: 0 done; 1 failure") != std::string::npos);
  p = parse({"latency", "--help"});
  CHECK(p.exit_code == 0);
  CHECK(p.text.find("--start") != std::string::npos);
  p = parse({"--version"});
  CHECK(p.text.find("usdt-report ") == 0);
}

namespace {

// A trace with string arguments: db:query(text, n) and db:done(text); the
// StringArgs live as long as the test's Strings.
struct Strings {
  std::string ascii = "SELECT 1";
  std::string odd = "a,\"b\"\n\xff";
  std::string cut = "SELECT * FROM t";
  fmt::StringArg s_ascii{ascii, false};
  fmt::StringArg s_odd{odd, false};
  fmt::StringArg s_cut{cut, true};
  fmt::StringArg s_null_text{std::string_view("null"), false};
};

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

}  // namespace

TEST_CASE("dump text prints strings quoted and escaped", "[report_commands][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output o = run({"dump"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "               ? 10/11 [001] 0.000001000: db:query arg0=\"SELECT 1\" arg1=-1\n"
        "               ? 10/12 [000] 0.000002000: db:query arg0=\"a,\\\"b\\\"\\n\\xff\" arg1=2\n"
        "               ? 10/10 [000] 0.000002500: db:tick arg0=5\n"
        "               ? 10/11 [001] 0.000003000: db:done arg0=\"SELECT 1\"\n"
        "               ? 10/12 [000] 0.000005000: db:done arg0=\"a,\\\"b\\\"\\n\\xff\"\n"
        "               ? 10/11 [001] 0.000006000: db:query arg0=\"SELECT * FROM t\"... arg1=3\n"
        "               ? 10/11 [001] 0.000006500: db:done arg0=\"SELECT * FROM t\"...\n"
        "               ? 10/11 [001] 0.000007000: db:query arg0=null arg1=4\n"
        "               ? 10/11 [001] 0.000007100: db:done arg0=\"null\"\n");
}

TEST_CASE("dump jsonl gives strings as JSON strings and marks cut ones",
          "[report_commands][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output o = run({"dump", "--format", "jsonl", "--probe", "db:query"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "{\"time_ns\":1000001000,\"pid\":10,\"tid\":11,\"cpu\":1,\"provider\":\"db\",\"name\":"
        "\"query\",\"args\":[\"SELECT 1\",-1]}\n"
        "{\"time_ns\":1000002000,\"pid\":10,\"tid\":12,\"cpu\":0,\"provider\":\"db\",\"name\":"
        "\"query\",\"args\":[\"a,\\\"b\\\"\\n\\ufffd\",2]}\n"
        "{\"time_ns\":1000006000,\"pid\":10,\"tid\":11,\"cpu\":1,\"provider\":\"db\",\"name\":"
        "\"query\",\"args\":[\"SELECT * FROM t\",3],\"truncated_args\":[0]}\n"
        "{\"time_ns\":1000007000,\"pid\":10,\"tid\":11,\"cpu\":1,\"provider\":\"db\",\"name\":"
        "\"query\",\"args\":[null,4]}\n");
}

TEST_CASE("dump csv quotes strings: \"null\" is not null", "[report_commands][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output o = run({"dump", "--format", "csv"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out ==
        "time_ns,pid,tid,cpu,comm,provider,name,arg0,arg1,truncated_args\n"
        "1000001000,10,11,1,,db,query,\"SELECT 1\",-1,\n"
        "1000002000,10,12,0,,db,query,\"a,\"\"b\"\"\n\xef\xbf\xbd\",2,\n"
        "1000002500,10,10,0,,db,tick,5,,\n"
        "1000003000,10,11,1,,db,done,\"SELECT 1\",,\n"
        "1000005000,10,12,0,,db,done,\"a,\"\"b\"\"\n\xef\xbf\xbd\",,\n"
        "1000006000,10,11,1,,db,query,\"SELECT * FROM t\",3,0\n"
        "1000006500,10,11,1,,db,done,\"SELECT * FROM t\",,0\n"
        "1000007000,10,11,1,,db,query,null,4,\n"
        "1000007100,10,11,1,,db,done,\"null\",,\n");
  MemoryTrace t2;
  fill_strings(t2, s);
  Output ticks = run({"dump", "--format", "csv", "--probe", "db:tick"}, t2);
  CHECK(ticks.out ==
        "time_ns,pid,tid,cpu,comm,provider,name,arg0\n1000002500,10,10,0,,db,tick,5\n");
}

TEST_CASE("latency --by a string argument", "[report_commands][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output o = run(
      {"latency", "--start", "db:query", "--end", "db:done", "--by", "arg0", "--format", "json"},
      t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("\"count\":4,") != std::string::npos);
  CHECK(o.out.find(
            "{\"key\":\"SELECT * FROM t\",\"key_truncated\":true,\"count\":1,\"min_ns\":500,") !=
        std::string::npos);
  CHECK(o.out.find("{\"key\":\"SELECT 1\",\"count\":1,\"min_ns\":2000,") != std::string::npos);
  CHECK(o.out.find("{\"key\":\"a,\\\"b\\\"\\n\\ufffd\",\"count\":1,\"min_ns\":3000,") !=
        std::string::npos);
  // The NULL query's pair takes the end event's string, "null".
  CHECK(o.out.find("{\"key\":\"null\",\"count\":1,\"min_ns\":100,") != std::string::npos);
  MemoryTrace t2;
  fill_strings(t2, s);
  Output text = run(
      {"latency", "--start", "db:query", "--end", "db:done", "--key", "arg0", "--by", "arg0"}, t2);
  CHECK(text.out.find("\narg0 \"a,\\\"b\\\"\\n\\xff\":\n") != std::string::npos);
  CHECK(text.out.find("\narg0 \"SELECT * FROM t\"...:\n") != std::string::npos);
  CHECK(text.out.find("without arg0: 1 starts, 0 ends") != std::string::npos);
}

TEST_CASE("hist refuses a string argument", "[report_commands][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output o = run({"hist", "--probe", "db:query", "--arg", "0"}, t);
  CHECK(o.code == 1);
  CHECK(o.err.find("usdt-report: error: argument 0 of db:query is a string: a histogram needs "
                   "numbers\nhint: ") == 0);
  MemoryTrace t2;
  fill_strings(t2, s);
  CHECK(run({"hist", "--probe", "db:query", "--arg", "1"}, t2).code == 0);
}

TEST_CASE("hist --by a string argument", "[report_commands][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output o = run({"hist", "--probe", "db:query", "--arg", "1", "--by", "arg0"}, t);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("\narg0 \"SELECT 1\":\n  count 1, missing 0, min -1, mean -1.000, max -1\n") !=
        std::string::npos);
  CHECK(o.out.find("\narg0 \"SELECT * FROM t\"...:\n  count 1,") != std::string::npos);
  CHECK(o.out.find("\narg0 (argument missing):\n  count 1,") != std::string::npos);
  MemoryTrace t2;
  fill_strings(t2, s);
  Output json =
      run({"hist", "--probe", "db:query", "--arg", "1", "--by", "arg0", "--format", "json"}, t2);
  CHECK(json.out.find("{\"key\":\"SELECT * FROM t\",\"key_truncated\":true,\"count\":1,") !=
        std::string::npos);
  CHECK(json.out.find("{\"key\":null,\"count\":1,") != std::string::npos);
}

TEST_CASE("summary shows drops by cause and argument types", "[report_commands][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  Output text = run({"summary"}, t);
  CHECK(text.out.find("\ndropped by the recorder: 3 malformed, 120 foreign_process\n") !=
        std::string::npos);
  MemoryTrace t2;
  fill_strings(t2, s);
  Output json = run({"summary", "--format", "json"}, t2);
  CHECK(json.out.find("\"dropped\":{\"malformed\":3,\"foreign_process\":120}") !=
        std::string::npos);
  CHECK(json.out.find("\"name\":\"query\",\"count\":4,\"lost\":0,\"rate_per_s\":200000.000,"
                      "\"args\":[{\"name\":\"arg0\",\"type\":\"string\"},{\"name\":\"arg1\","
                      "\"type\":\"int64\"}]}") != std::string::npos);
  MemoryTrace t3;
  fill_demo(t3);
  Output none = run({"summary", "--format", "json"}, t3);
  CHECK(none.out.find("\"dropped\":{}") != std::string::npos);
  MemoryTrace t4;
  fill_demo(t4);
  CHECK(run({"summary"}, t4).out.find("dropped") == std::string::npos);
}

TEST_CASE("export keeps the strings of starts left open", "[report_commands][strings]") {
  Strings s;
  MemoryTrace t;
  fill_strings(t, s);
  char path[] = "/tmp/usdt_report_strings_XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  Output o =
      run({"export", "-o", path, "--start", "db:query", "--end", "db:done", "--key", "arg0"}, t);
  REQUIRE(o.code == 0);
  std::string json = read_file(path);
  std::remove(path);
  CHECK(json.find("\"args\":{\"end\":\"db:done\",\"duration_ns\":500,\"arg0\":\"SELECT * FROM "
                  "t\",\"key_truncated\":true}") != std::string::npos);
  // The NULL query cannot pair on arg0: an instant; the "null" end too.
  CHECK(json.find("\"args\":{\"cpu\":1,\"arg0\":null,\"arg1\":4}") != std::string::npos);
  CHECK(json.find("\"args\":{\"cpu\":1,\"arg0\":\"null\"}") != std::string::npos);
}
