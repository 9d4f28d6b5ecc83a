// The BPF path's plan of each operand form (record/plan/bpf_arg_plan.h):
// what the program reads, what is missing and why, and -l -v's lines.
#include "record/plan/bpf_arg_plan.h"

#include <catch2/catch.hpp>

using namespace usdt;
using namespace usdt::record;

namespace {

BpfSitePlan plan_of(const std::vector<std::string>& specs, uint32_t strings = 0,
                    bool return_probe = false) {
  std::vector<ArgSpec> args;
  for (const std::string& s : specs) args.push_back(parse_arg_spec(s, Arch::x86_64));
  SamplingChoices choices;
  choices.string_mask = strings;
  return plan_bpf_site(args, Arch::x86_64, choices, 0x1130, return_probe);
}

}  // namespace

TEST_CASE("bpf plan: registers, constants and stack memory", "[bpf_arg_plan]") {
  BpfSitePlan p = plan_of({"-4@%edi", "8@%rsi", "1@%ah", "-4@$-9", "8@-24(%rbp)", "4@8(%rsp)"});
  REQUIRE(p.site.arg_count == 6);
  CHECK(p.site.probe_address == 0x1130);
  CHECK(p.site.args[0].kind == USDT_BPF_ARG_REG);
  CHECK(p.site.args[0].reg == x86_reg::di);
  CHECK(p.site.args[0].size == 4);
  CHECK((p.site.args[0].flags & USDT_BPF_ARG_SIGNED) != 0);
  CHECK(p.site.args[2].shift == 8);
  CHECK(p.site.args[3].kind == USDT_BPF_ARG_CONST);
  CHECK(p.site.args[3].constant == -9);
  CHECK(p.site.args[4].kind == USDT_BPF_ARG_MEM);
  CHECK(p.site.args[4].reg == x86_reg::bp);
  CHECK(p.site.args[4].constant == -24);
  CHECK(p.site.args[4].index_reg == USDT_BPF_NO_REG);
  CHECK(p.sampling.sources[0] == ArgSource::sampled_register);
  CHECK(p.sampling.sources[3] == ArgSource::constant);
  CHECK(p.sampling.sources[4] == ArgSource::kernel_read);
  CHECK(p.sampling.regs_mask == 0);
  CHECK(p.sampling.stack_bytes == 0);
  CHECK_FALSE(p.sampling.needs_kernel_reads());  // no tracefs fetch-args
  CHECK(describe_bpf_source(p, 4) == "BPF: memory at %rbp - 24");
}

TEST_CASE("bpf plan: base plus scaled index is exact", "[bpf_arg_plan]") {
  BpfSitePlan p = plan_of({"8@16(%rax,%rdx,8)", "-4@(,%rcx,4)"});
  CHECK(p.sampling.missing_reasons[0].empty());
  CHECK(p.site.args[0].kind == USDT_BPF_ARG_MEM);
  CHECK(p.site.args[0].reg == x86_reg::ax);
  CHECK(p.site.args[0].index_reg == x86_reg::dx);
  CHECK(p.site.args[0].scale == 8);
  CHECK(p.site.args[0].constant == 16);
  CHECK(describe_bpf_source(p, 0) == "BPF: memory at %rax + %rdx * 8 + 16");
  CHECK(p.site.args[1].index_reg == x86_reg::cx);
}

