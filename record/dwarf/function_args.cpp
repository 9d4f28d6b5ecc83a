#include "record/dwarf/function_args.h"

#include <algorithm>

namespace usdt::record {
namespace {

constexpr int kIntegerRegisters = 6;
constexpr int kSseRegisters = 8;

// The name of integer argument register `index` (0 = %rdi) at a width.
std::string integer_register(int index, uint64_t size) {
  static const char* const k64[] = {"rdi", "rsi", "rdx", "rcx", "r8", "r9"};
  static const char* const k32[] = {"edi", "esi", "edx", "ecx", "r8d", "r9d"};
  static const char* const k16[] = {"di", "si", "dx", "cx", "r8w", "r9w"};
  static const char* const k8[] = {"dil", "sil", "dl", "cl", "r8b", "r9b"};
  switch (size) {
    case 1:
      return k8[index];
    case 2:
      return k16[index];
    case 4:
      return k32[index];
    default:
      return k64[index];
  }
}

// "-4@" for a signed int, "8f@" for a double.
std::string size_prefix(const TypeInfo& t) {
  std::string p = t.is_signed ? "-" : "";
  p += std::to_string(t.size);
  if (t.kind == TypeKind::floating) p += 'f';
  return p + "@";
}

bool is_scalar(const TypeInfo& t) {
  return (t.kind == TypeKind::integer || t.kind == TypeKind::pointer ||
          t.kind == TypeKind::floating) &&
         (t.size == 1 || t.size == 2 || t.size == 4 || t.size == 8);
}

ArgSpec missing(const TypeInfo& t, std::string why) {
  ArgSpec spec;
  spec.text = t.name;
  spec.location = ArgLocation::undecodable;
  spec.size = is_scalar(t) ? static_cast<uint8_t>(t.size) : 8;
  spec.is_signed = t.is_signed;
  spec.is_float = t.kind == TypeKind::floating;
  spec.error = std::move(why);
  return spec;
}

std::string register_list(int first, int count) {
  std::string out;
  for (int i = first; i < first + count; ++i) {
    if (!out.empty()) out += " and ";
    out += "%" + integer_register(i, 8);
  }
  return out;
}

class Assigner {
 public:
  explicit Assigner(const FunctionSignature& sig) {
    const PassingClass& ret = sig.return_type.passing;
    if (ret.kind == PassingClass::Kind::unknown) {
      lost_ = "how the function returns " + sig.return_type.name + " is unknown: " + ret.why;
    } else if (ret.kind == PassingClass::Kind::memory ||
               ret.kind == PassingClass::Kind::by_reference) {
      next_int_ = 1;  // %rdi holds where to write the returned struct
    }
  }

  ArgSpec place(const TypeInfo& t) {
    if (!lost_.empty()) return missing(t, "cannot be placed: " + lost_);
    const PassingClass& c = t.passing;
    switch (c.kind) {
      case PassingClass::Kind::unknown:
        lost_ = "a parameter before it is passed in a way this tracer cannot tell";
        return missing(t, "cannot be placed by the ABI: " + c.why);
      case PassingClass::Kind::ignored:
        return missing(t, "is empty and takes no register");
      case PassingClass::Kind::by_reference:
        if (next_int_ < kIntegerRegisters) {
          return missing(t, "is passed by invisible reference (a pointer to a copy in %" +
                                integer_register(next_int_++, 8) + ")");
        }
        stack_slot(8, 8);
        return missing(t, "is passed by invisible reference on the stack");
      case PassingClass::Kind::memory: {
        uint64_t at = stack_slot(c.size, c.align);
        return missing(t, "is passed by value on the stack at " + std::to_string(at) + "(%rsp)");
      }
      case PassingClass::Kind::registers:
        break;
    }
    const int ints = c.integer_parts();
    const int sses = c.sse_parts();
    if (next_int_ + ints > kIntegerRegisters || next_sse_ + sses > kSseRegisters) {
      // Not enough registers left: the whole value goes to the stack.
      uint64_t at = stack_slot(c.size, c.align);
      if (is_scalar(t))
        return parse_arg_spec(size_prefix(t) + std::to_string(at) + "(%rsp)", Arch::x86_64);
      return missing(t, "is passed by value on the stack at " + std::to_string(at) + "(%rsp)");
    }
    const int first_int = next_int_;
    const int first_sse = next_sse_;
    next_int_ += ints;
    next_sse_ += sses;
    if (is_scalar(t) && ints == 1) {
      return parse_arg_spec(size_prefix(t) + "%" + integer_register(first_int, t.size),
                            Arch::x86_64);
    }
    if (is_scalar(t) && sses == 1) {
      // Named so that the planner says why: no sample holds %xmm registers.
      ArgSpec spec =
          parse_arg_spec(size_prefix(t) + "%xmm" + std::to_string(first_sse), Arch::x86_64);
      return spec;
    }
    std::string where;
    if (ints > 0) where = register_list(first_int, ints);
    if (sses > 0) {
      if (!where.empty()) where += " and ";
      where += sses == 1 ? "%xmm" + std::to_string(first_sse)
                         : "%xmm" + std::to_string(first_sse) + " and %xmm" +
                               std::to_string(first_sse + 1);
    }
    return missing(t, "is passed by value in " + where);
  }

 private:
  // Reserves a stack argument slot; returns its offset from %rsp at entry.
  uint64_t stack_slot(uint64_t size, uint64_t align) {
    if (align > 8) stack_ = (stack_ + 15) & ~uint64_t{15};
    // 8(%rsp) at entry is 16-aligned before the call pushed the return address.
    uint64_t at = stack_ + 8;
    stack_ += (size + 7) & ~uint64_t{7};
    return at;
  }

  int next_int_ = 0;
  int next_sse_ = 0;
  uint64_t stack_ = 0;  // bytes of stack arguments so far
  std::string lost_;    // why no later parameter can be placed
};

}  // namespace

std::vector<FunctionArg> entry_args(const FunctionSignature& sig) {
  std::vector<FunctionArg> out;
  Assigner assigner(sig);
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const Parameter& p = sig.params[i];
    FunctionArg a;
    a.name = p.name.empty() ? "arg" + std::to_string(i) : p.name;
    a.type = p.type.name;
    a.is_pointer = p.type.kind == TypeKind::pointer;
    a.spec = assigner.place(p.type);
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<FunctionArg> return_args(const FunctionSignature& sig) {
  const TypeInfo& t = sig.return_type;
  if (t.kind == TypeKind::void_type) return {};
  FunctionArg a;
  a.name = "ret";
  a.type = t.name;
  a.is_pointer = t.kind == TypeKind::pointer;
  if (is_scalar(t) && t.kind != TypeKind::floating) {
    static const char* const kRax[] = {"", "al", "ax", "", "eax", "", "", "", "rax"};
    a.spec = parse_arg_spec(size_prefix(t) + "%" + kRax[t.size], Arch::x86_64);
  } else if (is_scalar(t)) {
    a.spec = parse_arg_spec(size_prefix(t) + "%xmm0", Arch::x86_64);
  } else {
    a.spec = missing(t, "is returned by value, which a return probe cannot read");
  }
  return {a};
}

}  // namespace usdt::record
