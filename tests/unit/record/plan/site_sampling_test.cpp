#include "record/plan/site_sampling.h"

#include <catch2/catch.hpp>

using namespace usdt;
using namespace usdt::record;

namespace {

std::vector<ArgSpec> specs(const char* text) { return parse_arg_specs(text, Arch::x86_64); }

uint64_t bit(int16_t r) { return uint64_t{1} << r; }

SamplingChoices choices(uint32_t stack_bytes, bool kernel_reads, uint32_t strings = 0) {
  SamplingChoices c;
  c.stack_bytes = stack_bytes;
  c.kernel_reads = kernel_reads;
  c.string_mask = strings;
  return c;
}

}  // namespace

TEST_CASE("only the registers the arguments name are sampled", "[site_sampling]") {
  SiteSampling p =
      plan_site_sampling(specs("-4@%eax 8@%rdx 1@%ah 4@$5"), Arch::x86_64, choices(512, true));
  CHECK(p.regs_mask == (bit(x86_reg::ax) | bit(x86_reg::dx)));
  CHECK(p.stack_bytes == 0);
  REQUIRE(p.sources.size() == 4);
  CHECK(p.sources[3] == ArgSource::constant);
  for (const std::string& r : p.missing_reasons) CHECK(r.empty());
  CHECK_FALSE(p.needs_kernel_reads());
}

TEST_CASE("no arguments: no registers, no stack", "[site_sampling]") {
  SiteSampling p = plan_site_sampling({}, Arch::x86_64, choices(512, true));
  CHECK(p.regs_mask == 0);
  CHECK(p.stack_bytes == 0);
}

TEST_CASE("%rsp operands size the dump exactly, rounded to 8", "[site_sampling]") {
  SiteSampling p = plan_site_sampling(specs("-4@8(%rsp) 2@26(%rsp)"), Arch::x86_64, choices(512, true));
  CHECK(p.stack_bytes == 32);
  CHECK(p.regs_mask == bit(x86_reg::sp));
}

TEST_CASE("deep %rsp operands are read by the kernel, not dumped", "[site_sampling]") {
  SiteSampling p =
      plan_site_sampling(specs("8@20000(%rsp) -4@4200(%rsp)"), Arch::x86_64, choices(512, true));
  REQUIRE(p.sources.size() == 2);
  CHECK(p.sources[0] == ArgSource::kernel_read);
  CHECK(p.fetch_args[0] == "a0=+20000(%sp):u64 a0f=+20000(%sp):string a0l=+20007(%sp):string");
  CHECK(p.fetch_args[1] == "a1=+4200(%sp):s32 a1f=+4200(%sp):string a1l=+4203(%sp):string");
  CHECK(p.stack_bytes == 0);
  // Without tracefs the dump grows to hold them, up to the sample limit.
  SiteSampling q =
      plan_site_sampling(specs("8@20000(%rsp) -4@40000(%rsp)"), Arch::x86_64, choices(512, false));
  CHECK(q.sources[0] == ArgSource::sampled_stack);
  CHECK(q.stack_bytes == 20008);
  CHECK(q.sources[1] == ArgSource::not_in_sample);
}

TEST_CASE("%rbp operands: a kernel read, or the stack option without tracefs", "[site_sampling]") {
  SiteSampling p = plan_site_sampling(specs("-8@-24(%rbp)"), Arch::x86_64, choices(300, true));
  CHECK(p.sources[0] == ArgSource::kernel_read);
  CHECK(p.fetch_args[0] == "a0=-24(%bp):s64 a0f=-24(%bp):string a0l=-17(%bp):string");
  SiteSampling q = plan_site_sampling(specs("-8@-24(%rbp)"), Arch::x86_64, choices(300, false));
  CHECK(q.stack_bytes == 304);
  CHECK(q.regs_mask == (bit(x86_reg::bp) | bit(x86_reg::sp)));
  CHECK(q.sources[0] == ArgSource::sampled_stack);
}

TEST_CASE("memory the kernel can read: heap, red zone, absolute", "[site_sampling]") {
  SiteSampling p = plan_site_sampling(specs("4@60(%rax) 8@-8(%rsp) 1@(%rdi) 8f@%xmm0"),
                                      Arch::x86_64, choices(512, true));
  REQUIRE(p.sources.size() == 4);
  CHECK(p.sources[0] == ArgSource::kernel_read);
  CHECK(p.fetch_args[0] == "a0=+60(%ax):u32 a0f=+60(%ax):string a0l=+63(%ax):string");
  CHECK(p.fetch_args[1] == "a1=-8(%sp):u64 a1f=-8(%sp):string a1l=-1(%sp):string");
  // One byte: one detector.
  CHECK(p.fetch_args[2] == "a2=+0(%di):u8 a2f=+0(%di):string");
  CHECK(p.sources[3] == ArgSource::not_in_sample);
  CHECK(p.missing_reasons[3].find("xmm") != std::string::npos);
  CHECK(p.needs_kernel_reads());
}

