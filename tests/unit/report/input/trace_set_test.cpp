// TraceSet::open on odd inputs: non-regular files are refused without
// blocking, and the same recording named twice is read once.
#include "report/input/trace_set.h"

#include <sys/stat.h>
#include <unistd.h>

// GCC 12 reports false -Wrestrict errors inside libstdc++ string code
// (GCC bug 105329); report/CMakeLists.txt disables it for the same reason.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "formats/trace_writer.h"

namespace fmt = usdt::format;
namespace fs = std::filesystem;
using usdt::report::TraceSet;

namespace {

// A scratch directory, removed with everything in it.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    path = "/tmp/usdt_trace_set_test_";
    path.append(std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const char* name) const { return path + "/" + name; }
};

void write_trace(const std::string& path, const std::string& host, uint64_t start_mono, uint64_t start_real) {
  fmt::TraceMetadata m;
  m.hostname = host;
  m.start_monotonic_ns = start_mono;
  m.start_realtime_ns = start_real;
  std::vector<fmt::ProbeSite> sites(1);
  sites[0].provider = "p";
  sites[0].name = "a";
  auto w = fmt::TraceWriter::create(path, m, sites);
  REQUIRE(w);
  fmt::Event e;
  e.time_ns = start_mono + 10;
  e.pid = e.tid = 1;
  REQUIRE(w->append(e));
  fmt::TraceSummary s;
  s.end_monotonic_ns = start_mono + 100;
  s.events = 1;
  s.events_per_site = {1};
  s.lost_per_site = {0};
  REQUIRE(w->finish(s));
}

uint64_t count_events(TraceSet& set) {
  uint64_t n = 0;
  usdt::report::Record r;
  while (set.next(r)) n += r.kind == fmt::RecordKind::event;
  return n;
}

}  // namespace

TEST_CASE("non-regular files are refused with one clear message", "[trace_set]") {
  ScratchDir dir;
  auto directory = TraceSet::open({dir.path});
  REQUIRE(!directory);
  CHECK(directory.error().message() ==
        "'" + dir.path + "' is a directory without trace files (*.trace)");
  auto device = TraceSet::open({"/dev/zero"});
  REQUIRE(!device);
  CHECK(device.error().message() == "'/dev/zero' is a character device, not a trace file");
  // A FIFO without a writer: opening it would block; it is refused first.
  std::string fifo = dir.file("fifo.trace");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto pipe = TraceSet::open({fifo});
  REQUIRE(!pipe);
  CHECK(pipe.error().message() == "'" + fifo + "' is a pipe, not a trace file");
  auto missing = TraceSet::open({dir.file("none.trace")});
  REQUIRE(!missing);
  CHECK(missing.error().message() == "cannot open '" + dir.file("none.trace") + "': No such file or directory");
}

TEST_CASE("a non-regular file among traces is left out with a warning", "[trace_set]") {
  ScratchDir dir;
  write_trace(dir.file("a.trace"), "h", 1000, 5000);
  // A directory stands for the traces in it (trace_series_test.cpp): one
  // without any is left out.
  const std::string empty = dir.file("empty");
  fs::create_directories(empty);
  auto set = TraceSet::open({dir.file("a.trace"), empty});
  REQUIRE(set);
  CHECK((*set)->files().size() == 1);
  REQUIRE((*set)->warnings().size() == 1);
  CHECK((*set)->warnings()[0] == "'" + empty + "' is a directory without trace files (*.trace)");
}

TEST_CASE("the same recording given twice is read once", "[trace_set]") {
  ScratchDir dir;
  std::string a = dir.file("a.trace");
  write_trace(a, "h", 1000, 5000);
  SECTION("the same path twice") {
    auto set = TraceSet::open({a, a});
    REQUIRE(set);
    CHECK((*set)->files().size() == 1);
    REQUIRE((*set)->duplicates().size() == 1);
    CHECK((*set)->duplicates()[0] == "'" + a + "' is the same recording as '" + a + "': counted once");
    CHECK(count_events(**set) == 1);
  }
  SECTION("a symlink and a hard link") {
    fs::create_symlink(a, dir.file("sym.trace"));
    fs::create_hard_link(a, dir.file("hard.trace"));
    auto set = TraceSet::open({a, dir.file("sym.trace"), dir.file("hard.trace")});
    REQUIRE(set);
    CHECK((*set)->files().size() == 1);
    CHECK((*set)->duplicates().size() == 2);
    CHECK(count_events(**set) == 1);
  }
  SECTION("a copy: same host and start times") {
    fs::copy_file(a, dir.file("copy.trace"));
    auto set = TraceSet::open({dir.file("copy.trace"), a});
    REQUIRE(set);
    CHECK((*set)->files().size() == 1);
    CHECK((*set)->files()[0].path == dir.file("copy.trace"));
    REQUIRE((*set)->duplicates().size() == 1);
    CHECK((*set)->duplicates()[0] == "'" + a + "' is the same recording as '" + dir.file("copy.trace") +
                                         "': counted once");
    CHECK(count_events(**set) == 1);
  }
  SECTION("other recordings are all read") {
    write_trace(dir.file("b.trace"), "h", 2000, 6000);        // same host, later
    write_trace(dir.file("c.trace"), "other", 1000, 5000);    // same times, other host
    auto set = TraceSet::open({a, dir.file("b.trace"), dir.file("c.trace")});
    REQUIRE(set);
    CHECK((*set)->files().size() == 3);
    CHECK((*set)->duplicates().empty());
    CHECK(count_events(**set) == 3);
  }
}