TEST_CASE("bpf plan: symbols add the load bias where the file moves", "[bpf_arg_plan]") {
  std::vector<ArgSpec> args = {
      parse_arg_spec("-4@tab+8(%rax)", Arch::x86_64), parse_arg_spec("8@glob(%rip)", Arch::x86_64),
      parse_arg_spec("8@$glob", Arch::x86_64), parse_arg_spec("-4@tab+8(%rax)", Arch::x86_64)};
  resolve_symbol(args[0], 0x4000, false);
  resolve_symbol(args[1], 0x5000, false);
  resolve_symbol(args[2], 0x5000, false);
  resolve_symbol(args[3], 0x404000, true);
  BpfSitePlan p = plan_bpf_site(args, Arch::x86_64, SamplingChoices{}, 0x1130);
  for (size_t i = 0; i < 4; ++i) CHECK(p.sampling.missing_reasons[i].empty());
  CHECK(p.site.args[0].kind == USDT_BPF_ARG_MEM);
  CHECK(p.site.args[0].constant == 0x4008);
  CHECK((p.site.args[0].flags & USDT_BPF_ARG_BIAS) != 0);
  CHECK(p.site.args[1].reg == USDT_BPF_NO_REG);  // sym(%rip): the symbol alone
  CHECK((p.site.args[1].flags & USDT_BPF_ARG_BIAS) != 0);
  CHECK(p.site.args[2].kind == USDT_BPF_ARG_CONST);
  CHECK((p.site.args[2].flags & USDT_BPF_ARG_BIAS) != 0);
  CHECK((p.site.args[3].flags & USDT_BPF_ARG_BIAS) == 0);  // a fixed-address file
  CHECK(p.site.args[3].constant == 0x404008);
  // A uretprobe traps in its caller: no load bias to take.
  BpfSitePlan ret = plan_bpf_site(args, Arch::x86_64, SamplingChoices{}, 0x1130, true);
  CHECK(ret.sampling.sources[0] == ArgSource::not_in_sample);
  CHECK(ret.sampling.missing_reasons[0].find("load bias") != std::string::npos);
}

TEST_CASE("bpf plan: what stays missing", "[bpf_arg_plan]") {
  std::vector<ArgSpec> args = {
      parse_arg_spec("8f@%xmm1", Arch::x86_64), parse_arg_spec("8@%fs:-8", Arch::x86_64),
      parse_arg_spec("8@nosuch(%rip)", Arch::x86_64), parse_arg_spec("8@bogus!", Arch::x86_64)};
  BpfSitePlan p = plan_bpf_site(args, Arch::x86_64, SamplingChoices{}, 0);
  for (size_t i = 0; i < args.size(); ++i) {
    INFO(args[i].text);
    CHECK(p.sampling.sources[i] == ArgSource::not_in_sample);
    CHECK(p.site.args[i].kind == USDT_BPF_ARG_MISSING);
    CHECK_FALSE(p.sampling.missing_reasons[i].empty());
    CHECK(describe_bpf_source(p, i).rfind("not recorded: ", 0) == 0);
  }
  CHECK(p.sampling.missing_reasons[1].find("thread-local") != std::string::npos);
}

TEST_CASE("bpf plan: strings through a register or memory", "[bpf_arg_plan]") {
  BpfSitePlan p = plan_of({"8@%rdi", "8@8(%rbx)", "4@$5"}, 0b111);
  CHECK((p.site.args[0].flags & USDT_BPF_ARG_STRING) != 0);
  CHECK((p.site.args[1].flags & USDT_BPF_ARG_STRING) != 0);
  CHECK(p.site.has_strings == 1);
  CHECK(p.sampling.string_mask == 0b011);
  CHECK(p.sampling.sources[2] == ArgSource::not_in_sample);  // a constant is no pointer
  CHECK(describe_bpf_source(p, 0) == "BPF: string at the pointer in register %rdi");
}

TEST_CASE("bpf plan: -l -v lines per capture path", "[bpf_arg_plan]") {
  std::vector<ArgSpec> args = {parse_arg_spec("8@(%rax,%rdx,8)", Arch::x86_64)};
  SiteSampling sampled = plan_site_sampling(args, Arch::x86_64, SamplingChoices{});
  BpfSitePlan bpf = plan_bpf_site(args, Arch::x86_64, SamplingChoices{}, 0);
  ArgListing automatic = list_arg_paths(sampled, bpf, 0, CaptureMode::automatic);
  CHECK(automatic.bracket.rfind("not recorded: ", 0) == 0);
  CHECK(automatic.bpf_line == "on the BPF path: memory at %rax + %rdx * 8");
  ArgListing only_bpf = list_arg_paths(sampled, bpf, 0, CaptureMode::bpf);
  CHECK(only_bpf.bracket == "BPF: memory at %rax + %rdx * 8");
  CHECK(only_bpf.bpf_line.empty());
  CHECK(list_arg_paths(sampled, bpf, 0, CaptureMode::sample).bpf_line.empty());
}
