// The writer thread: every batch written, and its scheduling class (idle
// while it keeps up, normal when the drain loop calls for it).
#include "record/session/writer_thread.h"

#include <sched.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <thread>

#include "formats/trace_reader.h"
#include "record/output/file_sink.h"
#include "record/session/thread_priority.h"
#include "tests/skip_case.h"
#include "tests/unit/support/format_test_util.h"

using namespace usdt;
using namespace usdt::record;
using namespace usdt::format::test;

namespace {

// The writer thread's policy once it has started and set it: it publishes
// its id before it sets its policy, so this waits up to a second for
// `expected` and returns what it last saw.
int policy_of(const WriterThread& writer, int expected) {
  int policy = -1;
  for (int i = 0; i < 1000; ++i) {
    if (writer.tid() != 0 && (policy = sched_getscheduler(writer.tid())) == expected) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return policy;
}

EventBatch batch_of(size_t events, uint64_t first_time) {
  EventBatch b;
  format::Event e;
  e.site_id = 1;  // sample_sites(2): site 1 has one argument
  e.arg_count = 1;
  for (size_t i = 0; i < events; ++i) {
    e.time_ns = first_time + i;
    e.args[0] = i;
    b.add(e);
  }
  return b;
}

// A writer thread on a fresh trace file and queue.
struct WriterOnFile {
  TempPath tmp;
  BatchQueue queue{64};
  std::unique_ptr<WriterThread> writer;

  explicit WriterOnFile(WriterThread::Priority priority, WriterThread::Hooks hooks = {}) {
    auto w = format::TraceWriter::create(tmp.str(), sample_metadata(), sample_sites(2));
    REQUIRE(w.ok());
    auto sink = std::make_unique<FileSink>(std::move(*w), tmp.str(), 0);
    writer = std::make_unique<WriterThread>(std::move(sink), queue, priority, std::move(hooks));
  }
};

// Whether this process may raise a thread out of SCHED_IDLE; says why not.
// Under CI=true the tests run as root: there a missing capability fails the
// case, since a pass would claim what was never run.
bool can_test_idle_writer() {
  if (can_leave_idle_priority()) return true;
  if (usdt::test::in_ci()) {
    FAIL("this process may not leave SCHED_IDLE (no CAP_SYS_NICE, RLIMIT_NICE too low) under "
         "CI=true, where the tests run as root");
  }
  WARN(
      "not run: this process may not leave SCHED_IDLE (no CAP_SYS_NICE), and usdt-record "
      "then keeps its writer normal");
  return false;
}

uint64_t events_in(const std::string& path) {
  auto r = format::TraceReader::open(path);
  REQUIRE(r.ok());
  uint64_t n = 0;
  while (r->next()) n += r->kind() == format::RecordKind::event;
  return n;
}

}  // namespace

TEST_CASE("an idle writer thread runs in SCHED_IDLE, is raised when called for, writes all",
          "[writer_thread]") {
  if (!can_test_idle_writer()) return;
  WriterOnFile f(WriterThread::Priority::idle);
  BatchQueue& queue = f.queue;
  WriterThread& writer = *f.writer;
  CHECK(policy_of(writer, SCHED_IDLE) == SCHED_IDLE);
  queue.push(batch_of(100, 1000));
  // 128 Ki records waiting call for it: the push raises it before returning.
  // (It lowers itself again once it has emptied the queue, which takes it
  // longer than this check.)
  queue.push(batch_of(128 * 1024, 2000));
  CHECK(sched_getscheduler(writer.tid()) == SCHED_OTHER);
  REQUIRE(writer.finish(format::TraceSummary{}).ok());
  CHECK(events_in(f.tmp.str()) == 100 + 128 * 1024);
}

TEST_CASE("a normal writer thread stays in SCHED_OTHER", "[writer_thread]") {
  WriterOnFile f(WriterThread::Priority::normal);
  BatchQueue& queue = f.queue;
  WriterThread& writer = *f.writer;
  CHECK(policy_of(writer, SCHED_OTHER) == SCHED_OTHER);
  queue.push(batch_of(10, 1000));
  REQUIRE(writer.finish(format::TraceSummary{}).ok());
  CHECK(events_in(f.tmp.str()) == 10);
}

TEST_CASE("an idle writer is behind when a batch or its chunk has waited too long",
          "[writer_thread]") {
  using std::chrono::milliseconds;
  const auto t0 = std::chrono::steady_clock::time_point(std::chrono::seconds(1000));
  const milliseconds second(1000);
  CHECK_FALSE(writer_is_behind(t0, std::nullopt, std::nullopt, second));
  // A batch in the queue: behind once it has waited the flush interval.
  CHECK_FALSE(writer_is_behind(t0 + milliseconds(999), t0, std::nullopt, second));
  CHECK(writer_is_behind(t0 + second, t0, std::nullopt, second));
  // An unflushed chunk: the writer flushes it at the latest a second after
  // its last batch, so only twice the interval is late.
  CHECK_FALSE(writer_is_behind(t0 + milliseconds(1999), std::nullopt, t0, second));
  CHECK(writer_is_behind(t0 + 2 * second, std::nullopt, t0, second));
}

TEST_CASE("the queue tells when its oldest batch was queued", "[writer_thread]") {
  BatchQueue queue(8);
  CHECK_FALSE(queue.oldest_queued_at().has_value());
  queue.push(batch_of(1, 1000));
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const auto between = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  queue.push(batch_of(1, 2000));
  REQUIRE(queue.oldest_queued_at().has_value());
  CHECK(*queue.oldest_queued_at() < between);
  EventBatch b;
  REQUIRE(queue.pop_for(b, std::chrono::milliseconds(0)) == BatchQueue::PopResult::batch);
  REQUIRE(queue.oldest_queued_at().has_value());
  CHECK(*queue.oldest_queued_at() > between);
}

TEST_CASE("keep_up raises an idle writer that has left events waiting, and only then",
          "[writer_thread]") {
  if (!can_test_idle_writer()) return;
  WriterOnFile f(WriterThread::Priority::idle);
  BatchQueue& queue = f.queue;
  WriterThread& writer = *f.writer;
  REQUIRE(policy_of(writer, SCHED_IDLE) == SCHED_IDLE);
  // Nothing queued, nothing appended: however late, nothing to catch up on.
  writer.keep_up(std::chrono::steady_clock::now() + std::chrono::hours(1));
  CHECK(sched_getscheduler(writer.tid()) == SCHED_IDLE);

  queue.push(batch_of(100, 1000));
  // Seen from three seconds on, the batch is late wherever it is: still
  // queued, or appended and unflushed (the thread flushes a second after its
  // last batch, so it stays raised until then once it has appended).
  bool raised = false;
  for (int i = 0; i < 5000 && !raised; ++i) {
    writer.keep_up(std::chrono::steady_clock::now() + std::chrono::seconds(3));
    raised = sched_getscheduler(writer.tid()) == SCHED_OTHER;
    if (!raised) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(raised);
  REQUIRE(writer.finish(format::TraceSummary{}).ok());
  CHECK(events_in(f.tmp.str()) == 100);
}

TEST_CASE("a drain pass held up raises an idle writer, and only then", "[writer_thread]") {
  // The watchdog: whatever held the drain loop may be held by the idle
  // writer (the memory map lock, measured), so a long pass raises it.
  if (!can_test_idle_writer()) return;
  WriterOnFile f(WriterThread::Priority::idle);
  WriterThread& writer = *f.writer;
  REQUIRE(policy_of(writer, SCHED_IDLE) == SCHED_IDLE);
  // Between passes (the drain loop waiting for events): left idle.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(sched_getscheduler(writer.tid()) == SCHED_IDLE);
  // A pass that lasts: raised within about 30 ms.
  writer.pass_begins();
  CHECK(policy_of(writer, SCHED_OTHER) == SCHED_OTHER);
  writer.keep_up();
  REQUIRE(writer.finish(format::TraceSummary{}).ok());
}

TEST_CASE("an exception in the writer thread is an error of the run, not std::terminate",
          "[writer_thread]") {
  WriterThread::Hooks hooks;
  int batches = 0;
  hooks.before_batch = [&batches] {
    if (++batches == 2) throw std::bad_alloc();
  };
  WriterOnFile f(WriterThread::Priority::normal, std::move(hooks));
  f.queue.push(batch_of(10, 1000));
  f.queue.push(batch_of(10, 2000));  // throws
  // The drain loop goes on pushing until it sees failed(): never blocked.
  for (int i = 0; i < 200; ++i) f.queue.push(batch_of(10, 3000));
  Status s = f.writer->finish(format::TraceSummary{});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message() == "internal error in the writer thread: std::bad_alloc");
  CHECK(f.writer->failed());
  CHECK_FALSE(f.writer->trace_finished());
  // No chunk was flushed before the exception; the file still opens.
  CHECK(format::TraceReader::open(f.tmp.str()).ok());
}

TEST_CASE("an exception in the watchdog stops it; the file still gets its end", "[writer_thread]") {
  if (!can_test_idle_writer()) return;
  WriterThread::Hooks hooks;
  hooks.watchdog_look = [] { throw std::bad_alloc(); };
  WriterOnFile f(WriterThread::Priority::idle, std::move(hooks));
  f.queue.push(batch_of(10, 1000));
  // The watchdog looks every 10 ms: failed() says it is gone.
  for (int i = 0; i < 1000 && !f.writer->failed(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(f.writer->failed());
  // Without a watchdog the writer is not left idle.
  CHECK(policy_of(*f.writer, SCHED_OTHER) == SCHED_OTHER);
  Status s = f.writer->finish(format::TraceSummary{});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message() == "internal error in the watchdog thread: std::bad_alloc");
  CHECK(f.writer->trace_finished());
  CHECK(events_in(f.tmp.str()) == 10);
}
