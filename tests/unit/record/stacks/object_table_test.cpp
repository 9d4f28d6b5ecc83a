#include "record/stacks/object_table.h"

#include <catch2/catch.hpp>
#include <string>

#include "common/elf_file.h"
#include "fixture_paths.h"

using namespace usdt;
using namespace usdt::record;

namespace {

const format::ObjectSymbol* find(const format::ObjectTable& t, const std::string& name) {
  for (const format::ObjectSymbol& s : t.symbols) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string build_id(const std::string& path) {
  Result<ElfFile> elf = ElfFile::open(path);
  REQUIRE(elf.ok());
  return elf_build_id(elf->get());
}

}  // namespace

TEST_CASE("object table: function symbols by file offset, one per offset", "[object_table]") {
  StackObject object;
  object.path = FIXTURE_LIB;
  object.open_path = FIXTURE_LIB;
  object.build_id = build_id(FIXTURE_LIB);
  Result<format::ObjectTable> table = build_object_table(object);
  REQUIRE(table.ok());
  CHECK(table->path == FIXTURE_LIB);
  CHECK(table->build_id == object.build_id);
  const format::ObjectSymbol* call = find(*table, "fixture_lib_call");
  REQUIRE(call != nullptr);
  CHECK(call->size > 0);
  for (size_t i = 1; i < table->symbols.size(); ++i) {
    CHECK(table->symbols[i - 1].file_offset < table->symbols[i].file_offset);
  }
}

TEST_CASE("object table: a file whose build-id changed is refused", "[object_table]") {
  StackObject object;
  object.path = object.open_path = FIXTURE_LIB;
  object.build_id = "00112233";
  Result<format::ObjectTable> table = build_object_table(object);
  REQUIRE_FALSE(table.ok());
  CHECK(table.error().message().find("has changed since it was mapped") != std::string::npos);

  object.path = object.open_path = "/nonexistent/libnothing.so";
  CHECK_FALSE(build_object_table(object).ok());
}

TEST_CASE("object table: the vdso from the recorder's memory", "[object_table]") {
  Result<VdsoImage> vdso = own_vdso();
  REQUIRE(vdso.ok());
  StackObject object;
  object.path = object.open_path = "[vdso]";
  object.build_id = vdso->build_id;
  Result<format::ObjectTable> table = build_object_table(object);
  REQUIRE(table.ok());
  bool gettime = false;
  for (const format::ObjectSymbol& s : table->symbols) {
    if (s.name.find("clock_gettime") != std::string::npos) gettime = true;
  }
  CHECK(gettime);
}

TEST_CASE("object table: only the symbols holding the frames' offsets", "[object_table]") {
  StackObject object;
  object.path = object.open_path = FIXTURE_LIB;
  Result<format::ObjectTable> all = build_object_table(object);
  REQUIRE(all.ok());
  const format::ObjectSymbol* call = find(*all, "fixture_lib_call");
  REQUIRE(call != nullptr);
  REQUIRE(all->symbols.size() > 1);
  object.offsets = {call->file_offset + 1, call->file_offset + 2};
  Result<format::ObjectTable> some = build_object_table(object);
  REQUIRE(some.ok());
  REQUIRE(some->symbols.size() == 1);
  CHECK(some->symbols[0].name == "fixture_lib_call");
  CHECK(some->symbols[0].size == call->size);
  object.offsets = {0};  // before any function: nothing
  some = build_object_table(object);
  REQUIRE(some.ok());
  CHECK(some->symbols.empty());
}
