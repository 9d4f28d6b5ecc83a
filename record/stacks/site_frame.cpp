#include "record/stacks/site_frame.h"

#include <elfutils/libdw.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "common/elf_file.h"
#include "record/dwarf/debuginfo_finder.h"
#include "record/stacks/cfi_row.h"

namespace usdt::record {
namespace {

// Larger distances from %rsp are taken for garbage in the CFI.
constexpr int64_t kMaxReturnAddressAt = int64_t{1} << 30;

struct CfiCloser {
  void operator()(Dwarf_CFI* cfi) const { dwarf_cfi_end(cfi); }
};

// The frame a CFI row gives at one address.
SiteFrame classify(Dwarf_Frame* row) {
  SiteFrame f;
  f.kind = SiteFrame::Kind::other_rule;
  RegRule ra;
  if (dwarf_frame_info(row, nullptr, nullptr, nullptr) != static_cast<int>(kDwarfRip) ||
      !read_cfi_cfa(row, &f.cfa_reg, &f.cfa_offset) || !read_cfi_rule(row, kDwarfRip, &ra) ||
      ra.kind != RegRule::Kind::at_cfa_offset) {
    return f;
  }
  f.return_address_offset = ra.offset;
  if (f.cfa_reg == kDwarfRbp) {
    f.kind = SiteFrame::Kind::frame_set_up;
    return f;
  }
  const int64_t at = f.cfa_offset + ra.offset;
  if (f.cfa_reg != kDwarfRsp || at < 0 || at > kMaxReturnAddressAt) return f;
  f.return_address_at = static_cast<uint32_t>(at);
  if (f.return_address_at + 8 > kMaxCallerCopyBytes) {
    f.kind = SiteFrame::Kind::far_stack_top;
    return f;
  }
  f.kind = SiteFrame::Kind::stack_top;
  RegRule rbp;
  if (read_cfi_rule(row, kDwarfRbp, &rbp)) {
    f.rbp_unchanged = rbp.kind == RegRule::Kind::same_value;
    const int64_t saved = f.cfa_offset + rbp.offset;
    if (rbp.kind == RegRule::Kind::at_cfa_offset && saved >= 0 &&
        saved + 8 <= kMaxCallerCopyBytes) {
      f.rbp_saved_at = static_cast<int32_t>(saved);
    }
  }
  return f;
}

// The frame at address from cfi; nullopt when no FDE covers it.
std::optional<SiteFrame> frame_from(Dwarf_CFI* cfi, uint64_t address) {
  Dwarf_Frame* row = nullptr;
  if (cfi == nullptr || dwarf_cfi_addrframe(cfi, address, &row) != 0) return std::nullopt;
  SiteFrame f = classify(row);
  std::free(row);
  return f;
}

std::string register_name(uint8_t dwarf_reg) {
  static const char* const kNames[kDwarfRegs] = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi",
                                                 "rbp", "rsp", "r8",  "r9",  "r10", "r11",
                                                 "r12", "r13", "r14", "r15", "rip"};
  std::string name = "%";
  name.append(dwarf_reg < kDwarfRegs ? kNames[dwarf_reg] : "?");
  return name;
}

// "+8", "-8" (GCC 12 warns, -Wrestrict, on "+" + std::to_string(v)).
std::string signed_text(int64_t v) {
  std::string text = v < 0 ? "" : "+";
  text.append(std::to_string(v));
  return text;
}

}  // namespace

bool looks_like_function_entry(const uint8_t* insn, size_t size) {
  if (size >= 1 && insn[0] == 0x55) return true;  // push %rbp
  if (size < 4) return false;
  const bool endbr =
      insn[0] == 0xf3 && insn[1] == 0x0f && insn[2] == 0x1e && (insn[3] == 0xfa || insn[3] == 0xfb);
  // The kernel's poisoned endbr (arch/x86/include/asm/ibt.h): nopl -42(%rax).
  const bool poison = insn[0] == 0x0f && insn[1] == 0x1f && insn[2] == 0x40 && insn[3] == 0xd6;
  return endbr || poison;
}

SiteFrame function_entry_frame() {
  SiteFrame f;
  f.kind = SiteFrame::Kind::stack_top;
  f.function_entry = true;
  f.cfa_reg = kDwarfRsp;
  f.cfa_offset = 8;
  f.return_address_offset = -8;
  f.return_address_at = 0;
  f.rbp_unchanged = true;
  return f;
}

