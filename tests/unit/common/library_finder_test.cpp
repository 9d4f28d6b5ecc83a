#include "common/library_finder.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/file_io.h"

using namespace usdt;

namespace {

// Builds a glibc-ld.so.cache1.1 image: header, entries, then strings.
std::string make_cache(const std::vector<std::pair<std::string, std::string>>& libs, int32_t flags) {
  std::string header(48, '\0');
  std::memcpy(header.data(), "glibc-ld.so.cache1.1", 20);
  uint32_t n = static_cast<uint32_t>(libs.size());
  std::memcpy(header.data() + 20, &n, 4);
  std::string entries(24 * libs.size(), '\0');
  std::string strings;
  size_t strings_at = header.size() + entries.size();
  for (size_t i = 0; i < libs.size(); ++i) {
    uint32_t key = static_cast<uint32_t>(strings_at + strings.size());
    strings += libs[i].first + '\0';
    uint32_t value = static_cast<uint32_t>(strings_at + strings.size());
    strings += libs[i].second + '\0';
    std::memcpy(entries.data() + 24 * i, &flags, 4);
    std::memcpy(entries.data() + 24 * i + 4, &key, 4);
    std::memcpy(entries.data() + 24 * i + 8, &value, 4);
  }
  return header + entries + strings;
}

constexpr int32_t kX8664Libc6 = 0x0303;

}  // namespace

TEST_CASE("parses a synthetic ld.so.cache", "[library_finder]") {
  auto bytes = make_cache({{"libfoo.so.1", "/opt/lib/libfoo.so.1"}, {"libbar.so", "/opt/lib/libbar.so"}},
                          kX8664Libc6);
  auto entries = LibraryFinder::parse_cache(bytes);
  REQUIRE(entries.ok());
  REQUIRE(entries->size() == 2);
  CHECK((*entries)[0].soname == "libfoo.so.1");
  CHECK((*entries)[0].path == "/opt/lib/libfoo.so.1");
  CHECK((*entries)[1].soname == "libbar.so");
  // Entries of another architecture (i386 libc6 = 0x0003 without x86-64 bits) are skipped.
  auto other = LibraryFinder::parse_cache(make_cache({{"libfoo.so.1", "/x"}}, 0x0003));
  REQUIRE(other.ok());
  CHECK(other->empty());
}

TEST_CASE("rejects broken caches", "[library_finder]") {
  CHECK_FALSE(LibraryFinder::parse_cache("").ok());
  CHECK_FALSE(LibraryFinder::parse_cache("ld.so-1.7.0").ok());
  auto bytes = make_cache({{"libfoo.so.1", "/opt/lib/libfoo.so.1"}}, kX8664Libc6);
  // Every truncation fails cleanly or parses what is complete, never crashes:
  // an entry that comes out is the whole entry, never a cut name or path.
  size_t failed = 0;
  for (size_t n = 0; n < bytes.size(); ++n) {
    INFO("cut at " << n << " of " << bytes.size());
    auto r = LibraryFinder::parse_cache(std::string_view(bytes).substr(0, n));
    if (!r.ok()) {
      ++failed;
      CHECK_FALSE(r.error().message().empty());
      continue;
    }
    CHECK(r->size() <= 1);
    for (const auto& e : *r) {
      CHECK(e.soname == "libfoo.so.1");
      CHECK(e.path == "/opt/lib/libfoo.so.1");
    }
  }
  // At least every cut inside the header and the entry table is refused.
  CHECK(failed >= 60);
  auto whole = LibraryFinder::parse_cache(bytes);
  REQUIRE(whole.ok());
  CHECK(whole->size() == 1);
  CHECK_FALSE(LibraryFinder::parse_cache(std::string_view(bytes).substr(0, 60)).ok());
  std::string huge = bytes;
  uint32_t n = 1000000;
  std::memcpy(huge.data() + 20, &n, 4);
  CHECK_FALSE(LibraryFinder::parse_cache(huge).ok());
}

TEST_CASE("soname version order", "[library_finder]") {
  CHECK(compare_soname_versions("libc.so.6", "libc.so") > 0);
  CHECK(compare_soname_versions("libfoo.so.1.10", "libfoo.so.1.9") > 0);
  CHECK(compare_soname_versions("libfoo.so.2", "libfoo.so.10") < 0);
  CHECK(compare_soname_versions("libfoo.so.1", "libfoo.so.1") == 0);
}

TEST_CASE("finds by name in the cache, highest version first", "[library_finder]") {
  LibraryFinder finder({{"libfoo.so.1", "/opt/old/libfoo.so.1", kX8664Libc6},
                        {"libfoo.so.2", "/opt/new/libfoo.so.2", kX8664Libc6},
                        {"libfoo-extra.so.9", "/opt/x/libfoo-extra.so.9", kX8664Libc6}},
                       {});
  auto any = finder.find("libfoo");
  REQUIRE(any.ok());
  CHECK(*any == "/opt/new/libfoo.so.2");
  auto exact = finder.find("libfoo.so.1");
  REQUIRE(exact.ok());
  CHECK(*exact == "/opt/old/libfoo.so.1");
  auto short_name = finder.find("foo");
  REQUIRE(short_name.ok());
  CHECK(*short_name == "/opt/new/libfoo.so.2");
  CHECK_FALSE(finder.find("libfo").ok());
  CHECK_FALSE(finder.find("libnope").ok());
  CHECK_FALSE(finder.find("/abs/path").ok());
}

