#include "record/resolve/resolve_errors.h"

#include <catch2/catch.hpp>

using namespace usdt;
using namespace usdt::record;

namespace {

ProbeSpec spec(const char* text) {
  Result<ProbeSpec> s = ProbeSpec::parse(text);
  REQUIRE(s.ok());
  return *s;
}

size_t lines(const std::string& s) {
  size_t n = 1;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

TEST_CASE("a misspelt probe names the closest probes, not every probe", "[resolve_errors]") {
  NoMatch searched;
  searched.files = {"/usr/bin/ruby3.1", "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1.2"};
  for (const char* p : {"ruby:method__entry", "ruby:method__return", "ruby:cmethod__entry",
                        "ruby:cmethod__return", "ruby:gc__mark__begin", "ruby:array__create"}) {
    searched.probes.insert(p);
  }
  searched.may_load_later = true;
  const std::string msg = no_match_error(spec("ruby:method_entry"), searched).message();
  INFO(msg);
  CHECK(
      msg.rfind("probe 'ruby:method_entry' matches nothing in 2 files (/usr/bin/ruby3.1, "
                "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1.2); did you mean ruby:method__entry",
                0) == 0);
  CHECK(msg.find("gc__mark__begin") == std::string::npos);
  CHECK(msg.find("array__create") == std::string::npos);
  // One hint, which says why --allow-missing exists.
  CHECK(lines(msg) == 2);
  CHECK(msg.find("\nhint: if a library the program loads later (dlopen: libjvm.so under java, "
                 "plugins) has it, --allow-missing attaches it then") != std::string::npos);
}

TEST_CASE("a probe of a named file: the hint lists its probes", "[resolve_errors]") {
  NoMatch searched;
  searched.files = {"/srv/app"};
  searched.probes = {"myapp:request__start", "myapp:request__done"};
  const std::string msg =
      no_match_error(spec("usdt:/srv/app:myapp:request_start"), searched).message();
  CHECK(msg.find("did you mean myapp:request__start?") != std::string::npos);
  CHECK(msg.find("\nhint: list the probes with usdt-record -l /srv/app") != std::string::npos);
}

TEST_CASE("nothing close, no probes at all", "[resolve_errors]") {
  NoMatch searched;
  searched.files = {"/bin/true"};
  CHECK(no_match_error(spec("x:y"), searched).message().find(", which has no USDT probes") !=
        std::string::npos);
  searched.probes = {"python:line", "python:audit"};
  const std::string msg = no_match_error(spec("postgresql:query__start"), searched).message();
  CHECK(msg.find("did you mean") == std::string::npos);
  CHECK(msg.find("2 other probes there") != std::string::npos);
}

TEST_CASE("a NAME without provider is compared by name", "[resolve_errors]") {
  NoMatch searched;
  searched.files = {"/a"};
  searched.probes = {"demo:req_start", "demo:req_done", "demo:cache_miss"};
  const std::string msg = no_match_error(spec("req_stat"), searched).message();
  CHECK(msg.find("did you mean demo:req_start?") != std::string::npos);
}
