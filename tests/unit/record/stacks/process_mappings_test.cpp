#include "record/stacks/process_mappings.h"

#include <catch2/catch.hpp>

using usdt::record::ExecMapping;
using usdt::record::ProcessMappings;

TEST_CASE("an address is found in the mapping that holds it") {
  ProcessMappings maps;
  maps.add({0x1000, 0x2000, 0x0, "/a", "aa"});
  maps.add({0x5000, 0x6000, 0x3000, "/b", ""});
  REQUIRE(maps.find(0xfff) == nullptr);
  REQUIRE(maps.find(0x1000)->path == "/a");
  REQUIRE(maps.find(0x1fff)->path == "/a");
  REQUIRE(maps.find(0x2000) == nullptr);
  REQUIRE(maps.find(0x5010)->file_offset_of(0x5010) == 0x3010);
  REQUIRE(maps.find(0x6000) == nullptr);
}

TEST_CASE("a new mapping replaces what it overlaps and keeps the rest") {
  ProcessMappings maps;
  maps.add({0x1000, 0x4000, 0x100, "/old", ""});
  uint64_t before = maps.generation();
  maps.add({0x2000, 0x3000, 0x0, "/new", ""});
  REQUIRE(maps.generation() > before);
  REQUIRE(maps.all().size() == 3);
  REQUIRE(maps.find(0x1800)->path == "/old");
  REQUIRE(maps.find(0x2800)->path == "/new");
  const ExecMapping* right = maps.find(0x3800);
  REQUIRE(right->path == "/old");
  REQUIRE(right->file_offset_of(0x3800) == 0x100 + 0x2800);
}

TEST_CASE("a library mapped where another was unloaded takes its place") {
  ProcessMappings maps;
  maps.add({0x7000, 0x8000, 0, "/lib1.so", "01"});
  maps.add({0x7000, 0x8000, 0, "/lib2.so", "02"});
  REQUIRE(maps.all().size() == 1);
  REQUIRE(maps.find(0x7100)->build_id == "02");
  maps.add({0x9000, 0x9000, 0, "/empty", ""});
  REQUIRE(maps.all().size() == 1);
  maps.clear();
  REQUIRE(maps.find(0x7100) == nullptr);
}
