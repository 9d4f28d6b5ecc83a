// record/dwarf/debuginfo_finder.h on the fixture programs: DWARF in the
// file, through .gnu_debuglink (CRC checked), and by build-id under a
// debug root of the test's own.
#include "record/dwarf/debuginfo_finder.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <string>

#include "params_fixture_paths.h"

using namespace usdt;
using namespace usdt::record;
namespace fs = std::filesystem;

namespace {

// A fresh directory under the system's temporary directory, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/usdt-debuginfo-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string build_id_of(const std::string& path) {
  Result<ElfFile> elf = ElfFile::open(path);
  REQUIRE(elf.ok());
  return elf_build_id(elf->get());
}

}  // namespace

TEST_CASE("the CRC of .gnu_debuglink is zlib's CRC-32", "[debuginfo_finder]") {
  const char* text = "123456789";
  CHECK(debuglink_crc32(0, reinterpret_cast<const unsigned char*>(text), std::strlen(text)) ==
        0xcbf43926u);
  // Continued over two pieces, the same.
  uint32_t crc = debuglink_crc32(0, reinterpret_cast<const unsigned char*>(text), 4);
  CHECK(debuglink_crc32(crc, reinterpret_cast<const unsigned char*>(text) + 4, 5) == 0xcbf43926u);
}

TEST_CASE("DWARF in the file itself", "[debuginfo_finder]") {
  Result<DebugInfo> info = find_debuginfo(FIXTURE_PARAMS_O2);
  REQUIRE(info.ok());
  CHECK(info->source() == DebugSource::in_file);
  CHECK(info->path() == FIXTURE_PARAMS_O2);
}

TEST_CASE("a debuglink target: next to the file, in .debug/, CRC checked", "[debuginfo_finder]") {
  TempDir dir;
  const fs::path binary = dir.path / "prog";
  fs::copy_file(FIXTURE_PARAMS_SPLIT, binary);
  // The link names fixture_params_split.debug.
  SECTION("missing: the error says what was looked for") {
    Result<DebugInfo> info = find_debuginfo(binary, DebugSearch{(dir.path / "root").string()});
    REQUIRE_FALSE(info.ok());
    CHECK(info.error().message().find("fixture_params_split.debug") != std::string::npos);
    CHECK(info.error().message().find("has no debug information") != std::string::npos);
  }
  SECTION("in .debug/") {
    fs::create_directory(dir.path / ".debug");
    fs::copy_file(std::string(FIXTURE_PARAMS_SPLIT) + ".debug",
                  dir.path / ".debug" / "fixture_params_split.debug");
    Result<DebugInfo> info = find_debuginfo(binary, DebugSearch{(dir.path / "root").string()});
    REQUIRE(info.ok());
    CHECK(info->source() == DebugSource::debuglink);
  }
  SECTION("a file of that name with another CRC is refused") {
    fs::copy_file(FIXTURE_PARAMS_O0, dir.path / "fixture_params_split.debug");
    Result<DebugInfo> info = find_debuginfo(binary, DebugSearch{(dir.path / "root").string()});
    REQUIRE_FALSE(info.ok());
    CHECK(info.error().message().find("does not match (CRC") != std::string::npos);
  }
  SECTION("under the debug root's copy of the file's directory") {
    const fs::path mirrored = dir.path / "root" / dir.path.relative_path();
    fs::create_directories(mirrored);
    fs::copy_file(std::string(FIXTURE_PARAMS_SPLIT) + ".debug",
                  mirrored / "fixture_params_split.debug");
    Result<DebugInfo> info = find_debuginfo(binary, DebugSearch{(dir.path / "root").string()});
    REQUIRE(info.ok());
    CHECK(info->source() == DebugSource::debuglink);
  }
}

TEST_CASE("by build-id under DEBUG_ROOT/.build-id/", "[debuginfo_finder]") {
  TempDir dir;
  const std::string id = build_id_of(FIXTURE_PARAMS_NODEBUG);
  REQUIRE(id.size() > 4);
  CHECK(id == build_id_of(std::string(FIXTURE_PARAMS_SPLIT) + ".debug"));
  const fs::path root = dir.path / "root";
  Result<DebugInfo> none = find_debuginfo(FIXTURE_PARAMS_NODEBUG, DebugSearch{root.string()});
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message().find(".build-id/" + id.substr(0, 2) + "/" + id.substr(2) +
                                    ".debug") != std::string::npos);

  fs::create_directories(root / ".build-id" / id.substr(0, 2));
  fs::copy_file(std::string(FIXTURE_PARAMS_SPLIT) + ".debug",
                root / ".build-id" / id.substr(0, 2) / (id.substr(2) + ".debug"));
  Result<DebugInfo> info = find_debuginfo(FIXTURE_PARAMS_NODEBUG, DebugSearch{root.string()});
  REQUIRE(info.ok());
  CHECK(info->source() == DebugSource::build_id);
}

TEST_CASE("a file that is not ELF is an error, not a crash", "[debuginfo_finder]") {
  TempDir dir;
  const fs::path junk = dir.path / "junk";
  {
    FILE* f = fopen(junk.c_str(), "w");
    fputs("not an ELF file", f);
    fclose(f);
  }
  Result<DebugInfo> info = find_debuginfo(junk);
  REQUIRE_FALSE(info.ok());
  CHECK(info.error().message().find("not an ELF file") != std::string::npos);
}
