// USDT argument specs: the operand strings in a .note.stapsdt note, such as
// "-4@%eax", "8@-24(%rbp)", "4@$42", "-4@NBuffers(%rip)", "-4@ho_recs+4(%rax)",
// "8@(%rax,%rdx,8)" on x86-64 and "-4@[sp, 8]", "8@x0" on aarch64. Source of
// truth: the SystemTap SDT note description ("UserSpaceProbeImplementation"
// on the SystemTap wiki) and the operand syntax GNU as accepts for sys/sdt.h's
// "nor" constraints.
//
// Each spec is "[-]SIZE[f]@OPERAND": SIZE is 1, 2, 4 or 8 bytes, a leading '-'
// means signed, an 'f' means a floating-point value. An OPERAND without
// "SIZE@" (hand-written STAP_PROBE_ASM notes) is read as SystemTap does: 8
// bytes unsigned, a sub-register such as %eax zero-extended from its width.
// This file holds the spec type and the dispatch; each architecture's operand
// grammar is in common/arch/ (x86_64.cpp, aarch64.cpp). A spec that cannot be
// parsed is kept as ArgLocation::undecodable with its text and the reason; it
// never aborts the caller.
//
// A symbol in an operand ("sym(%rip)", "sym+4(%rax)", "$sym") names a
// link-time address. The note is text, never relocated: in a
// position-independent file (ET_DYN: a PIE, a shared object) the object is at
// that address plus the file's load bias, in a fixed-address executable
// (ET_EXEC) at that address itself. Readers must use a symbol only as
// resolve_symbol() records it, and say "missing" where the bias is needed but
// cannot be added.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace usdt {

enum class Arch : uint8_t { x86_64 = 1, aarch64 = 2 };

// Where an argument's value lives when the probe fires.
enum class ArgLocation : uint8_t {
  constant = 0,     // $N / an immediate: the value is in the spec
  reg = 1,          // a register or sub-register
  memory = 2,       // displacement(base[,index,scale]), symbol+offset(%reg), absolute
  undecodable = 3,  // the spec could not be parsed; see ArgSpec::error
};

// How the recorder obtains the value from a uprobe sample.
enum class ArgSource : uint8_t {
  constant = 0,          // from the spec itself
  sampled_register = 1,  // PERF_SAMPLE_REGS_USER
  sampled_stack = 2,     // PERF_SAMPLE_STACK_USER (memory relative to the stack or frame pointer)
  not_in_sample = 3,     // heap, globals, %xmm, undecodable: recorded as missing
  kernel_read = 4,       // read by the kernel at the hit (tracefs uprobe event fetch-args)
};

// Register numbers are perf's for the architecture (PERF_REG_X86_* from
// arch/x86/include/uapi/asm/perf_regs.h, PERF_REG_ARM64_* on aarch64), so that
// the recorder can put them straight into perf_event_attr::sample_regs_user.
constexpr int16_t kNoReg = -1;
namespace x86_reg {
constexpr int16_t ax = 0, bx = 1, cx = 2, dx = 3, si = 4, di = 5, bp = 6, sp = 7, ip = 8;
constexpr int16_t r8 = 16;  // r8..r15 are 16..23
// %xmmN is xmm0 + 2*N, as in perf_regs.h. These cannot be sampled by a uprobe
// (the kernel accepts XMM in sample_regs_user only for PEBS events).
constexpr int16_t xmm0 = 32;
}  // namespace x86_reg
namespace arm64_reg {
constexpr int16_t x0 = 0, fp = 29, lr = 30, sp = 31, pc = 32;  // x0..x30 are 0..30
// The SIMD and floating-point registers (vN, dN, sN, ...) are v0 + N: no
// perf register number, a uprobe sample cannot hold them.
constexpr int16_t v0 = 64;
}  // namespace arm64_reg

struct ArgSpec {
  std::string text;  // exactly as in the note, e.g. "-4@-20(%rbp)"
  ArgLocation location = ArgLocation::undecodable;
  uint8_t size = 8;  // bytes: 1, 2, 4 or 8
  bool is_signed = false;
  bool is_float = false;
  // The note gave no "N@" (e.g. "%rdi"): size and sign are SystemTap's
  // defaults for such operands (8 bytes unsigned; a sub-register's own width).
  bool implicit_size = false;

