#include "record/plan/bpf_arg_plan.h"

#include "common/hex_text.h"

namespace usdt::record {
namespace {

// Registers struct pt_regs holds on x86-64, by perf number: ax..ip, r8..r15.
bool in_pt_regs(int16_t reg) {
  return (reg >= 0 && reg <= x86_reg::ip) || (reg >= 16 && reg <= 23);
}

uint8_t bpf_register(int16_t reg) {
  return reg == kNoReg ? USDT_BPF_NO_REG : static_cast<uint8_t>(reg);
}

struct ArgOutcome {
  usdt_bpf_arg arg{};
  ArgSource source = ArgSource::not_in_sample;
  std::string reason;
};

ArgOutcome missing(std::string reason) {
  ArgOutcome o;
  o.reason = std::move(reason);
  return o;
}

// (Appended rather than "%" + ...: GCC 12 warns falsely about the latter.)
std::string reg_text(int16_t reg) {
  std::string out = "%";
  out += register_name(reg, Arch::x86_64);
  return out;
}

// A constant: a number, or a symbol's address (biased at the hit in a
// position-independent file).
ArgOutcome constant_value(const ArgSpec& spec, bool bias, ArgOutcome o) {
  usdt_bpf_arg& a = o.arg;
  a.kind = USDT_BPF_ARG_CONST;
  if (spec.symbol.empty()) {
    a.constant = spec.constant;
    o.source = ArgSource::constant;
    return o;
  }
  if (!spec.symbol_resolved) {
    return missing("is the address of symbol '" + spec.symbol + "', " +
                   (spec.error.empty() ? std::string("which has no unique address") : spec.error));
  }
  a.constant = static_cast<int64_t>(spec.symbol_address + static_cast<uint64_t>(spec.displacement));
  if (bias) {
    a.flags |= USDT_BPF_ARG_BIAS;
    o.source = ArgSource::kernel_read;  // the bias is known at the hit
  } else {
    o.source = ArgSource::constant;
  }
  return o;
}

ArgOutcome register_value(const ArgSpec& spec, ArgOutcome o) {
  if (is_vector_register(spec, Arch::x86_64) || !in_pt_regs(spec.reg)) {
    return missing("is in register " + reg_text(spec.reg) +
                   ", which the trapped task's saved registers do not hold");
  }
  o.arg.kind = USDT_BPF_ARG_REG;
  o.arg.reg = bpf_register(spec.reg);
  o.arg.shift = spec.reg_shift;
  o.source = ArgSource::sampled_register;
  return o;
}

// Memory at base + index * scale + displacement (+ a symbol's address).
ArgOutcome memory_value(const ArgSpec& spec, bool bias, ArgOutcome o) {
  usdt_bpf_arg& a = o.arg;
  if (!spec.segment.empty()) {
    return missing("is relative to the thread's %" + spec.segment +
                   " segment base (thread-local storage), which the BPF path does not read");
  }
  if (spec.size == 0 || spec.size > 8) return missing("has an unsupported size");
  int64_t displacement = spec.displacement;
  int16_t base = spec.reg;
  if (!spec.symbol.empty()) {
    if (!spec.symbol_resolved) {
      return missing(
          "names symbol '" + spec.symbol + "', " +
          (spec.error.empty() ? std::string("which has no unique address") : spec.error));
    }
    displacement = static_cast<int64_t>(spec.symbol_address + static_cast<uint64_t>(displacement));
    if (base == x86_reg::ip) base = kNoReg;  // sym(%rip) is the symbol's own address
    if (bias) a.flags |= USDT_BPF_ARG_BIAS;
  } else if (base == x86_reg::ip) {
    return missing("is %rip-relative without a symbol");
  }
  for (int16_t reg : {base, spec.index_reg}) {
    if (reg != kNoReg && !in_pt_regs(reg)) {
      return missing("uses register " + reg_text(reg) +
                     ", which the trapped task's saved registers do not hold");
    }
  }
  a.kind = USDT_BPF_ARG_MEM;
  a.constant = displacement;
  a.reg = bpf_register(base);
  a.index_reg = bpf_register(spec.index_reg);
  a.scale = spec.scale == 0 ? 1 : spec.scale;
  o.source = ArgSource::kernel_read;
  return o;
}

// Where the value (or, for a string, the pointer) is.
ArgOutcome value_of(const ArgSpec& spec, bool return_probe) {
  ArgOutcome o;
  usdt_bpf_arg& a = o.arg;
  a.size = spec.size;
  a.reg = USDT_BPF_NO_REG;
  a.index_reg = USDT_BPF_NO_REG;
  a.scale = 1;
  if (spec.is_signed && !spec.is_float) a.flags |= USDT_BPF_ARG_SIGNED;
  const bool bias = needs_load_bias(spec) || (!spec.symbol.empty() && spec.symbol_resolved &&
                                              !spec.symbol_fixed && !spec.symbol_low12);
  if (bias && return_probe) {
    return missing("names symbol '" + spec.symbol +
                   "' of a position-independent file, whose load bias a uretprobe cannot tell");
  }
  switch (spec.location) {
    case ArgLocation::constant: return constant_value(spec, bias, o);
    case ArgLocation::reg: return register_value(spec, o);
    case ArgLocation::memory: return memory_value(spec, bias, o);
    case ArgLocation::undecodable: break;
  }
  if (spec.text.find('@') == std::string::npos && !spec.error.empty()) return missing(spec.error);
  return missing("cannot be parsed (" + spec.error + ")");
}

ArgOutcome plan_arg(const ArgSpec& spec, bool as_string, bool return_probe) {
  ArgOutcome o = value_of(spec, return_probe);
  if (!as_string || o.source == ArgSource::not_in_sample) return o;
  if (o.arg.kind == USDT_BPF_ARG_CONST && !(o.arg.flags & USDT_BPF_ARG_BIAS)) {
    return missing("is a constant, not a pointer to a string");
  }
  // The pointer: 8 bytes whatever the spec's size says of a char *.
  o.arg.flags |= USDT_BPF_ARG_STRING;
  o.source = ArgSource::kernel_read;
  return o;
}

// "%rax + %rdx * 8 - 16", "0x4040 + the load bias + %rbx".
std::string address_text(const usdt_bpf_arg& a) {
  std::string out;
  auto add = [&](const std::string& term) {
    if (!out.empty()) out += " + ";
    out += term;
  };
  if (a.reg != USDT_BPF_NO_REG) add(reg_text(a.reg));
  if (a.index_reg != USDT_BPF_NO_REG) {
    add(reg_text(a.index_reg) + (a.scale != 1 ? " * " + std::to_string(a.scale) : ""));
  }
  if (a.flags & USDT_BPF_ARG_BIAS) add("the load bias");
  if (a.constant != 0 || out.empty()) {
    if (a.constant < 0 && !out.empty()) {
      out += " - " + std::to_string(-a.constant);
    } else {
      add(a.constant > 0xffff ? hex(static_cast<uint64_t>(a.constant))
                              : std::to_string(a.constant));
    }
  }
  return out;
}

}  // namespace

BpfSitePlan plan_bpf_site(const std::vector<ArgSpec>& args, Arch arch,
                          const SamplingChoices& choices, uint64_t probe_address,
                          bool return_probe) {
  BpfSitePlan plan;
  plan.site.probe_address = probe_address;
  const size_t count = std::min<size_t>(args.size(), USDT_BPF_MAX_ARGS);
  plan.site.arg_count = static_cast<uint8_t>(count);
  for (size_t i = 0; i < args.size(); ++i) {
    const bool as_string = i < 32 && (choices.string_mask >> i) & 1;
    ArgOutcome o = arch != Arch::x86_64 ? missing("is read by the BPF path on x86-64 only")
                                        : plan_arg(args[i], as_string, return_probe);
    if (i < count) plan.site.args[i] = o.arg;
    if (o.arg.flags & USDT_BPF_ARG_STRING) {
      plan.sampling.string_mask |= 1u << i;
      plan.site.has_strings = 1;
    }
    plan.sampling.sources.push_back(o.source);
    plan.sampling.missing_reasons.push_back(std::move(o.reason));
    plan.sampling.fetch_args.emplace_back();
  }
  return plan;
}

std::string describe_bpf_source(const BpfSitePlan& plan, size_t arg) {
  if (arg >= plan.sampling.sources.size()) return "";
  if (plan.sampling.sources[arg] == ArgSource::not_in_sample) {
    return "not recorded: " + plan.sampling.missing_reasons[arg];
  }
  const usdt_bpf_arg& a = plan.site.args[arg];
  std::string what;
  switch (a.kind) {
    case USDT_BPF_ARG_CONST:
      what = (a.flags & USDT_BPF_ARG_BIAS) ? "address " + address_text(a) : "constant";
      break;
    case USDT_BPF_ARG_REG:
      what = "register " + reg_text(a.reg);
      break;
    case USDT_BPF_ARG_MEM:
      what = "memory at " + address_text(a);
      break;
    default:
      break;
  }
  if (a.flags & USDT_BPF_ARG_STRING) return "BPF: string at the pointer in " + what;
  return "BPF: " + what;
}

ArgListing list_arg_paths(const SiteSampling& sampled, const BpfSitePlan& bpf, size_t arg,
                          CaptureMode capture) {
  ArgListing out;
  if (capture == CaptureMode::bpf) {
    out.bracket = describe_bpf_source(bpf, arg);
    return out;
  }
  out.bracket = describe_source(sampled, arg);
  if (capture == CaptureMode::automatic) {
    std::string how = describe_bpf_source(bpf, arg);
    if (how.rfind("BPF: ", 0) == 0) how.erase(0, 5);
    out.bpf_line = "on the BPF path: " + how;
  }
  return out;
}

}  // namespace usdt::record
