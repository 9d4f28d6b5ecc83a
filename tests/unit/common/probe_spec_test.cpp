#include "common/probe_spec.h"

#include <catch2/catch.hpp>

using usdt::ProbeKind;
using usdt::ProbeSpec;

namespace {
ProbeSpec parse_ok(std::string_view text) {
  auto s = ProbeSpec::parse(text);
  INFO(text);
  if (!s) FAIL(s.error().message());
  return *s;
}
}  // namespace

TEST_CASE("usdt:PATH:PROVIDER:NAME", "[probe_spec]") {
  auto s = parse_ok("usdt:/usr/bin/python3.11:python:function__entry");
  CHECK(s.kind == ProbeKind::usdt);
  CHECK(s.path == "/usr/bin/python3.11");
  CHECK(s.provider == "python");
  CHECK(s.name == "function__entry");
  CHECK(s.text == "usdt:/usr/bin/python3.11:python:function__entry");
  CHECK(s.matches("/usr/bin/python3.11", "python", "function__entry"));
  CHECK_FALSE(s.matches("/usr/bin/python3.12", "python", "function__entry"));
  CHECK_FALSE(s.matches("/usr/bin/python3.11", "python", "function__return"));
}

TEST_CASE("usdt:PATH:NAME means any provider", "[probe_spec]") {
  auto s = parse_ok("usdt:/lib/x86_64-linux-gnu/libstdc++.so.6:throw");
  CHECK(s.path == "/lib/x86_64-linux-gnu/libstdc++.so.6");
  CHECK(s.provider == "*");
  CHECK(s.name == "throw");
  CHECK(s.matches("/lib/x86_64-linux-gnu/libstdc++.so.6", "libstdcxx", "throw"));
}

TEST_CASE("paths with ++ and ':'", "[probe_spec]") {
  auto s = parse_ok("usdt:/usr/lib/libstdc++.so.6:libstdcxx:throw");
  CHECK(s.path == "/usr/lib/libstdc++.so.6");
  CHECK(s.provider == "libstdcxx");
  auto colon = parse_ok("usdt:/opt/a:b/app:prov:name");
  CHECK(colon.path == "/opt/a:b/app");
  CHECK(colon.provider == "prov");
  CHECK(colon.name == "name");
}

TEST_CASE("PROVIDER:NAME and NAME", "[probe_spec]") {
  auto s = parse_ok("postgresql:query__*");
  CHECK(s.kind == ProbeKind::usdt);
  CHECK(s.path.empty());
  CHECK(s.provider == "postgresql");
  CHECK(s.name == "query__*");
  CHECK(s.matches("/anything", "postgresql", "query__start"));
  CHECK_FALSE(s.matches("/anything", "postgresql", "transaction__start"));
  auto n = parse_ok("throw");
  CHECK(n.provider == "*");
  CHECK(n.name == "throw");
  CHECK(n.matches("/x", "libstdcxx", "throw"));
}

TEST_CASE("wildcards in every part", "[probe_spec]") {
  auto s = parse_ok("usdt:/usr/lib/postgresql/*/bin/postgres:post*:lwlock__*");
  CHECK(s.matches("/usr/lib/postgresql/15/bin/postgres", "postgresql", "lwlock__wait__start"));
  CHECK_FALSE(s.matches("/usr/lib/postgresql/15/bin/psql", "postgresql", "lwlock__wait__start"));
  CHECK(parse_ok("*:*").matches("/x", "a", "b"));
}

