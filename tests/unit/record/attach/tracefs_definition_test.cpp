// define_tracefs_events on this machine's tracefs (root): -a finds its sites
// in files that running processes map, and such a file may be deleted
// before the site's tracefs event is defined. Every case is hidden and runs
// as a CTest entry of its own (tests/tag_tests.cmake, label integration).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

#include "fixture_paths.h"
#include "tests/unit/support/probe_specs.h"
#include "record/resolve/probe_resolver.h"
#include "record/record_options.h"
#include "record/plan/recording_plan.h"
#include "record/kernel/sample_decoder.h"
#include "tests/skip_case.h"

using namespace usdt::record;
using usdt::Result;

namespace {

// Resolves and plans usdt:PATH:fixture:args2 with its first argument read
// by the kernel as a string: a site that needs a tracefs event.
struct PlannedCopy {
  RecordingPlan plan;
  std::vector<SiteAttach> attach;
  std::unique_ptr<SampleDecoder> decoder;
};

PlannedCopy plan_copy(const std::string& path) {
  const std::string spec = "usdt:" + path + ":fixture:args2";
  const char* argv[] = {"usdt-record", "-a", "-e", spec.c_str(), "--string", "fixture:args2=arg0"};
  Result<RecordOptions> options = parse_record_options(6, argv);
  REQUIRE(options);
  Result<std::vector<ResolvedSite>> resolved = resolve_probes(specs({spec}), SearchScope{});
  REQUIRE(resolved);
  REQUIRE(!resolved->empty());
  std::ostringstream err;
  Result<RecordingPlan> plan = plan_recording(*options, *resolved, err);
  INFO(err.str());
  REQUIRE(plan);
  PlannedCopy p;
  p.plan = std::move(*plan);
  std::vector<SiteDecoding> decodings;
  for (uint32_t id = 0; id < p.plan.sites.size(); ++id) {
    REQUIRE(p.plan.sites[id].sampling.needs_kernel_reads());
    p.attach.push_back(to_site_attach(p.plan.sites[id], id));
    decodings.push_back(to_site_decoding(p.plan.sites[id], id));
  }
  p.decoder = std::make_unique<SampleDecoder>(std::move(decodings), true);
  return p;
}

}  // namespace

TEST_CASE("-a: a site whose file is deleted before its tracefs event is defined is left out",
          "[.root][tracefs_gone_file]") {
  if (geteuid() != 0) usdt::test::skip_case("not root: tracefs events need root");
  char dir_template[] = "/tmp/usdt_tracefs_gone_XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string copy = std::string(dir_template) + "/fixture_probes";
  std::filesystem::copy_file(FIXTURE_PROBES_PIE_O2, copy);
  PlannedCopy p = plan_copy(copy);
  REQUIRE(p.plan.tracefs);
  const size_t sites = p.plan.sites.size();
  unlink(copy.c_str());
  rmdir(dir_template);
  std::ostringstream err;

  SECTION("with gone given, the site is marked and nothing fails") {
    std::vector<bool> gone;
    Result<UprobeEventGroup> group = define_tracefs_events(p.plan, p.attach, *p.decoder, &gone);
    REQUIRE(group);
    CHECK(gone == std::vector<bool>(sites, true));
    CHECK(group->names().empty());
    CHECK(site_file_gone(p.plan.sites[0].resolved));
  }
  SECTION("without it (a named file, -p, --), the missing file is an error") {
    Result<UprobeEventGroup> group = define_tracefs_events(p.plan, p.attach, *p.decoder);
    REQUIRE_FALSE(group);
    CHECK(group.error().message().find("cannot define fixture:args2") != std::string::npos);
  }
}

TEST_CASE("-a: a site whose file is still there is defined as before",
          "[.root][tracefs_file_there]") {
  if (geteuid() != 0) usdt::test::skip_case("not root: tracefs events need root");
  PlannedCopy p = plan_copy(FIXTURE_PROBES_PIE_O2);
  REQUIRE(p.plan.tracefs);
  std::ostringstream err;
  std::vector<bool> gone;
  Result<UprobeEventGroup> group = define_tracefs_events(p.plan, p.attach, *p.decoder, &gone);
  INFO(err.str());
  REQUIRE(group);
  CHECK(gone == std::vector<bool>(p.plan.sites.size(), false));
  CHECK(group->names().size() == p.plan.sites.size());
  CHECK_FALSE(site_file_gone(p.plan.sites[0].resolved));
  CHECK(p.attach[0].config.tracepoint_id != 0);
}
