#include "record/output/series_naming.h"

#include <catch2/catch.hpp>
#include <set>

#include "record/output/thread_names.h"

using namespace usdt::record;
using usdt::format::ProcessEvent;
using usdt::format::ProcessEventKind;

TEST_CASE("the files of a series are NAME.0001.trace, ...", "[series_naming]") {
  SeriesNaming a("/data/pg.trace");
  CHECK(a.path(1) == "/data/pg.0001.trace");
  CHECK(a.path(42) == "/data/pg.0042.trace");
  CHECK(a.path(12345) == "/data/pg.12345.trace");
  CHECK(a.partial_path(7) == "/data/pg.0007.trace.partial");
  CHECK(a.pattern() == "/data/pg.*.trace");
  SeriesNaming b("out");
  CHECK(b.path(3) == "out.0003.trace");
  SeriesNaming c(".trace");  // nothing before the extension: kept whole
  CHECK(c.path(1) == ".trace.0001.trace");
}

TEST_CASE("recording ids are 32 hex digits, and differ", "[series_naming]") {
  std::set<std::string> ids;
  for (int i = 0; i < 100; ++i) {
    std::string id = new_recording_id();
    CHECK(id.size() == 32);
    CHECK(id.find_first_not_of("0123456789abcdef") == std::string::npos);
    ids.insert(id);
  }
  CHECK(ids.size() == 100);
}

namespace {

ProcessEvent record(ProcessEventKind kind, uint64_t time, uint32_t pid, uint32_t tid,
                    const std::string& comm = "", uint32_t parent_pid = 0,
                    uint32_t parent_tid = 0) {
  ProcessEvent p;
  p.kind = kind;
  p.time_ns = time;
  p.pid = pid;
  p.tid = tid;
  p.comm = comm;
  p.parent_pid = parent_pid;
  p.parent_tid = parent_tid;
  return p;
}

}  // namespace

TEST_CASE("carried names: comm, fork, exec, exit", "[series_naming]") {
  ThreadNames names;
  names.apply(record(ProcessEventKind::comm, 10, 100, 100, "server"));
  names.apply(record(ProcessEventKind::fork, 20, 100, 101, "", 100, 100));  // a thread
  names.apply(record(ProcessEventKind::fork, 30, 200, 200, "", 100, 100));  // a child
  names.apply(record(ProcessEventKind::exec, 40, 200, 200, "worker"));
  names.apply(record(ProcessEventKind::comm, 50, 100, 101, "io"));
  names.apply(record(ProcessEventKind::exit, 60, 100, 101));
  names.apply(record(ProcessEventKind::fork, 70, 300, 300, "", 999, 999));  // unknown parent
  auto carried = names.carried(5);
  REQUIRE(carried.size() == 3);
  CHECK(carried[0].tid == 100);
  CHECK(carried[0].comm == "server");
  CHECK(carried[1].tid == 101);
  CHECK(carried[1].comm == "io");  // exited, not yet forgotten
  CHECK(carried[2].pid == 200);
  CHECK(carried[2].comm == "worker");
  for (const ProcessEvent& p : carried) {
    CHECK(p.kind == ProcessEventKind::comm);
    CHECK(p.time_ns == 5);
  }
  names.forget_exited_before(59);
  CHECK(names.size() == 3);
  names.forget_exited_before(60);
  CHECK(names.size() == 2);
}
