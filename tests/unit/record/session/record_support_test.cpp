// The small helpers of the recording session: the end report, the batch
// queue, /proc task lists, the held child process, ELF lookups.
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <sstream>
#include <thread>

#include "common/library_finder.h"
#include "common/usdt_probe.h"
#include "fixture_paths.h"
#include "record/session/batch_queue.h"
#include "record/session/child_process.h"
#include "record/resolve/elf_lookup.h"
#include "record/session/end_report.h"
#include "record/resolve/function_symbols.h"
#include "record/resolve/task_list.h"

using namespace usdt;
using namespace usdt::record;

namespace {

// The batch's events, unpacked (their strings and stacks still the batch's).
std::vector<format::Event> unpack(const EventBatch& batch) {
  std::vector<format::Event> out;
  EventBatch::Reader reader(batch);
  format::Event e;
  while (reader.next(e)) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("the end report sums the sites of a probe", "[end_report]") {
  EndReport r;
  r.output = "out.trace";
  r.events = 30;
  r.lost = 2;
  r.bytes = 1234;
  r.seconds = 2;
  for (uint32_t i = 0; i < 3; ++i) {
    format::ProbeSite s;
    s.id = i;
    s.provider = "demo";
    s.name = i < 2 ? "multi" : "x";
    r.sites.push_back(s);
  }
  format::ProbeSite ret = r.sites[0];
  ret.id = 3;
  ret.kind = format::ProbeKind::uretprobe;
  ret.provider.assign("uretprobe");
  ret.path.assign("/lib/libx.so");
  ret.name.assign(1, 'f');
  r.sites.push_back(ret);
  r.events_per_site = {10, 10, 10, 0};
  r.lost_per_site = {0, 2, 0};
  std::ostringstream out;
  print_end_report(r, out);
  CHECK(out.str() ==
        "usdt-record: 30 events recorded, 2 lost, 1234 bytes written to out.trace\n"
        "usdt-record:   demo:multi             20 hits  10.0/s  (2 lost)\n"
        "usdt-record:   demo:x                 10 hits  5.0/s\n"
        "usdt-record:   uretprobe:f (libx.so)  0 hits  0.0/s\n");
  // Losses of a full ring shared by several probes belong to none of them.
  r.lost = 7;
  std::ostringstream unattributed;
  print_end_report(r, unattributed);
  CHECK(unattributed.str().ends_with(
      "usdt-record:   5 lost events of no known probe: the kernel counts a full ring buffer's "
      "losses per CPU, not per probe\n"));
}

TEST_CASE("the end report counts a probe attached later from its attach", "[end_report]") {
  EndReport r;
  r.output = "out.trace";
  r.events = 30;
  r.seconds = 4;
  r.start_ns = 1000000000;
  r.end_ns = 5000000000;
  for (uint32_t i = 0; i < 2; ++i) {
    format::ProbeSite s;
    s.id = i;
    s.provider = "demo";
    s.name = i == 0 ? "early" : "late";
    // demo:late is in a library loaded 3 s into the recording.
    if (i == 1) s.active_since_ns = 4000000000;
    r.sites.push_back(s);
  }
  r.events_per_site = {20, 10};
  std::ostringstream out;
  print_end_report(r, out);
  CHECK(out.str() ==
        "usdt-record: 30 events recorded, 0 lost, 0 bytes written to out.trace\n"
        "usdt-record:   demo:early  20 hits  5.0/s\n"
        "usdt-record:   demo:late   10 hits  10.0/s  (attached at +3.000 s)\n");
}

TEST_CASE("the end report counts silent tracepoints of a wildcard in one line", "[end_report]") {
  EndReport r;
  r.output = "out.trace";
  r.events = 4;
  r.seconds = 1;
  for (uint32_t i = 0; i < 8; ++i) {
    format::ProbeSite s;
    s.id = i;
    s.kind = format::ProbeKind::tracepoint;
    s.provider = "sched";
    s.name = "ev" + std::to_string(i);
    r.sites.push_back(s);
  }
  format::ProbeSite user;
  user.id = 8;
  user.provider = "demo";
  user.name = "never";
  r.sites.push_back(user);
  r.events_per_site = {3, 0, 0, 0, 0, 0, 0, 0, 0};
  r.lost_per_site = {0, 1, 0, 0, 0, 0, 0, 0, 0};
  std::ostringstream out;
  print_end_report(r, out);
  CHECK(out.str() ==
        "usdt-record: 4 events recorded, 0 lost, 0 bytes written to out.trace\n"
        "usdt-record:   tracepoint sched:ev0  3 hits  3.0/s\n"
        "usdt-record:   tracepoint sched:ev1  0 hits  0.0/s  (1 lost)\n"
        "usdt-record:   demo:never            0 hits  0.0/s\n"
        "usdt-record:   and 6 more tracepoints with 0 hits\n");
  // A few silent tracepoints are still listed one by one.
  r.sites.resize(3);
  r.events_per_site = {3, 0, 0};
  r.lost_per_site = {};
  std::ostringstream few;
  print_end_report(r, few);
  CHECK(few.str().find("tracepoint sched:ev2  0 hits") != std::string::npos);
  CHECK(few.str().find("more tracepoints") == std::string::npos);
}

TEST_CASE("the batch queue hands over in order and ends on close", "[batch_queue]") {
  BatchQueue q(2);
  std::vector<uint32_t> got;
  std::thread consumer([&] {
    EventBatch b;
    for (;;) {
      BatchQueue::PopResult r = q.pop_for(b, std::chrono::milliseconds(100));
      if (r == BatchQueue::PopResult::closed) break;
      if (r == BatchQueue::PopResult::batch) {
        for (const auto& e : unpack(b)) got.push_back(e.site_id);
      }
    }
  });
  for (uint32_t i = 0; i < 100; ++i) {
    EventBatch b;
    format::Event e;
    e.site_id = i;
    b.add(e);
    q.push(std::move(b));
  }
  q.close();
  consumer.join();
  REQUIRE(got.size() == 100);
  for (uint32_t i = 0; i < 100; ++i) CHECK(got[i] == i);
}

TEST_CASE("a batch owns copies of its events' strings", "[batch_queue]") {
  EventBatch b;
  std::string text = "SELECT 1";
  format::StringArg arg{text, false};
  format::Event e;
  e.arg_count = 2;
  e.string_mask = 1;
  e.missing_mask = 2;
  e.args[0] = reinterpret_cast<uint64_t>(&arg);
  b.add(e);
  text = "changed!";
  arg.truncated = true;
  std::vector<format::Event> events = unpack(b);
  REQUIRE(events.size() == 1);
  CHECK(events[0].arg_count == 2);
  CHECK(events[0].missing_mask == 2);
  CHECK(events[0].string_arg(0).bytes == "SELECT 1");
  CHECK_FALSE(events[0].string_arg(0).truncated);
  CHECK(events[0].args[0] != reinterpret_cast<uint64_t>(&arg));
}

TEST_CASE("a batch owns copies of its events' stacks, also across blocks", "[batch_queue]") {
  BatchQueue q(2);
  EventBatch b = q.take_empty();
  std::vector<uint64_t> frames(1000);
  // 200 stacks of 1000 frames: more than one block of 64 Ki addresses.
  for (uint64_t n = 0; n < 200; ++n) {
    for (uint64_t i = 0; i < frames.size(); ++i) frames[i] = n * 10000 + i;
    format::Event e;
    e.stack = frames.data();
    e.stack_depth = static_cast<uint16_t>(frames.size());
    e.stack_truncated = n % 2 == 1;
    b.add(e);
  }
  frames.assign(frames.size(), 0);
  std::vector<format::Event> events = unpack(b);
  REQUIRE(events.size() == 200);
  CHECK(b.stack_blocks.size() > 1);
  for (uint64_t n = 0; n < 200; ++n) {
    const format::Event& e = events[n];
    REQUIRE(e.stack_depth == 1000);
    CHECK(e.stack[0] == n * 10000);
    CHECK(e.stack[999] == n * 10000 + 999);
    CHECK(e.stack_truncated == (n % 2 == 1));
  }
  // Recycled, the blocks keep their memory and are filled again.
  q.recycle(std::move(b));
  EventBatch again = q.take_empty();
  CHECK(again.empty());
  format::Event e;
  uint64_t one = 42;
  e.stack = &one;
  e.stack_depth = 1;
  again.add(e);
  format::Event none;
  again.add(none);
  std::vector<format::Event> refilled = unpack(again);
  REQUIRE(refilled.size() == 2);
  CHECK(refilled[0].stack[0] == 42);
  CHECK(refilled[0].stack == again.stack_blocks[0].data());
  CHECK(refilled[1].stack == nullptr);
  CHECK(refilled[1].stack_depth == 0);
}

TEST_CASE("a batch packs every field of its events and unpacks them as they were",
          "[batch_queue]") {
  EventBatch b;
  format::Event full;
  full.time_ns = 0xfedcba9876543210;
  full.pid = 0xfffffff0;
  full.tid = 7;
  full.cpu = 1023;
  full.site_id = 0x80000001;
  full.arg_count = format::kMaxArgs;
  full.missing_mask = 0x0a0a;
  for (int i = 0; i < format::kMaxArgs; ++i) full.args[i] = ~uint64_t{0} - static_cast<uint64_t>(i);
  format::Event bare;  // no arguments: only the header
  bare.time_ns = 1;
  bare.site_id = 3;
  format::Event two = full;
  two.arg_count = 2;
  two.missing_mask = 0;
  b.add(full);
  b.add(bare);
  b.add(two);
  CHECK(b.event_count == 3);
  CHECK(b.size() == 3);
  // Header words each, plus the arguments: 2 arguments take 6 words.
  CHECK(b.packed.size() == 3 * EventBatch::kHeaderWords + format::kMaxArgs + 2);
  std::vector<format::Event> got = unpack(b);
  REQUIRE(got.size() == 3);
  for (size_t k = 0; k < 3; ++k) {
    const format::Event& want = k == 0 ? full : k == 1 ? bare : two;
    CHECK(got[k].time_ns == want.time_ns);
    CHECK(got[k].pid == want.pid);
    CHECK(got[k].tid == want.tid);
    CHECK(got[k].cpu == want.cpu);
    CHECK(got[k].site_id == want.site_id);
    CHECK(got[k].arg_count == want.arg_count);
    CHECK(got[k].missing_mask == want.missing_mask);
    CHECK(got[k].string_mask == 0);
    for (int i = 0; i < format::kMaxArgs; ++i) {
      CHECK(got[k].args[i] == (i < want.arg_count ? want.args[i] : 0));
    }
  }
}

TEST_CASE("the batch queue calls for its consumer when records pile up", "[batch_queue]") {
  BatchQueue q(8);
  std::atomic<int> calls{0};
  q.set_consumer_needed([&] { ++calls; }, 3);
  auto one_event = [] {
    EventBatch b;
    b.add(format::Event());
    return b;
  };
  q.push(one_event());
  q.push(one_event());
  CHECK(calls == 0);  // 2 records waiting, none for long
  q.push(one_event());
  CHECK(calls == 1);  // 3 records: the consumer is needed
  EventBatch out;
  REQUIRE(q.pop_for(out, std::chrono::milliseconds(0)) == BatchQueue::PopResult::batch);
  REQUIRE(q.pop_for(out, std::chrono::milliseconds(0)) == BatchQueue::PopResult::batch);
  q.push(one_event());
  CHECK(calls == 1);  // 2 waiting again
  q.push(one_event());
  CHECK(calls == 2);  // 3 again
  // (How long a batch has waited is the writer's check: writer_thread_test.)

  CHECK(q.size() == 3);
  // (The third case, a consumer holding the lock the producer needs, is a
  // preemption inside a few instructions: not reproducible in a test.)
}

TEST_CASE("the end report says how many events carry a stack", "[end_report]") {
  EndReport r;
  r.output = "out.trace";
  r.events = 30;
  r.call_stacks = true;
  r.stacks = 29;
  r.truncated_stacks = 3;
  std::ostringstream out;
  print_end_report(r, out);
  CHECK(out.str().find("usdt-record: 29 of 30 events carry a call stack, 3 truncated\n") !=
        std::string::npos);
}

TEST_CASE("task lists and liveness come from /proc", "[task_list]") {
  std::vector<pid_t> tids = list_threads(getpid());
  REQUIRE_FALSE(tids.empty());
  CHECK(std::find(tids.begin(), tids.end(), getpid()) != tids.end());
  CHECK(process_alive(getpid()));
  CHECK_FALSE(process_alive(999999999));
  CHECK(list_threads(999999999).empty());
  CHECK_FALSE(read_comm(getpid(), getpid()).empty());
}

TEST_CASE("a held child runs only when released and reports exec failures", "[child_process]") {
  auto ok = ChildProcess::spawn({"/bin/sh", "-c", "exit 5"});
  REQUIRE(ok.ok());
  int status = -1;
  usleep(20000);
  CHECK_FALSE(ok->try_wait(status));  // still held
  REQUIRE(ok->release().ok());
  while (!ok->try_wait(status)) usleep(1000);
  CHECK(status == 5);

  auto missing = ChildProcess::spawn({"/nonexistent/program"});
  REQUIRE(missing.ok());
  Status s = missing->release();
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message() == "cannot run '/nonexistent/program': No such file or directory");

  CHECK(find_in_path("sh").find("/sh") != std::string::npos);
  CHECK(find_in_path("no-such-command-here").empty());
}

TEST_CASE("needed libraries follow DT_NEEDED and RUNPATH", "[elf_lookup]") {
  std::vector<std::string> libs = needed_libraries(FIXTURE_USELIB, LibraryFinder::system());
  bool fixture_lib = false, libc = false;
  for (const std::string& l : libs) {
    if (l.find("libfixture_lib.so") != std::string::npos) fixture_lib = true;
    if (l.find("libc.so") != std::string::npos) libc = true;
  }
  CHECK(fixture_lib);
  CHECK(libc);
}

TEST_CASE("function symbols map to file offsets", "[function_symbols]") {
  Result<std::vector<FunctionSymbol>> all = read_function_symbols(FIXTURE_LIB);
  REQUIRE(all.ok());
  std::vector<FunctionSymbol> call = select_functions(*all, "fixture_lib_call");
  REQUIRE(call.size() == 1);
  CHECK(call[0].display == "fixture_lib_call");
  CHECK(call[0].size > 4);
  CHECK(call[0].file_offset != 0);
  CHECK(select_functions(*all, "no_such_function").empty());
  CHECK_FALSE(read_function_symbols("/nonexistent/lib.so").ok());
}

TEST_CASE("GNU ld layouts map a semaphore's page once", "[elf_lookup]") {
  Result<UsdtFile> file = read_usdt_file(FIXTURE_PROBES_PIE_O2);
  REQUIRE(file.ok());
  uint64_t semaphore = 0;
  for (const UsdtProbe& p : file->probes) {
    for (const UsdtLocation& l : p.locations) {
      if (l.semaphore_offset != 0) semaphore = l.semaphore_offset;
    }
  }
  REQUIRE(semaphore != 0);
  CHECK_FALSE(semaphore_page_mapped_twice(FIXTURE_PROBES_PIE_O2, semaphore));
  CHECK_FALSE(semaphore_page_mapped_twice("/nonexistent", semaphore));
}
