#include "record/site_sampling.h"

#include <algorithm>

namespace usdt::record {
namespace {

int16_t stack_pointer(Arch arch) { return arch == Arch::x86_64 ? x86_reg::sp : arm64_reg::sp; }

uint32_t round8(uint64_t v) { return static_cast<uint32_t>((v + 7) & ~uint64_t{7}); }

uint64_t reg_bit(int16_t reg) { return reg >= 0 && reg < 64 ? uint64_t{1} << reg : 0; }

std::string not_in_sample_reason(const ArgSpec& spec, Arch arch) {
  switch (spec.location) {
    case ArgLocation::undecodable:
      return "cannot be parsed (" + spec.error + ")";
    case ArgLocation::reg:
      return "is in register %" + register_name(spec.reg, arch) + ", which a uprobe cannot sample";
    case ArgLocation::memory:
      if (!spec.symbol.empty()) return "is in memory outside the stack";
      if (spec.index_reg != kNoReg) return "is in indexed memory, which a sample does not hold";
      return "is in memory outside the stack";
    case ArgLocation::constant:
      break;
  }
  return "cannot be read from a sample";
}

ArgSpec abi_register(int16_t reg, int index) {
  ArgSpec spec;
  (void)index;
  spec.text = "8@%" + register_name(reg, Arch::x86_64);
  spec.location = ArgLocation::reg;
  spec.size = 8;
  spec.reg = reg;
  return spec;
}

}  // namespace

SiteSampling plan_site_sampling(const std::vector<ArgSpec>& args, Arch arch,
                                uint32_t stack_option) {
  SiteSampling plan;
  const int16_t sp = stack_pointer(arch);
  uint64_t stack_needed = 0;
  uint64_t frame_dump =
      std::min<uint64_t>(round8(std::max<uint32_t>(stack_option, 8)), kMaxStackBytes);
  for (const ArgSpec& spec : args) {
    ArgSource source = arg_source(spec, arch);
    std::string reason;
    if (source == ArgSource::sampled_register) {
      plan.regs_mask |= reg_bit(spec.reg);
    } else if (source == ArgSource::sampled_stack) {
      if (spec.reg == sp) {
        if (spec.displacement < 0) {
          source = ArgSource::not_in_sample;
          reason = "is below the stack pointer (red zone), outside the sampled stack";
        } else if (static_cast<uint64_t>(spec.displacement) + spec.size > kMaxStackBytes) {
          source = ArgSource::not_in_sample;
          reason = "is deeper in the stack than a sample can hold";
        } else {
          stack_needed = std::max<uint64_t>(stack_needed, round8(spec.displacement + spec.size));
        }
      } else {
        stack_needed = std::max(stack_needed, frame_dump);
      }
      if (source == ArgSource::sampled_stack) plan.regs_mask |= reg_bit(spec.reg) | reg_bit(sp);
    } else if (source == ArgSource::not_in_sample) {
      reason = not_in_sample_reason(spec, arch);
    }
    plan.sources.push_back(source);
    plan.missing_reasons.push_back(std::move(reason));
  }
  plan.stack_bytes = static_cast<uint32_t>(stack_needed);
  return plan;
}

std::vector<ArgSpec> function_entry_args() {
  const int16_t regs[] = {x86_reg::di, x86_reg::si, x86_reg::dx,
                          x86_reg::cx, x86_reg::r8, static_cast<int16_t>(x86_reg::r8 + 1)};
  std::vector<ArgSpec> args;
  for (int i = 0; i < 6; ++i) args.push_back(abi_register(regs[i], i));
  return args;
}

std::vector<ArgSpec> function_return_args() { return {abi_register(x86_reg::ax, 0)}; }

}  // namespace usdt::record
