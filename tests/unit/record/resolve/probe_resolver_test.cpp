#include "record/resolve/probe_resolver.h"
#include "tests/unit/support/probe_specs.h"

#include <algorithm>
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
  auto sites = resolve_probes(specs({"fixturelib:call", "uselib:after"}), command(FIXTURE_USELIB));
  REQUIRE(sites.ok());
  REQUIRE(sites->size() == 2);
  CHECK((*sites)[0].provider == "fixturelib");
  CHECK((*sites)[0].path.find("libfixture_lib.so") != std::string::npos);
  CHECK((*sites)[0].args.size() == 2);
  CHECK((*sites)[1].path == FIXTURE_USELIB);
}

TEST_CASE("every location is a site, each with its own semaphore; no duplicates",
          "[probe_resolver]") {
  auto sites = resolve_probes(specs({"fixture:multi", "fixture:mul*", "fixture:guarded"}),
                              command(FIXTURE_PROBES_PIE_O2));
  REQUIRE(sites.ok());
  REQUIRE(sites->size() == 3);
  CHECK((*sites)[0].file_offset != (*sites)[1].file_offset);
  CHECK((*sites)[0].semaphore_offset == 0);
  CHECK((*sites)[2].name == "guarded");
  CHECK((*sites)[2].semaphore_offset != 0);
}

TEST_CASE("usdt:PATH names a file directly", "[probe_resolver]") {
  auto sites = resolve_probes(specs({std::string("usdt:") + FIXTURE_LIB + ":*:*"}), SearchScope{});
  REQUIRE(sites.ok());
  CHECK(sites->size() == 2);  // fixturelib:call and fixturelib:loaded
}

TEST_CASE("a spec that matches nothing names the closest probes", "[probe_resolver]") {
  auto sites = resolve_probes(specs({"fixture:mult"}), command(FIXTURE_PROBES_PIE_O2));
  REQUIRE_FALSE(sites.ok());
  std::string msg = sites.error().message();
  INFO(msg);
  CHECK(msg.find("probe 'fixture:mult' matches nothing") == 0);
  CHECK(msg.find("; did you mean fixture:multi") != std::string::npos);
  // Not a list of every probe (resolve_errors_test has the message's forms).
  CHECK(msg.find("fixture:guarded") == std::string::npos);
}

TEST_CASE("matching nothing names the searched files and hints at dlopen()", "[probe_resolver]") {
  // fixture_uselib and its libraries (libfixture_lib.so, libc, ld.so), all named.
  auto sites = resolve_probes(specs({"hotspot:gc__begin"}), command(FIXTURE_USELIB));
  REQUIRE_FALSE(sites.ok());
  std::string msg = sites.error().message();
  INFO(msg);
  CHECK(msg.find("probe 'hotspot:gc__begin' matches nothing in ") == 0);
  CHECK(msg.find(" files (" FIXTURE_USELIB ", ") != std::string::npos);
  CHECK(msg.find("/libfixture_lib.so, ") != std::string::npos);
  CHECK(msg.find("/libc.so.6") != std::string::npos);
  CHECK(msg.find("); 3 other probes there\n") != std::string::npos);
  CHECK(msg.find("\nhint: if a library the program loads later (dlopen: libjvm.so under java, "
                 "plugins) has it, --allow-missing attaches it then") != std::string::npos);
  // One error line and one hint line, nothing more.
  CHECK(std::count(msg.begin(), msg.end(), '\n') == 1);
}

TEST_CASE("one file without probes: grammar, and no hint for a named file", "[probe_resolver]") {
  auto several = resolve_probes(specs({"x:y"}), command(FIXTURE_NOPROBES));
  REQUIRE_FALSE(several.ok());
  INFO(several.error().message());
  CHECK(several.error().message().find("), which have no USDT probes\nhint: ") !=
        std::string::npos);
  auto named = resolve_probes(specs({std::string("usdt:") + FIXTURE_NOPROBES + ":x:y"}), SearchScope{});
  REQUIRE_FALSE(named.ok());
  CHECK(named.error().message() == std::string("probe 'usdt:") + FIXTURE_NOPROBES +
                                       ":x:y' matches nothing in 1 file (" + FIXTURE_NOPROBES +
                                       "), which has no USDT probes");
}

TEST_CASE("-a needs a path", "[probe_resolver]") {
  auto sites = resolve_probes(specs({"fixture:multi"}), SearchScope{});
  REQUIRE_FALSE(sites.ok());
  CHECK(sites.error().message().find("names no file") != std::string::npos);
}