TEST_CASE("a resolved %rip symbol is read at its link-time address", "[site_sampling]") {
  std::vector<ArgSpec> args = specs("-4@NBuffers(%rip) -4@missing(%rip)");
  args[0].symbol_resolved = true;
  args[0].symbol_address = 0x9a4f10;
  SiteSampling p = plan_site_sampling(args, Arch::x86_64, choices(512, true));
  // The probed file's own data cannot fault: no detectors.
  CHECK(p.fetch_args[0] == "a0=@+0x9a4f10:s32");
  CHECK(p.sources[1] == ArgSource::not_in_sample);
  CHECK(p.missing_reasons[1].find("missing") != std::string::npos);
  // A non-PIE executable: the kernel's @+ base is where its first segment
  // maps (0x400000), not 0.
  SamplingChoices nopie = choices(512, true);
  nopie.file_base = 0x400000;
  args[0].symbol_address = 0x404080;
  SiteSampling q = plan_site_sampling(args, Arch::x86_64, nopie);
  CHECK(q.fetch_args[0] == "a0=@+0x4080:s32");
}

TEST_CASE("strings are read through the pointer", "[site_sampling]") {
  SiteSampling p = plan_site_sampling(specs("8@%rdi 8@-144(%rbp) 8@16(%rsp) 4@$0"), Arch::x86_64,
                                      choices(512, true, 0b1111));
  CHECK(p.fetch_args[0] == "a0=+0(%di):string");
  CHECK(p.fetch_args[1] == "a1=+0(-144(%bp)):string");
  CHECK(p.fetch_args[2] == "a2=+0(+16(%sp)):string");
  CHECK(p.sources[3] == ArgSource::not_in_sample);
  CHECK(p.string_mask == 0b0111);
  // No tracefs: no strings.
  SiteSampling q = plan_site_sampling(specs("8@%rdi"), Arch::x86_64, choices(512, false, 1));
  CHECK(q.sources[0] == ArgSource::not_in_sample);
  CHECK(q.string_mask == 0);
}

TEST_CASE("scaled-index operands: sampled on the stack, missing elsewhere", "[site_sampling]") {
  SiteSampling p = plan_site_sampling(specs("8@8(%rsp,%rax,8) 8@(%rax,%rdx,8)"), Arch::x86_64,
                                      choices(512, true));
  CHECK(p.sources[0] == ArgSource::sampled_stack);
  CHECK(p.stack_bytes == 512);
  CHECK(p.regs_mask == (bit(x86_reg::sp) | bit(x86_reg::ax)));
  CHECK(p.sources[1] == ArgSource::not_in_sample);
  CHECK(p.missing_reasons[1].find("scaled index") != std::string::npos);
}

TEST_CASE("without tracefs, memory a sample cannot hold is missing with a reason",
          "[site_sampling]") {
  SiteSampling p = plan_site_sampling(specs("8@-8(%rsp) 4@60(%rax) 8f@%xmm0"), Arch::x86_64,
                                      choices(512, false));
  REQUIRE(p.sources.size() == 3);
  for (ArgSource s : p.sources) CHECK(s == ArgSource::not_in_sample);
  CHECK(p.missing_reasons[0].find("red zone") != std::string::npos);
  CHECK(p.missing_reasons[1].find("tracefs") != std::string::npos);
  CHECK(p.regs_mask == 0);
  CHECK(p.stack_bytes == 0);
}

TEST_CASE("uprobe and uretprobe arguments are the ABI registers", "[site_sampling]") {
  std::vector<ArgSpec> entry = function_entry_args();
  REQUIRE(entry.size() == 6);
  CHECK(entry[0].reg == x86_reg::di);
  CHECK(entry[5].reg == x86_reg::r8 + 1);
  for (const ArgSpec& a : entry) CHECK(a.size == 8);
  std::vector<ArgSpec> ret = function_return_args();
  REQUIRE(ret.size() == 1);
  CHECK(ret[0].reg == x86_reg::ax);
}
