#include "common/proc_maps.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

using namespace usdt;

TEST_CASE("parses a file mapping", "[proc_maps]") {
  auto e = parse_maps_line(
      "7f1c2a400000-7f1c2a4a2000 r-xp 00022000 fd:01 1835038                    "
      "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30\n");
  REQUIRE(e.ok());
  CHECK(e->start == 0x7f1c2a400000);
  CHECK(e->end == 0x7f1c2a4a2000);
  CHECK(e->perms == "r-xp");
  CHECK(e->offset == 0x22000);
  CHECK(e->dev == "fd:01");
  CHECK(e->inode == 1835038);
  CHECK(e->path == "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30");
  CHECK_FALSE(e->deleted);
}

TEST_CASE("anonymous, pseudo, spaced and deleted paths", "[proc_maps]") {
  auto anon = parse_maps_line("7ffd1000-7ffd2000 rw-p 00000000 00:00 0 ");
  REQUIRE(anon.ok());
  CHECK(anon->path.empty());
  auto anon2 = parse_maps_line("7ffd1000-7ffd2000 rw-p 00000000 00:00 0");
  REQUIRE(anon2.ok());
  CHECK(anon2->path.empty());
  auto heap = parse_maps_line("55d0c000-55d2d000 rw-p 00000000 00:00 0    [heap]");
  REQUIRE(heap.ok());
  CHECK(heap->path == "[heap]");
  auto spaced = parse_maps_line("400000-401000 r-xp 00000000 08:01 42   /opt/my app/bin/the tool");
  REQUIRE(spaced.ok());
  CHECK(spaced->path == "/opt/my app/bin/the tool");
  auto deleted = parse_maps_line("400000-401000 r-xp 00000000 08:01 42   /tmp/app (deleted)");
  REQUIRE(deleted.ok());
  CHECK(deleted->path == "/tmp/app");
  CHECK(deleted->deleted);
}

TEST_CASE("malformed maps lines", "[proc_maps]") {
  const char* bad[] = {"", "garbage", "400000 r-xp 0 08:01 1 /x", "400000-zz r-xp 0 08:01 1 /x",
                       "400000-401000 r-x 0 08:01 1 /x", "400000-401000 r-xp 0 08:01", "400000-401000 r-xp 0 08:01 x /y",
                       "400000-401000 r-xp q 08:01 1 /x"};
  for (const char* line : bad) {
    INFO("'" << line << "'");
    CHECK_FALSE(parse_maps_line(line).ok());
  }
}

TEST_CASE("reads this process's maps", "[proc_maps]") {
  auto maps = read_proc_maps(getpid());
  REQUIRE(maps.ok());
  CHECK(maps->size() > 3);
  auto files = mapped_elf_files(getpid());
  REQUIRE(files.ok());
  REQUIRE_FALSE(files->empty());
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  REQUIRE(n > 0);
  CHECK(files->front().path == std::string(exe, static_cast<size_t>(n)));
  CHECK(files->front().is_main_binary);
  // Our own mount namespace: the plain path, valid after the process exits.
  CHECK(files->front().open_path == files->front().path);
  bool libc = false;
  for (const auto& f : *files) {
    if (std::filesystem::path(f.path).filename() == "libc.so.6") libc = true;
  }
  CHECK(libc);
}

TEST_CASE("a PID that does not exist", "[proc_maps]") {
  auto maps = read_proc_maps(999999999);
  REQUIRE_FALSE(maps.ok());
  CHECK(maps.error().message() == "no process with PID 999999999");
  auto files = mapped_elf_files(999999999);
  REQUIRE_FALSE(files.ok());
  CHECK(files.error().message() == "no process with PID 999999999");
}

TEST_CASE("map_files_path names the mapping in hex", "[proc_maps]") {
  CHECK(usdt::map_files_path(42, 0x7f0000001000, 0x2000) ==
        "/proc/42/map_files/7f0000001000-7f0000003000");
}
