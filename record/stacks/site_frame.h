// How the call frame stands at a probed instruction, read before the
// recording from the file's call frame information (DWARF 5, 6.4 "Call
// Frame Information": .eh_frame, else .debug_frame, in the file or in its
// separate debug file) through libdw. -g fp needs it: the kernel's user
// callchain (PERF_SAMPLE_CALLCHAIN) is the ip, then a walk of the frame
// pointers from %rbp. A function that has not set up its frame at the
// probe (a leaf: GCC omits the frame setup of leaf functions even with
// -fno-omit-frame-pointer; any function at its first instruction) still has
// its caller's frame in %rbp, so the walk skips the caller: `main;b` for
// `main;a;b`. Its return address is then on the stack, at %rsp plus the
// CFA's offset minus 8, and the sample can carry it (record/stacks/fp_caller.h).
//
// The kernel itself (Linux 6.11 and backports, arch/x86: "is the uprobe at
// a function's entry") adds the word at (%rsp) after the ip when the probed
// instruction is push %rbp or endbr64, guessing that the probe is at a
// function's entry: looks_like_entry says whether it will guess here.
//
// A file that cannot be read or has no CFI for the address is no error:
// the frame is then unknown and -g fp records the kernel's walk as it is.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace usdt::record {

// The farthest above %rsp that -g fp copies the stack for a caller's return
// address: a sample copies from %rsp up, and a big frame (a function
// without frame pointers with large locals) would cost its whole size per
// hit. Leaf functions' frames are small.
constexpr uint32_t kMaxCallerCopyBytes = 4096;

struct SiteFrame {
  enum class Kind : uint8_t {
    no_cfi,         // no CFI covers the address (or the file cannot be read)
    other_rule,     // its CFA or return address is not register plus offset
    frame_set_up,   // CFA = %rbp + N: the walk from %rbp starts at this frame
    stack_top,      // CFA = %rsp + N: the return address is at %rsp + return_address_at
    far_stack_top,  // stack_top, but farther than kMaxCallerCopyBytes
  };
  Kind kind = Kind::no_cfi;
  // stack_top, far_stack_top: where the caller's return address is, from %rsp.
  uint32_t return_address_at = 0;
  // stack_top: %rbp as the CFI says. rbp_unchanged: still the caller's.
  // Else, when rbp_saved_at >= 0, the caller's %rbp was saved at %rsp +
  // rbp_saved_at (pushed) and %rbp itself may have changed since; otherwise
  // the CFI does not say where the caller's %rbp is.
  bool rbp_unchanged = false;
  int32_t rbp_saved_at = -1;
  // The CFA rule as read (for the listing): register (DWARF number) + offset,
  // and the return address's offset from the CFA.
  uint8_t cfa_reg = 0;
  int64_t cfa_offset = 0;
  int64_t return_address_offset = 0;
  bool function_entry = false;    // known without CFI: a uprobe at a function's first instruction
  bool looks_like_entry = false;  // the instruction is push %rbp or endbr64 (see above)
  std::string cfi_source;         // ".eh_frame", ".debug_frame" or the debug file's path
};

// Whether the kernel takes these first bytes of a probed instruction for a
// function's entry: push %rbp, endbr64 (or endbr32, or the kernel's
// poisoned endbr), as arch/x86 is_uprobe_at_func_entry() compares them.
bool looks_like_function_entry(const uint8_t* insn, size_t size);

// The frame at a uprobe on a function's first instruction: the call has
// just pushed the return address, nothing else has run.
SiteFrame function_entry_frame();

// One line for `usdt-record -l -v`: the CFI at the site and what -g fp does
// there ("CFA %rsp+8, return address at 0(%rsp): no frame set up, ...").
std::string describe_site_frame(const SiteFrame& frame);

// Reads sites' frames, keeping each file's CFI open for the next site of
// the same file. Not thread-safe.
class SiteFrameReader {
 public:
  SiteFrameReader();
  ~SiteFrameReader();
  SiteFrameReader(const SiteFrameReader&) = delete;
  SiteFrameReader& operator=(const SiteFrameReader&) = delete;

  // The frame at the instruction at link-time address `address` (file
  // offset `file_offset`) of the file at open_path; function_entry: a
  // function's first instruction, whose frame needs no CFI.
  SiteFrame at(const std::string& open_path, uint64_t address, uint64_t file_offset,
               bool function_entry = false);

 private:
  struct File;
  File* file(const std::string& open_path);
  // The frame from the file's CFI: .eh_frame, else .debug_frame (in the
  // file or its separate debug file).
  SiteFrame cfi_frame(File* f, const std::string& open_path, uint64_t address);
  std::map<std::string, std::unique_ptr<File>> files_;
};

}  // namespace usdt::record