TEST_CASE("uprobe and uretprobe resolve a symbol; both may be on one function",
          "[probe_resolver]") {
  std::string lib = FIXTURE_LIB;
  auto sites = resolve_probes(
      specs({"uprobe:" + lib + ":fixture_lib_call", "uretprobe:" + lib + ":fixture_lib_call",
             "uprobe:" + lib + ":fixture_lib_call+4"}),
      SearchScope{});
  REQUIRE(sites.ok());
  REQUIRE(sites->size() == 3);
  CHECK((*sites)[0].kind == format::ProbeKind::uprobe);
  CHECK((*sites)[0].provider == "uprobe");
  CHECK((*sites)[0].name == "fixture_lib_call");
  CHECK((*sites)[1].provider == "uretprobe");
  // The library has DWARF: long fixture_lib_call(long value); then the
  // stack pointer as the frame.
  REQUIRE((*sites)[0].args.size() == 2);
  CHECK((*sites)[0].arg_names == std::vector<std::string>{"value"});
  CHECK((*sites)[0].args[0].text == "-8@%rdi");
  CHECK((*sites)[0].args[1].text == "8@%rsp");
  CHECK((*sites)[0].frame_last);
  CHECK((*sites)[0].args_fallback.empty());
  CHECK((*sites)[1].kind == format::ProbeKind::uretprobe);
  CHECK((*sites)[1].file_offset == (*sites)[0].file_offset);
  CHECK((*sites)[1].args.size() == 2);  // the return value and the frame
  CHECK((*sites)[1].frame_last);
  CHECK((*sites)[1].arg_names == std::vector<std::string>{"ret"});
  // Past the entry the ABI says nothing: the six registers as they are.
  CHECK((*sites)[2].arg_names.empty());
  CHECK((*sites)[2].name == "fixture_lib_call+4");
  CHECK_FALSE((*sites)[2].frame_last);  // inside the function %rsp says nothing
  CHECK((*sites)[2].args.size() == 6);
  CHECK((*sites)[2].file_offset == (*sites)[0].file_offset + 4);

  auto missing = resolve_probes(specs({"uprobe:" + lib + ":no_such"}), SearchScope{});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message().find("no function matches 'no_such'") != std::string::npos);

  auto beyond = resolve_probes(specs({"uprobe:" + lib + ":fixture_lib_call+100000"}), SearchScope{});
  REQUIRE_FALSE(beyond.ok());
  CHECK(beyond.error().message().find("offset 100000 is beyond the function fixture_lib_call") !=
        std::string::npos);

  auto many = resolve_probes(specs({"uprobe:libc.so.6:*"}), SearchScope{}, 5);
  REQUIRE_FALSE(many.ok());
  CHECK(many.error().message().find("functions, more than the limit of 5") != std::string::npos);
  CHECK(many.error().message().find("--max-functions") != std::string::npos);
}

TEST_CASE("a uprobe on an IFUNC is refused, and a pattern leaves IFUNCs out", "[probe_resolver]") {
  const std::string path = FIXTURE_IFUNC;
  // Named: an error that names the implementations the file has.
  auto named = resolve_probes(specs({"uprobe:" + path + ":scale"}), SearchScope{});
  REQUIRE_FALSE(named.ok());
  const std::string& msg = named.error().message();
  CHECK(msg.find("scale in '" + path + "' is an IFUNC") != std::string::npos);
  CHECK(msg.find("hint: probe its implementations (scale_fast, scale_plain)") != std::string::npos);
  CHECK(msg.find("-e 'uprobe:" + path + ":*scale_*'") != std::string::npos);
  // A pattern: the implementations, not the IFUNC, with a warning.
  ResolveNotes notes;
  auto pattern = resolve_probes(specs({"uprobe:" + path + ":scal*"}), SearchScope{}, 1000, &notes);
  REQUIRE(pattern.ok());
  std::vector<std::string> names;
  for (const ResolvedSite& s : *pattern) names.push_back(s.name);
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"scale_fast", "scale_plain"});
  REQUIRE(notes.warnings.size() == 1);
  CHECK(notes.warnings[0].find("left out 1 IFUNC (scale)") != std::string::npos);
  // The resolver's own name, at the IFUNC's address, is the resolver: kept.
  ResolveNotes all_notes;
  auto all = resolve_probes(specs({"uprobe:" + path + ":*scale*"}), SearchScope{}, 1000, &all_notes);
  REQUIRE(all.ok());
  names.clear();
  for (const ResolvedSite& s : *all) names.push_back(s.name);
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"resolve_scale", "scale_fast", "scale_plain"});
  CHECK(all_notes.warnings.empty());
  // A pattern matching only IFUNCs: the same error as the name.
  auto only = resolve_probes(specs({"uprobe:" + path + ":scal?"}), SearchScope{});
  REQUIRE_FALSE(only.ok());
  CHECK(only.error().message().find("is an IFUNC") != std::string::npos);
}

TEST_CASE("a named file that does not exist is an error", "[probe_resolver]") {
  auto sites = resolve_probes(specs({"usdt:/nonexistent/file:a:b"}), SearchScope{});
  REQUIRE_FALSE(sites.ok());
  CHECK(sites.error().message().find("no file '/nonexistent/file'") != std::string::npos);
}
