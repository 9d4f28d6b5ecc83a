// usdt-report export --format clickhouse-events|clickhouse-pairs on
// in-memory traces: the exact rows, NULLs for missing arguments, strings,
// hosts and wall-clock times from each file's own metadata, the schema's
// columns in the rows' order, and the command-line rules.
#include "report/export/clickhouse_export.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>

#include "tests/unit/support/memory_trace.h"
#include "report/command_line.h"
#include "report/report_main.h"
#include "report/input/query.h"

using namespace usdt::report;
namespace fmt = usdt::format;

namespace {

std::string read_all(std::FILE* f) {
  std::rewind(f);
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

struct Output {
  std::string file;  // what -o got
  std::string err;
  std::string out;
  int code = 0;
};

// Runs `usdt-report export WORDS -o TEMP memory.trace` on input.
Output run(std::vector<std::string> words, TraceInput* input) {
  char path[] = "/tmp/usdt_clickhouse_test_XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::vector<const char*> argv = {"usdt-report", "export"};
  words.push_back("-o");
  words.push_back(path);
  words.push_back("memory.trace");
  for (const std::string& w : words) argv.push_back(w.c_str());
  ParsedCommandLine p = parse_command_line(static_cast<int>(argv.size()), argv.data());
  Output o;
  if (p.action != ParsedCommandLine::Action::run) {
    std::remove(path);
    o.out = p.to_stderr ? "" : p.text;
    o.err = p.to_stderr ? p.text : "";
    o.code = p.exit_code;
    return o;
  }
  REQUIRE(input != nullptr);
  std::FILE* err = std::tmpfile();
  o.code = run_command(p.options, *input, CommandIo{stdout, err});
  o.err = read_all(err);
  std::FILE* f = std::fopen(path, "r");
  REQUIRE(f != nullptr);
  o.file = read_all(f);
  std::remove(path);
  return o;
}

fmt::ProbeSite site(uint32_t id, std::string provider, std::string name, int args) {
  fmt::ProbeSite s;
  s.id = id;
  s.provider = std::move(provider);
  s.name = std::move(name);
  s.args.resize(static_cast<size_t>(args));
  return s;
}

fmt::Event ev(uint32_t site_id, uint64_t time, uint32_t pid, uint32_t tid,
              std::vector<uint64_t> args, uint16_t missing = 0) {
  fmt::Event e;
  e.site_id = site_id;
  e.time_ns = time;
  e.pid = pid;
  e.tid = tid;
  e.cpu = 1;
  e.arg_count = static_cast<uint8_t>(args.size());
  for (size_t i = 0; i < args.size(); ++i) e.args[i] = args[i];
  e.missing_mask = missing;
  return e;
}

fmt::TraceMetadata meta(std::string host, uint64_t mono, uint64_t real) {
  fmt::TraceMetadata m;
  m.hostname = std::move(host);
  m.start_monotonic_ns = mono;
  m.start_realtime_ns = real;
  return m;
}

fmt::ProcessEvent comm(uint64_t time, uint32_t pid, uint32_t tid, std::string name) {
  fmt::ProcessEvent p;
  p.time_ns = time;
  p.pid = pid;
  p.tid = tid;
  p.comm = std::move(name);
  return p;
}

// Two hosts whose monotonic clocks are unrelated: db1 started at 5 s
// monotonic, wall clock 1700000000 s; db2 at 100 s monotonic, wall clock
// 1700000000.5 s. Each has db:query(text, n) and db:done(rows, n).
struct TwoHosts {
  std::string odd = "it's\ta\nb\\c \xff\xfe";
  std::string cut = "SELECT * FROM t";
  fmt::StringArg s_odd{odd, false};
  fmt::StringArg s_cut{cut, true};
  MemoryTrace trace;

  fmt::Event query(uint64_t time, uint32_t pid, uint32_t tid, const fmt::StringArg* s, uint64_t n) {
    fmt::Event e = ev(0, time, pid, tid, {0, n});
    e.string_mask = 1;
    if (s == nullptr) {
      e.missing_mask = 1;
    } else {
      e.args[0] = reinterpret_cast<uintptr_t>(s);
    }
    return e;
  }

  TwoHosts() {
    fmt::ProbeSite q = site(0, "db", "query", 2);
    q.args[0].is_string = true;
    fmt::ProbeSite done = site(1, "db", "done", 2);
    uint32_t a = trace.add_file(meta("db1", 5000000000ull, 1700000000000000000ull), {q, done});
    uint32_t b = trace.add_file(meta("db2", 100000000000ull, 1700000000500000000ull), {q, done});
    trace.add(a, comm(5000000000ull, 10, 10, "postgres"));
    trace.add(a, query(5000001000ull, 10, 10, &s_odd, 1));
    trace.add(a, ev(1, 5000004000ull, 10, 10, {3, 1}));
    trace.add(a, query(5000005000ull, 10, 11, nullptr, 2));  // thread 11: its process's name
    trace.add(a, ev(1, 5000005500ull, 10, 11, {0, 2}, 2));   // its n is missing
    trace.add(b, query(100000002000ull, 20, 20, &s_cut, 7));
    trace.add(b, ev(1, 100000009000ull, 20, 20, {1, 7}));
  }
};

size_t count_of(const std::string& s, char c) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), c));
}

}  // namespace