  // location == constant: the value, truncated to size. With a symbol
  // ("$sym+8": symbol and displacement), 0 until resolve_symbol() knows it.
  int64_t constant = 0;

  // location == reg: value = (register >> reg_shift), truncated to size.
  //   reg_shift is 8 for %ah %bh %ch %dh (bits 8-15), 0 otherwise.
  // location == memory: address = reg + index_reg * scale + displacement
  //   (+ the symbol's address when symbol is set; with base %rip, or no
  //   register at all, the symbol's address alone). "disp(,%idx,1)" is
  //   stored as "disp(%idx)".
  int16_t reg = kNoReg;
  uint8_t reg_shift = 0;
  int16_t index_reg = kNoReg;
  uint8_t scale = 1;
  int64_t displacement = 0;

  // x86-64 "%fs:..."/"%gs:...": relative to the thread's segment base (the
  // TLS block), which no sample and no fetch-arg holds. (%ds: %es: %ss: %cs:
  // have base 0 in 64-bit mode and are dropped while parsing.)
  std::string segment;

  // The symbol an operand names. symbol_resolved says whether the ELF symbol
  // table gave it a unique address (symbol_address, its link-time virtual
  // address); an ambiguous, absent, absolute or thread-local symbol leaves it
  // false and says why in error. symbol_fixed: the file is loaded at its
  // link-time addresses (ET_EXEC), so symbol_address is also the run-time one;
  // otherwise the file's load bias must be added.
  std::string symbol;
  bool symbol_resolved = false;
  bool symbol_fixed = false;
  uint64_t symbol_address = 0;
  // aarch64 "[xN, #:lo12:sym]": only the low 12 bits of sym+displacement are
  // added to the register (which holds the page, from adrp).
  bool symbol_low12 = false;

  std::string error;  // why undecodable (or why a symbol is unresolved)
};

// Parses one spec such as "-4@%eax". Never fails: bad input yields
// location == undecodable with error set and text preserved.
ArgSpec parse_arg_spec(std::string_view text, Arch arch);

// Splits a note's argument string ("8@%rdi -4@$5") on whitespace and parses
// each operand.
std::vector<ArgSpec> parse_arg_specs(std::string_view args, Arch arch);

// Records that spec's symbol is at link-time address `address` in a file that
// is (fixed_file) or is not loaded at its link-time addresses. A constant
// ("$sym") then gets its value when the file is fixed.
void resolve_symbol(ArgSpec& spec, uint64_t address, bool fixed_file);

// True when the value's address is not known before the hit for want of the
// load bias: a symbol of a position-independent file added to a register, or
// taken as a constant. The kernel's fetch-args add the bias only to a
// symbol's address alone (@+OFFSET), never to a register.
bool needs_load_bias(const ArgSpec& spec);

// True for memory relative to the stack or frame pointer (%rsp/%rbp, sp/x29),
// with or without an index register, and without a symbol or segment: a
// sample's registers and stack dump can hold it. arg_source still says
// not_in_sample for the indexed ones, because the recorder must also sample
// the index register and size the dump for it.
bool is_stack_relative(const ArgSpec& spec, Arch arch);

// True for a register no uprobe sample holds (%xmmN; aarch64 vN/dN/sN).
bool is_vector_register(const ArgSpec& spec, Arch arch);

// How a sample alone would obtain the value (see ArgSource); the recorder's
// plan (record/plan/site_sampling.h) adds kernel reads.
ArgSource arg_source(const ArgSpec& spec, Arch arch);

// A short human description of the decoded form, for `usdt-record -l -v`,
// e.g. "int32 in %eax", "uint8 in bits 8-15 of %rax", "int64 at -24(%rbp)",
// "int32 at ho_recs(%rax) = 0x404080 + %rax".
std::string describe(const ArgSpec& spec, Arch arch);

// Register name for messages ("rax", "x0"); "?" for unknown numbers.
std::string register_name(int16_t reg, Arch arch);

}  // namespace usdt
