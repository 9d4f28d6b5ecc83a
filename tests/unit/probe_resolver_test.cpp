#include "record/probe_resolver.h"

#include <catch2/catch.hpp>

#include "fixture_paths.h"

using namespace usdt;
using namespace usdt::record;

namespace {

SearchScope command(const char* binary) {
  SearchScope scope;
  scope.command_binary = binary;
  return scope;
}

}  // namespace

TEST_CASE("PROVIDER:NAME is searched in the command and its libraries", "[probe_resolver]") {
  auto sites = resolve_probes({"fixturelib:call", "uselib:after"}, command(FIXTURE_USELIB));
  REQUIRE(sites.ok());
  REQUIRE(sites->size() == 2);
  CHECK((*sites)[0].provider == "fixturelib");
  CHECK((*sites)[0].path.find("libfixture_lib.so") != std::string::npos);
  CHECK((*sites)[0].args.size() == 2);
  CHECK((*sites)[1].path == FIXTURE_USELIB);
}

TEST_CASE("every location is a site, each with its own semaphore; no duplicates",
          "[probe_resolver]") {
  auto sites = resolve_probes({"fixture:multi", "fixture:mul*", "fixture:guarded"},
                              command(FIXTURE_PROBES_PIE_O2));
  REQUIRE(sites.ok());
  REQUIRE(sites->size() == 3);
  CHECK((*sites)[0].file_offset != (*sites)[1].file_offset);
  CHECK((*sites)[0].semaphore_offset == 0);
  CHECK((*sites)[2].name == "guarded");
  CHECK((*sites)[2].semaphore_offset != 0);
}

TEST_CASE("usdt:PATH names a file directly", "[probe_resolver]") {
  auto sites = resolve_probes({std::string("usdt:") + FIXTURE_LIB + ":*:*"}, SearchScope{});
  REQUIRE(sites.ok());
  CHECK(sites->size() == 2);  // fixturelib:call and fixturelib:loaded
}

TEST_CASE("a spec that matches nothing lists what exists", "[probe_resolver]") {
  auto sites = resolve_probes({"fixture:nope"}, command(FIXTURE_PROBES_PIE_O2));
  REQUIRE_FALSE(sites.ok());
  std::string msg = sites.error().message();
  CHECK(msg.find("probe 'fixture:nope' matches nothing") == 0);
  CHECK(msg.find("fixture:multi") != std::string::npos);
  CHECK(msg.find("fixture:guarded") != std::string::npos);
}

TEST_CASE("-a needs a path", "[probe_resolver]") {
  auto sites = resolve_probes({"fixture:multi"}, SearchScope{});
  REQUIRE_FALSE(sites.ok());
  CHECK(sites.error().message().find("names no file") != std::string::npos);
}

TEST_CASE("uprobe and uretprobe resolve a symbol; both may be on one function",
          "[probe_resolver]") {
  std::string lib = FIXTURE_LIB;
  auto sites = resolve_probes(
      {"uprobe:" + lib + ":fixture_lib_call", "uretprobe:" + lib + ":fixture_lib_call",
       "uprobe:" + lib + ":fixture_lib_call+4"},
      SearchScope{});
  REQUIRE(sites.ok());
  REQUIRE(sites->size() == 3);
  CHECK((*sites)[0].kind == format::ProbeKind::uprobe);
  CHECK((*sites)[0].provider == "libfixture_lib.so");
  CHECK((*sites)[0].args.size() == 6);
  CHECK((*sites)[1].kind == format::ProbeKind::uretprobe);
  CHECK((*sites)[1].file_offset == (*sites)[0].file_offset);
  CHECK((*sites)[1].args.size() == 1);
  CHECK((*sites)[2].name == "fixture_lib_call+4");
  CHECK((*sites)[2].file_offset == (*sites)[0].file_offset + 4);

  auto missing = resolve_probes({"uprobe:" + lib + ":no_such"}, SearchScope{});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message().find("no function 'no_such'") != std::string::npos);
}

TEST_CASE("a named file that does not exist is an error", "[probe_resolver]") {
  auto sites = resolve_probes({"usdt:/nonexistent/file:a:b"}, SearchScope{});
  REQUIRE_FALSE(sites.ok());
  CHECK(sites.error().message().find("no file '/nonexistent/file'") != std::string::npos);
}