TEST_CASE("clickhouse-events: one row per event, host and wall clock of its own file",
          "[clickhouse_export]") {
  TwoHosts h;
  Output o = run({"--format", "clickhouse-events"}, &h.trace);
  INFO(o.err);
  REQUIRE(o.code == 0);
  CHECK(o.err.find("wrote '") != std::string::npos);
  CHECK(o.err.find("': 6 events") != std::string::npos);
  CHECK(
      o.file ==
      "db1\t1700000000000001000\t10\t10\t1\tpostgres\tdb:query\t['arg0','arg1']\t['it\\'"
      "s\\ta\\nb\\\\c \xff\xfe','1']\t[0,0]\n"
      "db1\t1700000000000004000\t10\t10\t1\tpostgres\tdb:done\t['arg0','arg1']\t['3','1']\t[0,0]\n"
      "db1\t1700000000000005000\t10\t11\t1\tpostgres\tdb:query\t['arg0','arg1']\t[NULL,'2']\t[0,0]"
      "\n"
      "db1\t1700000000000005500\t10\t11\t1\tpostgres\tdb:done\t['arg0','arg1']\t['0',NULL]\t[0,0]\n"
      "db2\t1700000000500002000\t20\t20\t1\t\\N\tdb:query\t['arg0','arg1']\t['SELECT * FROM "
      "t','7']\t[1,0]\n"
      "db2\t1700000000500009000\t20\t20\t1\t\\N\tdb:done\t['arg0','arg1']\t['1','7']\t[0,0]\n");
}

TEST_CASE("clickhouse-events: the common filters apply", "[clickhouse_export]") {
  TwoHosts h;
  Output o = run({"--format", "clickhouse-events", "--probe", "db:done"}, &h.trace);
  REQUIRE(o.code == 0);
  CHECK(count_of(o.file, '\n') == 3);
  CHECK(o.file.find("db:query") == std::string::npos);
}

TEST_CASE("clickhouse-pairs: duration, key and the start's arguments", "[clickhouse_export]") {
  TwoHosts h;
  Output o = run(
      {"--format", "clickhouse-pairs", "--start", "db:query", "--end", "db:done", "--key", "arg1"},
      &h.trace);
  INFO(o.err);
  REQUIRE(o.code == 0);
  // db1's second query has its key (n = 2), but its end lacks n: no pair.
  CHECK(o.file ==
        "db1\t1700000000000001000\t3000\t10\t10\tpostgres\tdb:query\tdb:done\targ1\t1\t['arg0','"
        "arg1']\t['it\\'s\\ta\\nb\\\\c "
        "\xff\xfe','1']\t[0,0]\n"
        "db2\t1700000000500002000\t7000\t20\t20\t\\N\tdb:query\tdb:done\targ1\t7\t['arg0','arg1']"
        "\t['SELECT * FROM "
        "t','7']\t[1,0]\n");
  CHECK(o.err.find("2 pairs, 1 unmatched starts, 0 unmatched ends") != std::string::npos);
}

