// MappingFollower: which newly mapped files are examined, which sites the
// PROVIDER:NAME specs select there, and which specs never matched.
#include "record/resolve/mapping_follower.h"
#include "tests/unit/support/probe_specs.h"

#include <dlfcn.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "fixture_paths.h"

using namespace usdt;
using namespace usdt::record;

namespace {

// An mmap record of this process for a file, at an address where nothing
// is mapped: the follower then reads the file by its path.
format::ProcessEvent mmap_of(const std::string& path) {
  format::ProcessEvent e;
  e.kind = format::ProcessEventKind::mmap;
  e.pid = static_cast<uint32_t>(getpid());
  e.tid = e.pid;
  e.map_address = 0x1000;
  e.map_length = 0x1000;
  e.path = path;
  return e;
}

}  // namespace

TEST_CASE("a new file is examined once and gives the sites the specs select",
          "[mapping_follower]") {
  MappingFollower follower(specs({"fixturelib:call", "nosuch:*", "usdt:/x:fixturelib:loaded"}),
                           {"fixturelib:call", "nosuch:*"});
  std::vector<ResolvedSite> sites = follower.examine(mmap_of(FIXTURE_LIB));
  REQUIRE(sites.size() == 1);
  CHECK(sites[0].provider == "fixturelib");
  CHECK(sites[0].name == "call");  // not "loaded": that spec names a file
  CHECK(sites[0].path == FIXTURE_LIB);
  CHECK(sites[0].args.size() == 2);
  CHECK(follower.examine(mmap_of(FIXTURE_LIB)).empty());  // seen
  CHECK(follower.never_matched() == std::vector<std::string>{"nosuch:*"});
  CHECK(follower.files_examined() == 1);
}

TEST_CASE("searched files, anonymous code and unreadable paths are skipped", "[mapping_follower]") {
  MappingFollower follower(specs({"fixturelib:*"}), {});
  follower.mark_searched(FIXTURE_LIB);
  CHECK(follower.examine(mmap_of(FIXTURE_LIB)).empty());
  CHECK(follower.examine(mmap_of("//anon")).empty());
  CHECK(follower.examine(mmap_of("[vdso]")).empty());
  CHECK(follower.examine(mmap_of("/memfd:gone (deleted)")).empty());
  CHECK(follower.files_examined() == 0);
}

TEST_CASE("a file that is not ELF has no sites", "[mapping_follower]") {
  MappingFollower follower(specs({"fixturelib:*"}), {"fixturelib:*"});
  CHECK(follower.examine(mmap_of("/etc/hostname")).empty());
  CHECK(follower.never_matched() == std::vector<std::string>{"fixturelib:*"});
}

TEST_CASE("a mapping of this process is read through map_files", "[mapping_follower]") {
  void* handle = dlopen(FIXTURE_LIB, RTLD_NOW);
  REQUIRE(handle != nullptr);
  Dl_info info;
  REQUIRE(dladdr(dlsym(handle, "fixture_lib_call"), &info) != 0);
  format::ProcessEvent e = mmap_of("/no/such/path/libfixture_lib.so");
  e.map_address = reinterpret_cast<uint64_t>(info.dli_fbase);
  // The first mapping of the file starts at its base; its length is read
  // back from /proc/self/maps.
  FILE* maps = fopen("/proc/self/maps", "r");
  REQUIRE(maps != nullptr);
  char line[512];
  while (fgets(line, sizeof line, maps) != nullptr) {
    unsigned long long start = 0, end = 0;
    if (sscanf(line, "%llx-%llx", &start, &end) == 2 && start == e.map_address) {
      e.map_length = end - start;
      break;
    }
  }
  fclose(maps);
  MappingFollower follower(specs({"fixturelib:call"}), {});
  std::vector<ResolvedSite> sites = follower.examine(e);
  REQUIRE(sites.size() == 1);
  CHECK(sites[0].path == "/no/such/path/libfixture_lib.so");  // as the process named it
  CHECK(sites[0].open_path.rfind("/proc/", 0) == 0);
  dlclose(handle);
}
