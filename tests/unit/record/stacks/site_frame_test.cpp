#include "record/stacks/site_frame.h"

#include <catch2/catch.hpp>
#include <string>

#include "common/usdt_probe.h"
#include "record/stacks/cfi_row.h"
#include "tests/unit/record/stacks/site_frame_sites.h"

using namespace usdt;
using namespace usdt::record;

namespace {

// The frame at this test program's own site_frame:NAME probe (one location).
SiteFrame frame_of(SiteFrameReader& reader, const std::string& name) {
  Result<UsdtFile> self = read_usdt_file("/proc/self/exe");
  REQUIRE(self.ok());
  for (const UsdtProbe& p : self->probes) {
    if (p.provider != "site_frame" || p.name != name) continue;
    REQUIRE(p.locations.size() == 1);
    const UsdtLocation& loc = p.locations[0];
    return reader.at(self->open_path, loc.address, loc.file_offset);
  }
  FAIL("no probe site_frame:" << name);
  return SiteFrame();
}

}  // namespace

TEST_CASE("site frames: the CFI at each probe", "[site_frame]") {
  // Fire each once: the functions are real code of this program.
  site_frame_sites::leaf(1);
  site_frame_sites::framed(1);
  site_frame_sites::pushed(1);
  site_frame_sites::big_frame(1);
  site_frame_sites::debug_frame_only(1);
  site_frame_sites::no_cfi(1);
  SiteFrameReader reader;

  SECTION("a leaf built with frame pointers sets up no frame") {
    SiteFrame f = frame_of(reader, "leaf");
    CHECK(f.kind == SiteFrame::Kind::stack_top);
    CHECK(f.cfa_reg == kDwarfRsp);
    CHECK(f.cfa_offset == 8);
    CHECK(f.return_address_offset == -8);
    CHECK(f.return_address_at == 0);
    // The ABI's default for %rbp: callee-saved, unchanged.
    CHECK(f.rbp_unchanged);
    CHECK(f.rbp_saved_at == -1);
    CHECK(f.cfi_source == ".eh_frame");
    CHECK_FALSE(f.looks_like_entry);  // a USDT site is a nop
    CHECK(describe_site_frame(f) ==
          "CFA %rsp+8, return address at CFA-8 (.eh_frame): no frame set up, the caller's "
          "return address is at 0(%rsp): -g fp takes the caller from there");
  }
  SECTION("a function with frame pointers after its prologue") {
    SiteFrame f = frame_of(reader, "framed");
    CHECK(f.kind == SiteFrame::Kind::frame_set_up);
    CHECK(f.cfa_reg == kDwarfRbp);
    CHECK(f.cfa_offset == 16);
    CHECK(describe_site_frame(f) ==
          "CFA %rbp+16, return address at CFA-8 (.eh_frame): the frame is set up, -g fp walks "
          "the frame pointers from here");
  }
  SECTION("after a push, without frame pointers: CFA = %rsp+16") {
    SiteFrame f = frame_of(reader, "pushed");
    CHECK(f.kind == SiteFrame::Kind::stack_top);
    CHECK(f.cfa_offset == 16);
    CHECK(f.return_address_at == 8);
    CHECK(f.rbp_unchanged);
  }
  SECTION("a frame too big to copy for the caller") {
    SiteFrame f = frame_of(reader, "big_frame");
    CHECK(f.kind == SiteFrame::Kind::far_stack_top);
    CHECK(f.return_address_at > 4096);
    CHECK(describe_site_frame(f).find("farther than -g fp copies (4096 bytes)") !=
          std::string::npos);
  }
  SECTION(".debug_frame when there is no .eh_frame entry") {
    SiteFrame f = frame_of(reader, "debug_frame_only");
    CHECK(f.kind == SiteFrame::Kind::stack_top);
    CHECK(f.return_address_at == 0);
    CHECK(f.cfi_source == ".debug_frame");
  }
  SECTION("no CFI at all") {
    SiteFrame f = frame_of(reader, "no_cfi");
    CHECK(f.kind == SiteFrame::Kind::no_cfi);
    CHECK(describe_site_frame(f).find("no CFI for this address") == 0);
  }
}

TEST_CASE("site frames: a file that cannot be read has no CFI, a function entry needs none",
          "[site_frame]") {
  SiteFrameReader reader;
  SiteFrame missing = reader.at("/nonexistent/file", 0x1000, 0x1000);
  CHECK(missing.kind == SiteFrame::Kind::no_cfi);
  CHECK_FALSE(missing.looks_like_entry);
  SiteFrame entry = reader.at("/nonexistent/file", 0x1000, 0x1000, true);
  CHECK(entry.kind == SiteFrame::Kind::stack_top);
  CHECK(entry.function_entry);
  CHECK(entry.return_address_at == 0);
  CHECK(entry.rbp_unchanged);
  CHECK(describe_site_frame(entry) ==
        "function entry: no frame set up, the caller's return address is at 0(%rsp): -g fp "
        "takes the caller from there");
}

TEST_CASE("the instructions the kernel takes for a function's entry", "[site_frame]") {
  const uint8_t push_rbp[] = {0x55, 0x48, 0x89, 0xe5};
  const uint8_t endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
  const uint8_t endbr32[] = {0xf3, 0x0f, 0x1e, 0xfb};
  const uint8_t poison[] = {0x0f, 0x1f, 0x40, 0xd6};
  const uint8_t nop[] = {0x90};
  const uint8_t mov[] = {0x48, 0x8b, 0x05, 0x00};
  const uint8_t push_rbx[] = {0x53};
  CHECK(looks_like_function_entry(push_rbp, 1));
  CHECK(looks_like_function_entry(endbr64, 4));
  CHECK(looks_like_function_entry(endbr32, 4));
  CHECK(looks_like_function_entry(poison, 4));
  CHECK_FALSE(looks_like_function_entry(endbr64, 3));  // cut short: not known
  CHECK_FALSE(looks_like_function_entry(nop, 1));
  CHECK_FALSE(looks_like_function_entry(mov, 4));
  CHECK_FALSE(looks_like_function_entry(push_rbx, 1));
  CHECK_FALSE(looks_like_function_entry(nullptr, 0));
}