TEST_CASE("clickhouse-pairs on tid and on a string key", "[clickhouse_export]") {
  TwoHosts h;
  Output o =
      run({"--format", "clickhouse-pairs", "--start", "db:query", "--end", "db:done"}, &h.trace);
  REQUIRE(o.code == 0);
  CHECK(count_of(o.file, '\n') == 3);
  CHECK(o.file.find("\t500\t10\t11\tpostgres\tdb:query\tdb:done\ttid\t11\t['arg0','arg1']\t[NULL,'"
                    "2']\t[0,0]\n") != std::string::npos);

  // A string key is written as its text, escaped like any field.
  MemoryTrace t;
  fmt::ProbeSite q = site(0, "db", "query", 1);
  q.args[0].is_string = true;
  fmt::ProbeSite done = site(1, "db", "done", 1);
  done.args[0].is_string = true;
  uint32_t f = t.add_file(meta("db1", 0, 1000), {q, done});
  std::string text = "a\tb";
  fmt::StringArg s{text, false};
  for (uint32_t id : {0u, 1u}) {
    fmt::Event e = ev(id, id == 0 ? 10 : 30, 1, 1, {reinterpret_cast<uintptr_t>(&s)});
    e.string_mask = 1;
    t.add(f, e);
  }
  o = run(
      {"--format", "clickhouse-pairs", "--start", "db:query", "--end", "db:done", "--key", "arg0"},
      &t);
  REQUIRE(o.code == 0);
  CHECK(o.file ==
        "db1\t1010\t20\t1\t1\t\\N\tdb:query\tdb:done\targ0\ta\\tb\t['arg0']\t['a\\tb']\t[0]\n");
}

TEST_CASE("the schema's columns are the rows' fields, in order", "[clickhouse_export]") {
  std::string schema = clickhouse_schema();
  // The columns a row carries: every column but the MATERIALIZED ones.
  auto columns_of = [&](const std::string& table) {
    size_t at = schema.find("CREATE TABLE IF NOT EXISTS " + table);
    REQUIRE(at != std::string::npos);
    size_t open = schema.find('(', at), close = schema.find("\n)", at);
    std::istringstream lines(schema.substr(open + 1, close - open - 1));
    std::vector<std::string> names;
    for (std::string line; std::getline(lines, line);) {
      if (line.find_first_not_of(' ') == std::string::npos ||
          line.find("MATERIALIZED") != std::string::npos)
        continue;
      std::istringstream words(line);
      std::string name;
      words >> name;
      names.push_back(name);
    }
    return names;
  };
  CHECK(columns_of("usdt_events") == std::vector<std::string>{"host", "time_ns", "pid", "tid",
                                                              "cpu", "comm", "probe", "arg_names",
                                                              "arg_values", "arg_truncated"});
  CHECK(columns_of("usdt_pairs") ==
        std::vector<std::string>{"host", "start_time_ns", "duration_ns", "pid", "tid", "comm",
                                 "start_probe", "end_probe", "key_name", "key", "arg_names",
                                 "arg_values", "arg_truncated"});
  TwoHosts h;
  Output events = run({"--format", "clickhouse-events"}, &h.trace);
  CHECK(events.file.substr(0, events.file.find('\n')).size() > 0);
  CHECK(count_of(events.file.substr(0, events.file.find('\n')), '\t') == 9);
  TwoHosts h2;
  Output pairs =
      run({"--format", "clickhouse-pairs", "--start", "db:query", "--end", "db:done"}, &h2.trace);
  CHECK(count_of(pairs.file.substr(0, pairs.file.find('\n')), '\t') == 12);
  CHECK(clickhouse_arg_name(nullptr, 3) == "arg3");
}

TEST_CASE("export --schema prints the tables and needs no trace", "[clickhouse_export]") {
  const char* argv[] = {"usdt-report", "export", "--schema"};
  ParsedCommandLine p = parse_command_line(3, argv);
  CHECK(p.action == ParsedCommandLine::Action::print_schema);
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  REQUIRE(out != nullptr);
  REQUIRE(err != nullptr);
  CHECK(report_main(3, argv, out, err) == 0);
  auto text_of = [](std::FILE* f) {
    std::string t;
    std::rewind(f);
    for (int c; (c = std::fgetc(f)) != EOF;) t += static_cast<char>(c);
    std::fclose(f);
    return t;
  };
  const std::string text = text_of(out);
  CHECK(text_of(err).empty());
  CHECK(text == clickhouse_schema());
  // Nothing that ClickHouse 18.16 lacks.
  CHECK(text.find("DateTime64") == std::string::npos);
  CHECK(text.find("Map(") == std::string::npos);
  CHECK(text.find("LowCardinality") == std::string::npos);
}