TEST_CASE("library names and relative paths as PATH", "[probe_spec]") {
  auto lib = parse_ok("usdt:libstdc++:libstdcxx:throw");
  CHECK(lib.matches("/lib/x86_64-linux-gnu/libstdc++.so.6", "libstdcxx", "throw"));
  CHECK_FALSE(lib.matches("/lib/x86_64-linux-gnu/libstdc++fs.so.6", "libstdcxx", "throw"));
  auto soname = parse_ok("usdt:libstdc++.so.6:libstdcxx:throw");
  CHECK(soname.matches("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "libstdcxx", "throw"));
  auto exe = parse_ok("usdt:postgres:postgresql:query__start");
  CHECK(exe.matches("/usr/lib/postgresql/15/bin/postgres", "postgresql", "query__start"));
  auto rel = parse_ok("usdt:./build/app:p:n");
  CHECK(rel.matches("/work/build/app", "p", "n"));
  CHECK_FALSE(rel.matches("/work/xbuild/app", "p", "n"));
}

TEST_CASE("uprobe and uretprobe", "[probe_spec]") {
  auto u = parse_ok("uprobe:/usr/bin/python3.11:PyObject_Call");
  CHECK(u.kind == ProbeKind::uprobe);
  CHECK(u.path == "/usr/bin/python3.11");
  CHECK(u.name == "PyObject_Call");
  CHECK(u.offset == 0);
  CHECK_FALSE(u.matches("/usr/bin/python3.11", "", "PyObject_Call"));
  CHECK(u.matches("/usr/bin/python3.11", "uprobe", "PyObject_Call"));
  CHECK_FALSE(u.matches("/usr/bin/python3.11", "uretprobe", "PyObject_Call"));
  CHECK_FALSE(u.matches("/usr/bin/python3.10", "uprobe", "PyObject_Call"));
  auto off = parse_ok("uprobe:/bin/app:main+16");
  CHECK(off.name == "main");
  CHECK(off.offset == 16);
  auto hex = parse_ok("uprobe:/bin/app:main+0x10");
  CHECK(hex.offset == 16);
  auto r = parse_ok("uretprobe:/usr/lib/libstdc++.so.6:_Znwm");
  CHECK(r.kind == ProbeKind::uretprobe);
  CHECK(r.path == "/usr/lib/libstdc++.so.6");
  CHECK(r.name == "_Znwm");
}

TEST_CASE("uprobe symbols with C++ names, quotes and paths with ':'", "[probe_spec]") {
  auto cxx = parse_ok("uprobe:./server:ns::Server::handle*");
  CHECK(cxx.path == "./server");
  CHECK(cxx.name == "ns::Server::handle*");
  auto quoted = parse_ok("uprobe:./server:'ns::Server::handle(int)'");
  CHECK(quoted.path == "./server");
  CHECK(quoted.name == "ns::Server::handle(int)");
  auto dq = parse_ok("uprobe:/bin/app:\"f+1\"+0x4");
  CHECK(dq.name == "f+1");
  CHECK(dq.offset == 4);
  CHECK(dq.has_offset);
  CHECK(cxx.matches("/srv/server", "uprobe", "ns::Server::handle(int)"));
  CHECK(parse_ok("uprobe:server:ns::twice<int>").matches("/srv/server", "uprobe", "ns::twice<int>(int)"));
  CHECK_FALSE(parse_ok("uprobe:server:ns::twice").matches("/srv/server", "uprobe", "ns::twice<int>(int)"));
  auto colon_path = parse_ok("uprobe:/a:b/x:f");
  CHECK(colon_path.path == "/a:b/x");
  CHECK(colon_path.name == "f");
  auto zero = parse_ok("uprobe:/bin/app:main+0");
  CHECK(zero.has_offset);
  CHECK_FALSE(parse_ok("uprobe:/bin/app:main").has_offset);
  auto ret = parse_ok("uretprobe:libstdc++:std::vector<int, std::allocator<int> >::push_back*");
  CHECK(ret.path == "libstdc++");
  CHECK(ret.name == "std::vector<int, std::allocator<int> >::push_back*");
  for (const char* text : {"uprobe:/x:'f", "uprobe:/x:'f'g", "uprobe:/x:'f'+", "uretprobe:/x:'f'+8"}) {
    INFO(text);
    CHECK_FALSE(ProbeSpec::parse(text).ok());
  }
}

TEST_CASE("bad probe specs", "[probe_spec]") {
  const char* bad[] = {"", "usdt:", "usdt:/x", "usdt::p:n", "usdt:/x::n", "usdt:/x:p:",
                       ":name", "prov:", "uprobe:/x", "uprobe::sym", "uprobe:/x:",
                       "uretprobe:/x:f+8", "kprobe:a:b", "a:b:c"};
  for (const char* text : bad) {
    INFO("'" << text << "'");
    auto s = ProbeSpec::parse(text);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message().rfind("invalid probe '", 0) == 0);
  }
}
