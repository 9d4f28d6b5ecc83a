#include "record/plan/site_sampling.h"

#include <algorithm>

#include "record/attach/fetch_args.h"

namespace usdt::record {
namespace {

int16_t stack_pointer(Arch arch) { return arch == Arch::x86_64 ? x86_reg::sp : arm64_reg::sp; }

uint32_t round8(uint64_t v) { return static_cast<uint32_t>((v + 7) & ~uint64_t{7}); }

uint64_t reg_bit(int16_t reg) { return reg >= 0 && reg < 64 ? uint64_t{1} << reg : 0; }

ArgSpec abi_register(int16_t reg) {
  ArgSpec spec;
  spec.text = "8@%" + register_name(reg, Arch::x86_64);
  spec.location = ArgLocation::reg;
  spec.size = 8;
  spec.reg = reg;
  return spec;
}

// What one argument needs: its source, and the stack bytes for a dump.
struct ArgPlan {
  ArgSource source = ArgSource::not_in_sample;
  uint64_t stack_needed = 0;
  uint64_t regs = 0;
  std::string fetch;   // kernel_read
  std::string reason;  // not_in_sample
};

class Planner {
 public:
  Planner(Arch arch, const SamplingChoices& choices)
      : arch_(arch),
        choices_(choices),
        sp_(stack_pointer(arch)),
        frame_dump_(std::min<uint64_t>(round8(std::max<uint32_t>(choices.stack_bytes, 8)),
                                       kMaxStackBytes)) {}

  ArgPlan plan(const ArgSpec& spec, size_t index, bool as_string) const {
    if (as_string) return kernel_read(spec, index, true);
    switch (spec.location) {
      case ArgLocation::constant:
        if (!spec.symbol.empty()) return symbol_constant(spec);
        return {ArgSource::constant, 0, 0, "", ""};
      case ArgLocation::reg:
        if (is_vector_register(spec, arch_)) {
          return missing("is in register " + std::string(arch_ == Arch::x86_64 ? "%" : "") +
                         register_name(spec.reg, arch_) +
                         ", which neither a sample nor the kernel's fetch-args can read");
        }
        return {ArgSource::sampled_register, 0, reg_bit(spec.reg), "", ""};
      case ArgLocation::memory:
        return memory(spec, index);
      case ArgLocation::undecodable:
        break;
    }
    // A spec without '@' is no note operand but a parameter DWARF and the
    // ABI place where no sample reaches (record/dwarf/function_args.h);
    // its error already says where.
    if (spec.text.find('@') == std::string::npos && !spec.error.empty()) return missing(spec.error);
    return missing("cannot be parsed (" + spec.error + ")");
  }

 private:
  static ArgPlan missing(std::string reason) {
    ArgPlan p;
    p.reason = std::move(reason);
    return p;
  }

  bool kernel_reads() const { return choices_.kernel_reads && arch_ == Arch::x86_64; }

  // "$sym": known before the hit only in a fixed-address executable.
  static ArgPlan symbol_constant(const ArgSpec& spec) {
    if (!spec.symbol_resolved) {
      return missing(
          "is the address of symbol '" + spec.symbol + "', " +
          (spec.error.empty() ? std::string("which has no unique address") : spec.error));
    }
    if (needs_load_bias(spec)) {
      return missing("is the address of symbol '" + spec.symbol +
                     "' in a position-independent file, which moves by its load bias in each "
                     "process");
    }
    return {ArgSource::constant, 0, 0, "", ""};
  }

  // The form decides first (some memory no fetch-arg can reach), then
  // whether tracefs is there to make the kernel read.
  ArgPlan kernel_read(const ArgSpec& spec, size_t index, bool as_string) const {
    const char* no_tracefs = as_string
                                 ? "is a string, which only a kernel read can record (no tracefs)"
                                 : "is in memory outside the sampled stack, and tracefs is not "
                                   "available for a kernel read";
    if (arch_ != Arch::x86_64) {
      return missing(as_string ? "is a string, which only a kernel read can record (kernel "
                                 "reads are made for x86-64 only)"
                               : "is in memory outside the sampled stack (kernel reads are made "
                                 "for x86-64 only)");
    }
    Result<std::string> fetch = kernel_read_fetch_args(spec, index, as_string, choices_.file_base);
    if (!fetch) return missing(fetch.error().message());
    if (!kernel_reads()) return missing(no_tracefs);
    ArgPlan p;
    p.source = ArgSource::kernel_read;
    p.fetch = std::move(*fetch);
    return p;
  }