TEST_CASE("falls back to the directories, ELF files only", "[library_finder]") {
  char tmpl[] = "/tmp/usdt_libfinder_XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  std::string dir = tmpl;
  auto write = [&](const std::string& name, const std::string& bytes) {
    auto fd = open_file(dir + "/" + name, O_WRONLY | O_CREAT | O_TRUNC);
    REQUIRE(fd.ok());
    REQUIRE(write_all(fd->get(), bytes.data(), bytes.size()).ok());
  };
  write("libdemo.so", "/* GNU ld script */");
  write("libdemo.so.3", std::string("\177ELF") + std::string(60, '\0'));
  write("libdemo.so.12", std::string("\177ELF") + std::string(60, '\0'));
  LibraryFinder finder({}, {"/nonexistent", dir});
  auto found = finder.find("libdemo");
  REQUIRE(found.ok());
  CHECK(*found == dir + "/libdemo.so.12");
  auto exact = finder.find("libdemo.so.3");
  REQUIRE(exact.ok());
  CHECK(*exact == dir + "/libdemo.so.3");
  // libdemo.so is a linker script, not a library: the name finds a version.
  auto dev_name = finder.find("libdemo.so");
  REQUIRE(dev_name.ok());
  CHECK(*dev_name == dir + "/libdemo.so.12");
  std::filesystem::remove_all(dir);
}

TEST_CASE("the system finder finds libstdc++ and libc", "[library_finder]") {
  auto finder = LibraryFinder::system();
  CHECK_FALSE(finder.cache().empty());
  auto cxx = finder.find("libstdc++");
  REQUIRE(cxx.ok());
  CHECK(std::filesystem::path(*cxx).filename() == "libstdc++.so.6");
  auto cxx6 = finder.find("libstdc++.so.6");
  REQUIRE(cxx6.ok());
  CHECK(*cxx6 == *cxx);
  auto libc = finder.find("libc");
  REQUIRE(libc.ok());
  CHECK(std::filesystem::path(*libc).filename() == "libc.so.6");
}

TEST_CASE("library name heuristics", "[library_finder]") {
  CHECK(looks_like_library_name("libstdc++"));
  CHECK(looks_like_library_name("foo.so.1"));
  CHECK_FALSE(looks_like_library_name("/usr/lib/libc.so.6"));
  CHECK_FALSE(looks_like_library_name("postgres"));
}

TEST_CASE("library names as a user types them find the versioned file", "[library_finder]") {
  // As ld.so.cache lists Ruby 3.1 and 3.0 (two packages installed), plus a
  // development link and an unrelated library whose name starts alike.
  LibraryFinder finder(
      {{"libruby-3.1.so.3.1", "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1", kX8664Libc6},
       {"libruby-3.0.so.3.0", "/usr/lib/x86_64-linux-gnu/libruby-3.0.so.3.0", kX8664Libc6},
       {"librubyx.so.1", "/usr/lib/librubyx.so.1", kX8664Libc6},
       {"libruby-tools.so.2", "/usr/lib/libruby-tools.so.2", kX8664Libc6}},
      {});
  const std::string v31 = "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1";
  for (const char* name : {"ruby", "libruby", "libruby-3.1", "libruby-3.1.so", "libruby-3.1.so.3.1",
                           "libruby-3.1.so.3"}) {
    auto found = finder.find(name);
    INFO(name);
    REQUIRE(found.ok());
    CHECK(*found == v31);
  }
  auto older = finder.find("libruby-3.0.so");
  REQUIRE(older.ok());
  CHECK(*older == "/usr/lib/x86_64-linux-gnu/libruby-3.0.so.3.0");
  // A short name that matches two versions: the newest, and the other noted.
  auto ambiguous = finder.lookup("ruby");
  REQUIRE(ambiguous.ok());
  CHECK(ambiguous->path == v31);
  CHECK(ambiguous->others ==
        std::vector<std::string>{"/usr/lib/x86_64-linux-gnu/libruby-3.0.so.3.0"});
  // The exact name is not ambiguous; neither is a name only one file has.
  CHECK(finder.lookup("libruby-3.1.so.3.1")->others.empty());
  CHECK_FALSE(finder.find("libruby-3.2.so").ok());
  CHECK_FALSE(finder.find("libruby-3").ok());
}

TEST_CASE("a plain NAME.so* is preferred to NAME-VERSION.so*", "[library_finder]") {
  LibraryFinder finder({{"libfoo-2.so.2", "/opt/libfoo-2.so.2", kX8664Libc6},
                        {"libfoo.so.1", "/opt/libfoo.so.1", kX8664Libc6}},
                       {});
  auto found = finder.find("foo");
  REQUIRE(found.ok());
  CHECK(*found == "/opt/libfoo.so.1");
}

TEST_CASE("canonical_path resolves links, and keeps a path it cannot resolve", "[library_finder]") {
  char tmpl[] = "/tmp/usdt_canonical_XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  { std::ofstream(dir + "/libx.so.1.2") << "x"; }
  REQUIRE(symlink("libx.so.1.2", (dir + "/libx.so.1").c_str()) == 0);
  CHECK(canonical_path(dir + "/libx.so.1") == dir + "/libx.so.1.2");
  CHECK(canonical_path(dir + "/../" + std::filesystem::path(dir).filename().string() +
                       "/libx.so.1.2") == dir + "/libx.so.1.2");
  CHECK(canonical_path("/nonexistent/libnope.so") == "/nonexistent/libnope.so");
  std::filesystem::remove_all(dir);
}
