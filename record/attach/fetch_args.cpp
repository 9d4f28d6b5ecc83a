#include "record/attach/fetch_args.h"

#include <cinttypes>
#include <cstdio>

#include "common/hex_text.h"

namespace usdt::record {
namespace {

std::string type_name(const ArgSpec& spec) {
  // The IEEE bits of a float, never sign-extended.
  std::string name(1, spec.is_float ? 'x' : spec.is_signed ? 's' : 'u');
  name += std::to_string(spec.size * 8);
  return name;
}

// "sym(%rip)" or "sym" with a resolved symbol: data of the probed file
// itself, mapped while the probe can fire. Not so with a register added.
bool in_probed_file(const ArgSpec& spec) {
  return spec.location == ArgLocation::memory && !spec.symbol.empty() && spec.symbol_resolved &&
         spec.segment.empty() && spec.index_reg == kNoReg &&
         (spec.reg == kNoReg || spec.reg == x86_reg::ip);
}

// "+60(%ax)", "-8(%sp)", "+0x404080(%ax)": memory at a register plus an offset.
Result<std::string> register_offset(int16_t reg, int64_t offset) {
  std::string name = tracefs_register(reg);
  if (name.empty()) return Error("uses a register the kernel's fetch-args do not name");
  std::string out(1, offset < 0 ? '-' : '+');
  const uint64_t magnitude =
      offset < 0 ? 0 - static_cast<uint64_t>(offset) : static_cast<uint64_t>(offset);
  // A symbol's address in hex, as the listing shows it; small offsets in decimal.
  out += magnitude > 0xffff ? hex(magnitude) : std::to_string(magnitude);
  out += "(%";
  out += name;
  out += ')';
  return out;
}

// The address of "sym+off(%rip)", "sym+off" or "sym+off(%reg)", `disp` being
// off plus the bytes further in.
Result<std::string> symbol_location(const ArgSpec& spec, int64_t disp, uint64_t file_base) {
  if (!spec.symbol_resolved) {
    return Error("names symbol '" + spec.symbol + "', " +
                 (spec.error.empty() ? std::string("which has no unique address") : spec.error));
  }
  const uint64_t address = spec.symbol_address + static_cast<uint64_t>(disp);
  if (spec.reg == kNoReg || spec.reg == x86_reg::ip) {
    // @+ is relative to the probe's runtime address minus its file offset,
    // so the kernel adds the file's load bias itself.
    std::string out = "@+";
    out += hex(address - file_base);
    return out;
  }
  if (needs_load_bias(spec)) {
    return Error("is symbol '" + spec.symbol + "' plus register %" +
                 register_name(spec.reg, Arch::x86_64) +
                 " in a position-independent file: the kernel's fetch-args cannot add the "
                 "file's load bias to a register");
  }
  // A fixed-address executable: the link-time address is the run-time one.
  return register_offset(spec.reg, static_cast<int64_t>(address));
}

// Why the kernel cannot read an indexed address: a fetch-arg adds an offset
// to one register, never a second register or a product.
std::string index_problem(const ArgSpec& spec) {
  std::string what = spec.reg == kNoReg
                         ? "is at an address plus index register %"
                         : "is at base register %" + register_name(spec.reg, Arch::x86_64) +
                               " plus index register %";
  what += register_name(spec.index_reg, Arch::x86_64);
  if (spec.scale != 1) what += " times " + std::to_string(spec.scale);
  return what + ", which the kernel's fetch-args cannot add";
}

// The address expression of a memory operand, `extra` bytes further.
Result<std::string> location(const ArgSpec& spec, int64_t extra, uint64_t file_base) {
  if (!spec.segment.empty()) {
    return Error("is relative to the thread's %" + spec.segment +
                 " segment base (thread-local storage), which neither a sample nor the "
                 "kernel's fetch-args hold");
  }
  if (spec.index_reg != kNoReg) return Error(index_problem(spec));
  const int64_t disp =
      static_cast<int64_t>(static_cast<uint64_t>(spec.displacement) + static_cast<uint64_t>(extra));
  if (!spec.symbol.empty()) return symbol_location(spec, disp, file_base);
  if (spec.reg == kNoReg) {
    std::string out = "@";
    out += hex(static_cast<uint64_t>(disp));
    return out;
  }
  if (spec.reg == x86_reg::ip) return Error("is %rip-relative without a symbol");
  return register_offset(spec.reg, disp);
}

// The argument's own value as a fetch expression (for strings: the pointer).
Result<std::string> value(const ArgSpec& spec, uint64_t file_base) {
  switch (spec.location) {
    case ArgLocation::reg: {
      if (is_vector_register(spec, Arch::x86_64)) {
        return Error("is in %xmm, which the kernel's fetch-args cannot read");
      }
      std::string reg = tracefs_register(spec.reg);
      if (reg.empty() || spec.reg_shift != 0) return Error("is in a part of a register");
      reg.insert(0, 1, '%');
      return reg;
    }
    case ArgLocation::memory:
      return location(spec, 0, file_base);
    case ArgLocation::constant:
      return Error("is a constant, not a pointer to a string");
    case ArgLocation::undecodable:
      break;
  }
  return Error("cannot be parsed (" + spec.error + ")");
}

}  // namespace

// (Appended rather than "a" + ...: GCC 12 warns falsely about the latter.)
std::string value_field(size_t arg) {
  std::string name = "a";
  name += std::to_string(arg);
  return name;
}
std::string first_byte_field(size_t arg) { return value_field(arg) += 'f'; }
std::string last_byte_field(size_t arg) { return value_field(arg) += 'l'; }

std::string tracefs_register(int16_t reg) {
  switch (reg) {
    case x86_reg::ax: return "ax";
    case x86_reg::bx: return "bx";
    case x86_reg::cx: return "cx";
    case x86_reg::dx: return "dx";
    case x86_reg::si: return "si";
    case x86_reg::di: return "di";
    case x86_reg::bp: return "bp";
    case x86_reg::sp: return "sp";
    case x86_reg::ip: return "ip";
    default: break;
  }
  if (reg >= x86_reg::r8 && reg < x86_reg::r8 + 8) {
    std::string name = "r";
    name += std::to_string(reg - x86_reg::r8 + 8);
    return name;
  }
  return "";
}

Result<std::string> kernel_read_fetch_args(const ArgSpec& spec, size_t arg, bool as_string,
                                           uint64_t file_base) {
  if (as_string) {
    Result<std::string> pointer = value(spec, file_base);
    if (!pointer) return pointer.error();
    std::string out = value_field(arg);
    out += "=+0(";
    out += *pointer;
    out += "):string";
    return out;
  }
  if (spec.location != ArgLocation::memory) {
    return Error("is not in memory");  // registers and constants need no kernel read
  }
  if (spec.size == 0 || spec.size > 8) return Error("has an unsupported size");
  Result<std::string> first = location(spec, 0, file_base);
  if (!first) return first.error();
  std::string out = value_field(arg);
  for (const std::string& part : {std::string("="), *first, std::string(":"), type_name(spec)}) {
    out += part;
  }
  // A symbol of the probed file lies in its loaded data: that read cannot
  // fault, so its detectors (two more fetches at every hit) are left out.
  if (in_probed_file(spec)) return out;
  for (const std::string& part : {std::string(" "), first_byte_field(arg), std::string("="),
                                  *first, std::string(":string")}) {
    out += part;
  }
  if (spec.size > 1) {
    Result<std::string> last = location(spec, spec.size - 1, file_base);
    if (!last) return last.error();
    for (const std::string& part : {std::string(" "), last_byte_field(arg), std::string("="),
                                    *last, std::string(":string")}) {
      out += part;
    }
  }
  return out;
}

}  // namespace usdt::record
