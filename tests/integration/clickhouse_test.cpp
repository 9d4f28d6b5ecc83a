// The ClickHouse round trip (docs/clickhouse.md): traces of three hosts,
// recorded here under `unshare --uts` with a hostname each, exported with
// usdt-report export --format clickhouse-events / clickhouse-pairs, loaded
// into a throwaway clickhouse-server with the documented commands, and
// queried with the documented SQL. The answers must equal usdt-report's:
// counts exact; p50 and p99 (nearest rank, exact in SQL) within the relative
// error usdt-report states for its own percentiles.
#include <time.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../skip_case.h"
#include "clickhouse_server.h"
#include "integration_support.h"

using namespace usdt::itest;

namespace {

struct Host {
  std::string name;
  long requests;
  std::string trace;
};

uint64_t realtime_ns() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

// usdt-report's stdout, through a file: latency --by prints more than a
// pipe holds, and run() reads stderr to its end before stdout.
std::string report(const std::vector<std::string>& args) {
  std::string out = temp_trace("clickhouse_report_out");
  std::vector<std::string> argv{"/bin/sh", "-c", "out=$1; shift; exec \"$@\" > \"$out\"",
                                "sh",      out,  USDT_REPORT_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = run(argv);
  INFO("usdt-report " << args[0] << ": " << r.err);
  REQUIRE(r.status == 0);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(out.c_str());
  return text.str();
}

// Records `-- COMMAND...` with usdt-record in a UTS namespace whose hostname
// is host: the trace's metadata then names that host.
void record_as(const std::string& host, const std::vector<std::string>& record_args) {
  std::vector<std::string> argv{
      "/usr/bin/unshare", "--uts", "/bin/sh", "-c", "hostname \"$0\" && exec \"$@\"", host,
      recorder(),         "-q"};
  argv.insert(argv.end(), record_args.begin(), record_args.end());
  RunResult r = run(argv);
  INFO("recording as " << host << ": " << r.err);
  REQUIRE(r.status == 0);
}

// The number after "key": in json, from position from; the position after
// it in *end. Fails the test when it is missing.
double json_number(const std::string& json, const std::string& key, size_t from,
                   size_t* end = nullptr) {
  size_t at = json.find("\"" + key + "\":", from);
  INFO("no \"" << key << "\" in " << json.substr(from, 200));
  REQUIRE(at != std::string::npos);
  at += key.size() + 3;
  size_t stop = json.find_first_of(",}]", at);
  if (end != nullptr) *end = stop;
  return std::strtod(json.substr(at, stop - at).c_str(), nullptr);
}

struct Stats {
  uint64_t count = 0, min = 0, max = 0, p50 = 0, p99 = 0;
};

// usdt-report's own statistics from the JSON object starting at from.
Stats report_stats(const std::string& json, size_t from, double* relative_error) {
  Stats s;
  s.count = static_cast<uint64_t>(json_number(json, "count", from));
  s.min = static_cast<uint64_t>(json_number(json, "min_ns", from));
  s.max = static_cast<uint64_t>(json_number(json, "max_ns", from));
  s.p50 = static_cast<uint64_t>(json_number(json, "p50_ns", from));
  s.p99 = static_cast<uint64_t>(json_number(json, "p99_ns", from));
  *relative_error = json_number(json, "relative_error", from);
  return s;
}

// The documented statistics of usdt_pairs in SQL: nearest-rank percentiles
// (the value of rank ceil(n * q), as usdt-report defines them), exact.
const char* kPairStats =
    "count(), min(duration_ns), max(duration_ns), "
    "arraySort(groupArray(duration_ns))[toUInt64(intDiv(count() * 50 + 99, 100))], "
    "arraySort(groupArray(duration_ns))[toUInt64(intDiv(count() * 99 + 99, 100))]";

// Rows of TabSeparated text, split into fields.
std::vector<std::vector<std::string>> rows_of(const std::string& tsv) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : lines(tsv)) {
    if (line.empty()) continue;
    std::vector<std::string> fields;
    std::stringstream s(line);
    for (std::string f; std::getline(s, f, '\t');) fields.push_back(f);
    rows.push_back(fields);
  }
  return rows;
}

Stats sql_stats(const std::vector<std::string>& fields, size_t first) {
  REQUIRE(fields.size() >= first + 5);
  Stats s;
  s.count = std::stoull(fields[first]);
  s.min = std::stoull(fields[first + 1]);
  s.max = std::stoull(fields[first + 2]);
  s.p50 = std::stoull(fields[first + 3]);
  s.p99 = std::stoull(fields[first + 4]);
  return s;
}

