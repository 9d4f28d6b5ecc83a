// USDT argument specs: the operand strings in a .note.stapsdt note, such as
// "-4@%eax", "8@-24(%rbp)", "4@$42", "-4@NBuffers(%rip)", "8@(%rax,%rdx,8)" on
// x86-64 and "-4@[sp, 8]", "8@x0" on aarch64. Source of truth: the SystemTap
// SDT note description ("UserSpaceProbeImplementation" on the SystemTap wiki)
// and the operand syntax GNU as accepts for sys/sdt.h's "nor" constraints.
//
// Each spec is "[-]SIZE[f]@OPERAND": SIZE is 1, 2, 4 or 8 bytes, a leading '-'
// means signed, an 'f' means a floating-point value. An OPERAND without
// "SIZE@" (hand-written STAP_PROBE_ASM notes) is read as SystemTap does: 8
// bytes unsigned, a sub-register such as %eax zero-extended from its width.
// A memory displacement may be a sum such as "-8+8(%rsp)" or "sym-4(%rip)",
// folded into one displacement. A spec that cannot be
// parsed is kept as ArgLocation::undecodable with its text and the reason; it
// never aborts the caller.
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
  memory = 2,       // displacement(base[,index,scale]) or symbol+offset(%rip)
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
constexpr int16_t x0 = 0, lr = 30, sp = 31, pc = 32;  // x0..x30 are 0..30
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

  int64_t constant = 0;  // location == constant

  // location == reg: value = (register >> reg_shift), truncated to size.
  //   reg_shift is 8 for %ah %bh %ch %dh (bits 8-15), 0 otherwise.
  // location == memory: address = reg + index_reg * scale + displacement
  //   (+ the symbol's address when symbol is set; base is then %rip).
  int16_t reg = kNoReg;
  uint8_t reg_shift = 0;
  int16_t index_reg = kNoReg;
  uint8_t scale = 1;
  int64_t displacement = 0;

  // For "sym+off(%rip)": the symbol's name. symbol_resolved says whether the
  // ELF symbol table gave a unique address (then symbol_address holds its
  // link-time virtual address); an ambiguous or absent symbol leaves it false
  // and says why in error.
  std::string symbol;
  bool symbol_resolved = false;
  uint64_t symbol_address = 0;

  std::string error;  // why undecodable (or why a symbol is unresolved)
};

// Parses one spec such as "-4@%eax". Never fails: bad input yields
// location == undecodable with error set and text preserved.
ArgSpec parse_arg_spec(std::string_view text, Arch arch);

// Splits a note's argument string ("8@%rdi -4@$5") on whitespace and parses
// each operand.
std::vector<ArgSpec> parse_arg_specs(std::string_view args, Arch arch);

// True for memory relative to the stack or frame pointer (%rsp/%rbp, sp/x29),
// with or without an index register: a sample's registers and stack dump can
// hold it. arg_source still says not_in_sample for the indexed ones, because
// the recorder must also sample the index register and size the dump for it.
bool is_stack_relative(const ArgSpec& spec, Arch arch);

// How the recorder will obtain the value (see ArgSource).
ArgSource arg_source(const ArgSpec& spec, Arch arch);

// A short human description of the decoded form, for `usdt-record -l -v`,
// e.g. "int32 in %eax", "uint8 in bits 8-15 of %rax", "int64 at -24(%rbp)".
std::string describe(const ArgSpec& spec, Arch arch);

// Register name for messages ("rax", "x0"); "?" for unknown numbers.
std::string register_name(int16_t reg, Arch arch);

}  // namespace usdt