TEST_CASE("clickhouse formats refuse options that do not fit them", "[clickhouse_export]") {
  Output o = run({"--format", "clickhouse-pairs"}, nullptr);
  CHECK(o.code == 2);
  CHECK(o.err.find("clickhouse-pairs needs --start PROBE and --end PROBE") != std::string::npos);
  o = run({"--format", "clickhouse-events", "--start", "db:query", "--end", "db:done"}, nullptr);
  CHECK(o.code == 2);
  CHECK(o.err.find("--start/--end are for clickhouse-pairs") != std::string::npos);
  o = run({"--format", "clickhouse"}, nullptr);
  CHECK(o.code == 2);
  CHECK(o.err.find("chrome clickhouse-events clickhouse-pairs") != std::string::npos);
  TwoHosts h;
  o = run({"--format", "clickhouse-pairs", "--start", "db:nope", "--end", "db:done"}, &h.trace);
  CHECK(o.code == 1);
  CHECK(o.err.find("db:nope") != std::string::npos);
}

TEST_CASE("clickhouse-events: numbers by their type, in decimal", "[clickhouse_export]") {
  MemoryTrace t;
  fmt::ProbeSite s = site(0, "app", "values", 4);
  s.args[0].is_signed = true;
  s.args[0].size = 4;
  s.args[1].is_float = true;
  s.args[2].is_float = true;
  uint32_t f = t.add_file(meta("h", 0, 0), {s});
  double half = 1.5, inf = std::numeric_limits<double>::infinity();
  uint64_t half_bits = 0, inf_bits = 0;
  std::memcpy(&half_bits, &half, 8);
  std::memcpy(&inf_bits, &inf, 8);
  t.add(f, ev(0, 7, 1, 1,
              {static_cast<uint64_t>(int64_t{-5}), half_bits, inf_bits, 18446744073709551615ull}));
  Output o = run({"--format", "clickhouse-events"}, &t);
  REQUIRE(o.code == 0);
  CHECK(o.file ==
        "h\t7\t1\t1\t1\t\\N\tapp:values\t['arg0','arg1','arg2','arg3']\t['-5','1.5','inf','"
        "18446744073709551615']\t["
        "0,0,0,0]\n");
}

namespace {

// db:query(rows, id) and db:done(id, arg1): named arguments, the key id at
// another position in each probe.
void fill_named(MemoryTrace& t) {
  fmt::ProbeSite start = site(0, "db", "query", 2);
  start.args[0].name = "rows";
  start.args[1].name = "id";
  fmt::ProbeSite done = site(1, "db", "done", 2);
  done.args[0].name = "id";
  uint32_t f = t.add_file(meta("h", 0, 0), {start, done});
  t.add(f, ev(0, 10, 1, 1, {5, 42}));
  t.add(f, ev(1, 25, 1, 1, {42, 9}));
}

}  // namespace

TEST_CASE("clickhouse rows name arguments as the trace does, argN otherwise",
          "[clickhouse_export]") {
  MemoryTrace t;
  fill_named(t);
  Output o = run({"--format", "clickhouse-events"}, &t);
  REQUIRE(o.code == 0);
  CHECK(o.file ==
        "h\t10\t1\t1\t1\t\\N\tdb:query\t['rows','id']\t['5','42']\t[0,0]\n"
        "h\t25\t1\t1\t1\t\\N\tdb:done\t['id','arg1']\t['42','9']\t[0,0]\n");
  MemoryTrace t2;
  fill_named(t2);
  o = run(
      {"--format", "clickhouse-pairs", "--start", "db:query", "--end", "db:done", "--key", "id"},
      &t2);
  INFO(o.err);
  REQUIRE(o.code == 0);
  CHECK(o.file ==
        "h\t10\t15\t1\t1\t\\N\tdb:query\tdb:done\tid\t42\t['rows','id']\t['5','42']\t[0,0]\n");
}