std::string describe_site_frame(const SiteFrame& f) {
  const std::string rule = "CFA " + register_name(f.cfa_reg) + signed_text(f.cfa_offset) +
                           ", return address at CFA" + signed_text(f.return_address_offset) + " (" +
                           f.cfi_source + ")";
  const std::string caller_at = "no frame set up, the caller's return address is at " +
                                std::to_string(f.return_address_at) + "(%rsp)";
  switch (f.kind) {
    case SiteFrame::Kind::no_cfi:
      return "no CFI for this address (.eh_frame, .debug_frame): -g fp records the kernel's "
             "frame-pointer walk as it is, which misses the caller if no frame is set up here";
    case SiteFrame::Kind::other_rule:
      return "the CFI here is not a register plus offset: -g fp records the kernel's "
             "frame-pointer walk as it is";
    case SiteFrame::Kind::frame_set_up:
      return rule + ": the frame is set up, -g fp walks the frame pointers from here";
    case SiteFrame::Kind::far_stack_top:
      return rule + ": " + caller_at + ", farther than -g fp copies (" +
             std::to_string(kMaxCallerCopyBytes) +
             " bytes): the kernel's frame-pointer walk as it is, which misses the caller";
    case SiteFrame::Kind::stack_top:
      break;
  }
  return (f.function_entry ? std::string("function entry") : rule) + ": " + caller_at +
         ": -g fp takes the caller from there";
}

struct SiteFrameReader::File {
  std::optional<ElfFile> elf;
  std::unique_ptr<Dwarf_CFI, CfiCloser> eh_frame;  // null when the file has none
  bool debug_searched = false;
  std::optional<DebugInfo> debug;  // the DWARF that holds .debug_frame, when found
};

SiteFrameReader::SiteFrameReader() = default;
SiteFrameReader::~SiteFrameReader() = default;

SiteFrameReader::File* SiteFrameReader::file(const std::string& open_path) {
  auto [it, added] = files_.try_emplace(open_path);
  if (!added) return it->second.get();
  auto f = std::make_unique<File>();
  if (Result<ElfFile> elf = ElfFile::open(open_path)) {
    f->elf.emplace(std::move(*elf));
    f->eh_frame.reset(dwarf_getcfi_elf(f->elf->get()));
  }
  it->second = std::move(f);
  return it->second.get();
}

SiteFrame SiteFrameReader::cfi_frame(File* f, const std::string& open_path, uint64_t address) {
  if (!f->elf) return SiteFrame();
  if (std::optional<SiteFrame> found = frame_from(f->eh_frame.get(), address)) {
    found->cfi_source = ".eh_frame";
    return *found;
  }
  // The order libdwfl tries them in: .eh_frame, then .debug_frame.
  if (!f->debug_searched) {
    f->debug_searched = true;
    if (Result<DebugInfo> debug = find_debuginfo(open_path)) f->debug.emplace(std::move(*debug));
  }
  if (!f->debug) return SiteFrame();
  std::optional<SiteFrame> found = frame_from(dwarf_getcfi(f->debug->dwarf()), address);
  if (!found) return SiteFrame();
  found->cfi_source = f->debug->source() == DebugSource::in_file
                          ? std::string(".debug_frame")
                          : ".debug_frame of " + f->debug->path();
  return *found;
}

SiteFrame SiteFrameReader::at(const std::string& open_path, uint64_t address, uint64_t file_offset,
                              bool function_entry) {
  File* f = file(open_path);
  SiteFrame frame = function_entry ? function_entry_frame() : cfi_frame(f, open_path, address);
  // The file's image as libelf mapped it (elf_getdata_rawchunk would keep
  // every chunk asked for, and slow down with their number).
  uint8_t insn[4] = {};
  size_t got = 0;
  size_t size = 0;
  const char* image = f->elf ? elf_rawfile(f->elf->get(), &size) : nullptr;
  if (image != nullptr && file_offset < size) {
    got = std::min<uint64_t>(sizeof insn, size - file_offset);
    std::memcpy(insn, image + file_offset, got);
  }
  frame.looks_like_entry = looks_like_function_entry(insn, got);
  return frame;
}

}  // namespace usdt::record