void check_same(const Stats& sql, const Stats& reported, double relative_error) {
  CHECK(sql.count == reported.count);
  CHECK(sql.min == reported.min);
  CHECK(sql.max == reported.max);
  // usdt-report's percentiles carry its stated relative error; SQL's are exact.
  CHECK(std::fabs(double(reported.p50) - double(sql.p50)) <= relative_error * double(sql.p50) + 1);
  CHECK(std::fabs(double(reported.p99) - double(sql.p99)) <= relative_error * double(sql.p99) + 1);
}

}  // namespace

TEST_CASE("ClickHouse: three hosts' traces loaded and queried give usdt-report's answers",
          "[.root][clickhouse]") {
  std::string server_path = find_program("clickhouse-server");
  std::string client_path = find_program("clickhouse-client");
  if (server_path.empty() || client_path.empty()) {
    usdt::test::skip_case(
        "clickhouse-server or clickhouse-client is not installed (scripts/install-deps.sh)");
  }
  if (access("/usr/bin/unshare", X_OK) != 0) usdt::test::skip_case("/usr/bin/unshare is missing");

  // Start the server first: it comes up while the hosts record.
  std::string error;
  std::optional<ClickHouseServer> server =
      ClickHouseServer::start(server_path, client_path, &error);
  INFO(error);
  REQUIRE(server.has_value());
  const std::string dir = server->dir();

  const uint64_t begin_ns = realtime_ns();
  std::vector<Host> hosts = {{"hostA", 200, dir + "/a.trace"},
                             {"hostB", 300, dir + "/b.trace"},
                             {"hostC", 400, dir + "/c.trace"}};
  for (const Host& h : hosts) {
    record_as(h.name,
              {"-e", "demo:*", "-o", h.trace, "--", REQUEST_DEMO_PATH, std::to_string(h.requests)});
  }
  // hostC also ran a program with string arguments, in a second recording.
  const std::string strings_trace = dir + "/c-strings.trace";
  record_as("hostC", {"--string", "strings:*=arg0", "-e", "strings:*", "-o", strings_trace, "--",
                      program("itest_strings"), "3"});
  const uint64_t end_ns = realtime_ns();

  // Export, create the tables, load: one command each, as documented.
  const std::string events = dir + "/events.tsv", pairs = dir + "/pairs.tsv",
                    schema = dir + "/schema.sql";
  report({"export", "--format", "clickhouse-events", "-o", events, hosts[0].trace, hosts[1].trace,
          hosts[2].trace, strings_trace});
  report({"export", "--format", "clickhouse-pairs", "--start", "demo:req_start", "--end",
          "demo:req_done", "--key", "arg0", "-o", pairs, hosts[0].trace, hosts[1].trace,
          hosts[2].trace});
  std::ofstream(schema) << report({"export", "--schema"});
  {
    RunResult r = server->client_reading({"--multiquery"}, schema);
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  for (const auto& [table, file] :
       {std::pair{"usdt_events", events}, std::pair{"usdt_pairs", pairs}}) {
    RunResult r = server->client_reading(
        {"--query", std::string("INSERT INTO ") + table + " FORMAT TabSeparated"}, file);
    INFO("loading " << file << ": " << r.err);
    REQUIRE(r.status == 0);
  }

  {  // events per host and probe: exact, and equal to usdt-report summary
    auto rows = rows_of(server->query(
        "SELECT host, probe, count() FROM usdt_events GROUP BY host, probe ORDER BY host, probe"));
    std::map<std::string, uint64_t> sql;
    for (const auto& r : rows) sql[r[0] + " " + r[1]] = std::stoull(r[2]);
    for (const Host& h : hosts) {
      const uint64_t n = static_cast<uint64_t>(h.requests);
      CHECK(sql[h.name + " demo:req_start"] == n);
      CHECK(sql[h.name + " demo:req_done"] == n);
      CHECK(sql[h.name + " demo:cache_miss"] == n / 10);  // ids with id % 10 == 3
      std::string summary = report({"summary", "--format", "json", h.trace});
      for (const char* probe : {"req_start", "req_done", "cache_miss"}) {
        std::string needle =
            std::string("{\"provider\":\"demo\",\"name\":\"") + probe + "\",\"count\":";
        size_t at = summary.find(needle);
        REQUIRE(at != std::string::npos);
        CHECK(static_cast<uint64_t>(json_number(summary, "count", at)) ==
              sql[h.name + " demo:" + probe]);
      }
    }
    for (const char* probe :
         {"ascii", "empty", "long300", "long1000", "invalid", "null", "unmapped", "two"}) {
      CHECK(sql[std::string("hostC strings:") + probe] == 3);
    }
    CHECK(rows.size() == 3 * 3 + 8);
  }

  {  // hosts, wall-clock times, names and arguments arrive as recorded
    // Every event's wall clock lies within the recordings.
    auto rows = rows_of(
        server->query("SELECT host, min(time_ns), max(time_ns), groupUniqArray(comm) "
                      "FROM usdt_events WHERE probe LIKE 'demo:%' GROUP BY host ORDER BY host"));
    REQUIRE(rows.size() == 3);
    for (size_t i = 0; i < rows.size(); ++i) {
      CHECK(rows[i][0] == hosts[i].name);
      CHECK(std::stoull(rows[i][1]) >= begin_ns);
      CHECK(std::stoull(rows[i][2]) <= end_ns);
      CHECK(rows[i][3] == "['request_demo']");
    }
    // Arguments by name; a string byte for byte, also when it is not UTF-8.
    CHECK(server->query("SELECT arg_values[indexOf(arg_names, 'arg0')] FROM usdt_events "
                        "WHERE probe = 'strings:ascii' ORDER BY time_ns") ==
          "ascii-0\nascii-1\nascii-2\n");
    CHECK(server->query("SELECT DISTINCT hex(arg_values[1]) FROM usdt_events WHERE probe = "
                        "'strings:invalid'") == "FFFE20616263C328\n");
    CHECK(server->query("SELECT count() FROM usdt_events WHERE probe = 'strings:empty' AND "
                        "arg_values[1] = ''") == "3\n");
    // A string the kernel could not read is NULL, never 0 or "".
    CHECK(server->query("SELECT countIf(arg_values[1] IS NULL), count() FROM usdt_events "
                        "WHERE probe IN ('strings:null', 'strings:unmapped')") == "6\t6\n");
    // Request 97 failed: status -1 (arg2 of req_done), on every host.
    CHECK(server->query(
              "SELECT host, toInt64(arg_values[3]) FROM usdt_events WHERE probe = 'demo:req_done' "
              "AND arg_values[1] = '97' ORDER BY host") == "hostA\t-1\nhostB\t-1\nhostC\t-1\n");
  }

  {  // p50 and p99 per host: usdt-report latency's, within its stated error
    auto rows = rows_of(server->query(std::string("SELECT host, ") + kPairStats +
                                      " FROM usdt_pairs GROUP BY host ORDER BY host"));
    REQUIRE(rows.size() == 3);
    for (size_t i = 0; i < hosts.size(); ++i) {
      CHECK(rows[i][0] == hosts[i].name);
      std::string json = report({"latency", "--start", "demo:req_start", "--end", "demo:req_done",
                                 "--key", "arg0", "--format", "json", hosts[i].trace});
      double relative_error = 0;
      Stats reported = report_stats(json, 0, &relative_error);
      CHECK(relative_error > 0);
      CHECK(relative_error < 0.01);
      CHECK(reported.count == static_cast<uint64_t>(hosts[i].requests));
      check_same(sql_stats(rows[i], 1), reported, relative_error);
    }
  }

  {  // p50 and p99 per probe argument across the fleet: latency --by arg0 of all three traces
    // Request ids 0..199 ran on three hosts, 200..299 on two, 300..399 on one.
    auto rows = rows_of(server->query(
        std::string("SELECT toUInt64(arg_values[indexOf(arg_names, 'arg0')]) AS id, ") +
        kPairStats + " FROM usdt_pairs GROUP BY id ORDER BY id"));
    std::string json = report({"latency", "--start", "demo:req_start", "--end", "demo:req_done",
                               "--key", "arg0", "--by", "arg0", "--format", "json", hosts[0].trace,
                               hosts[1].trace, hosts[2].trace});
    size_t at = json.find("\"groups\":[");
    REQUIRE(at != std::string::npos);
    size_t groups = 0;
    for (at = json.find("{\"key\":", at); at != std::string::npos;
         at = json.find("{\"key\":", at + 1)) {
      uint64_t id = static_cast<uint64_t>(json_number(json, "key", at));
      double relative_error = 0;
      Stats reported = report_stats(json, at, &relative_error);
      REQUIRE(id < rows.size());
      CHECK(std::stoull(rows[id][0]) == id);
      CHECK(reported.count == (id < 200 ? 3u : id < 300 ? 2u : 1u));
      check_same(sql_stats(rows[id], 1), reported, relative_error);
      ++groups;
    }
    CHECK(groups == 400);
    CHECK(rows.size() == 400);
  }
}