TEST_CASE("sites added during a recording are in the catalog of a set of files", "[trace_set]") {
  ScratchDir dir;
  std::string a = dir.file("a.trace");
  write_trace(a, "h", 1000, 5000);
  std::string b = dir.file("b.trace");
  {
    fmt::TraceMetadata m;
    m.hostname = "h";
    m.start_monotonic_ns = 2000;
    m.start_realtime_ns = 6000;
    std::vector<fmt::ProbeSite> sites(1);
    sites[0].provider = "p";
    sites[0].name = "a";
    auto w = fmt::TraceWriter::create(b, m, sites);
    REQUIRE(w);
    std::vector<fmt::ProbeSite> added(1);
    added[0].id = 1;
    added[0].provider = "plugin";
    added[0].name = "load";
    REQUIRE(w->add_sites(added, 2500));  // format 1.4: a library dlopen()ed later
    fmt::Event e;
    e.time_ns = 2600;
    e.pid = e.tid = 1;
    e.site_id = 1;
    REQUIRE(w->append(e));
    fmt::TraceSummary s;
    s.end_monotonic_ns = 3000;
    s.events = 1;
    s.events_per_site = {0, 1};
    REQUIRE(w->finish(s));
  }
  auto set = TraceSet::open({a, b});
  REQUIRE(set);
  const usdt::report::ProbeCatalog& catalog = (*set)->catalog();
  REQUIRE(catalog.site_count() == 3);
  uint32_t load = catalog.global_site(1, 1);
  REQUIRE(load != usdt::report::ProbeCatalog::kUnknownSite);
  CHECK(catalog.probe_of_site(load).full_name == "plugin:load");
  CHECK(catalog.site(load).active_since_ns == 2500);
  CHECK(catalog.site(catalog.global_site(1, 0)).active_since_ns == 0);
  // A file's table at once (sites_of) gives what global_site gives, id by id.
  for (uint32_t file = 0; file < 3; ++file) {
    const usdt::report::ProbeCatalog::FileSites sites = catalog.sites_of(file);
    for (uint32_t id = 0; id < 4; ++id) {
      CHECK(sites.at(id) == catalog.global_site(file, id));
    }
  }
  CHECK(catalog.sites_of(2).size() == 0);  // no third file
  REQUIRE((*set)->files()[1].summary.has_value());
  CHECK((*set)->files()[1].summary->events_per_site == std::vector<uint64_t>{0, 1});
  CHECK(count_events(**set) == 2);
}

TEST_CASE("a segment keeps its bounds when it is given a read filter", "[trace_set]") {
  // (ProcessHistory reads the process records between two times through a
  // segment with a filter of its own: without its bounds it read them all.)
  ScratchDir dir;
  const std::string path = dir.file("many.trace");
  {
    fmt::TraceMetadata m;
    m.hostname = "h";
    m.start_monotonic_ns = 1000;
    std::vector<fmt::ProbeSite> sites(1);
    sites[0].provider = "p";
    sites[0].name = "a";
    fmt::WriterOptions opt;
    opt.chunk_bytes = 512;
    auto w = fmt::TraceWriter::create(path, m, sites, opt);
    REQUIRE(w);
    for (uint64_t i = 0; i < 1000; ++i) {
      fmt::Event e;
      e.time_ns = 2000 + i * 10;
      e.pid = e.tid = 1;
      REQUIRE(w->append(e));
    }
    fmt::TraceSummary s;
    s.end_monotonic_ns = 20000;
    s.events = 1000;
    s.events_per_site = {1000};
    s.lost_per_site = {0};
    REQUIRE(w->finish(s));
  }
  auto set = TraceSet::open({path});
  REQUIRE(set);
  // One host: the timeline is the recorded clock. Events 250 to 499:
  const uint64_t begin = 2000 + 250 * 10;
  const uint64_t end = 2000 + 500 * 10;
  std::unique_ptr<usdt::report::TraceInput> segment = (*set)->open_segment(begin, end);
  REQUIRE(segment);
  fmt::ReadFilter filter;
  filter.arguments = false;
  segment->set_read_filter(0, filter);
  uint64_t n = 0;
  usdt::report::Record r;
  while (segment->next(r)) {
    CHECK(r.time >= begin);
    CHECK(r.time < end);
    n += r.kind == fmt::RecordKind::event;
  }
  CHECK(n == 250);
}