  ArgPlan stack_dump(const ArgSpec& spec, uint64_t bytes) const {
    ArgPlan p;
    p.source = ArgSource::sampled_stack;
    p.stack_needed = bytes;
    p.regs = reg_bit(spec.reg) | reg_bit(sp_) | reg_bit(spec.index_reg);
    return p;
  }

  ArgPlan memory(const ArgSpec& spec, size_t index) const {
    // Heap through a register, symbols, absolute addresses, TLS: only the
    // kernel can read them, if any fetch-arg expresses their address.
    if (!is_stack_relative(spec, arch_)) return kernel_read(spec, index, false);
    if (spec.index_reg != kNoReg) {
      // The offset is known only at the hit; the kernel cannot add an index.
      return stack_dump(spec, frame_dump_);
    }
    if (spec.reg == sp_ && spec.displacement >= 0) {
      uint64_t end = round8(static_cast<uint64_t>(spec.displacement) + spec.size);
      if (end <= frame_dump_) return stack_dump(spec, end);
      if (kernel_reads()) return kernel_read(spec, index, false);
      if (end <= kMaxStackBytes) return stack_dump(spec, end);
      return missing("is deeper in the stack than a sample can hold");
    }
    if (kernel_reads()) return kernel_read(spec, index, false);
    // Without kernel reads: what a stack dump can still hold.
    if (spec.reg == sp_) {
      return missing("is below the stack pointer (red zone), outside the sampled stack");
    }
    return stack_dump(spec, frame_dump_);  // the frame pointer: distance from %rsp unknown
  }

  Arch arch_;
  const SamplingChoices& choices_;
  int16_t sp_;
  uint64_t frame_dump_;
};

}  // namespace

bool SiteSampling::needs_kernel_reads() const {
  // Each kernel read of a sampled plan has its fetch-args; the BPF path's
  // reads (bpf_arg_plan.h) have none and need no tracefs event.
  return std::any_of(fetch_args.begin(), fetch_args.end(),
                     [](const std::string& f) { return !f.empty(); });
}

SiteSampling plan_site_sampling(const std::vector<ArgSpec>& args, Arch arch,
                                const SamplingChoices& choices) {
  SiteSampling plan;
  Planner planner(arch, choices);
  uint64_t stack_needed = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool as_string = i < 32 && (choices.string_mask >> i) & 1;
    ArgPlan p = planner.plan(args[i], i, as_string);
    if (as_string && p.source == ArgSource::kernel_read) plan.string_mask |= 1u << i;
    plan.regs_mask |= p.regs;
    stack_needed = std::max(stack_needed, p.stack_needed);
    plan.sources.push_back(p.source);
    plan.missing_reasons.push_back(std::move(p.reason));
    plan.fetch_args.push_back(std::move(p.fetch));
  }
  plan.stack_bytes = static_cast<uint32_t>(stack_needed);
  return plan;
}

std::string describe_source(const SiteSampling& plan, size_t arg) {
  if (arg >= plan.sources.size()) return "";
  switch (plan.sources[arg]) {
    case ArgSource::constant: return "constant";
    case ArgSource::sampled_register: return "sampled register";
    case ArgSource::sampled_stack:
      return "sampled stack (" + std::to_string(plan.stack_bytes) + "-byte dump)";
    case ArgSource::kernel_read:
      return ((plan.string_mask >> arg) & 1 ? "string read by the kernel: "
                                            : "read by the kernel: ") +
             plan.fetch_args[arg];
    case ArgSource::not_in_sample: break;
  }
  return "not recorded: " + plan.missing_reasons[arg];
}

std::vector<ArgSpec> function_entry_args() {
  const int16_t regs[] = {x86_reg::di, x86_reg::si, x86_reg::dx,
                          x86_reg::cx, x86_reg::r8, static_cast<int16_t>(x86_reg::r8 + 1)};
  std::vector<ArgSpec> args;
  for (int16_t reg : regs) args.push_back(abi_register(reg));
  return args;
}

std::vector<ArgSpec> function_return_args() { return {abi_register(x86_reg::ax)}; }

ArgSpec stack_pointer_arg() { return abi_register(x86_reg::sp); }

}  // namespace usdt::record
