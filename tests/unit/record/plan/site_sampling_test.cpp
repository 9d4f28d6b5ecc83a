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
  CHECK(p.missing_reasons[1] ==
        "is at base register %rax plus index register %rdx times 8, which the kernel's "
        "fetch-args cannot add");
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

namespace {

std::vector<ArgSpec> resolved(const char* text, uint64_t address, bool fixed_file) {
  std::vector<ArgSpec> args = specs(text);
  for (ArgSpec& a : args) {
    if (!a.symbol.empty() && a.segment.empty()) resolve_symbol(a, address, fixed_file);
  }
  return args;
}

SamplingChoices non_pie() {
  SamplingChoices c = choices(512, true);
  c.file_base = 0x400000;
  return c;
}

}  // namespace

TEST_CASE("a symbol plus a base register is read at the symbol plus the register",
          "[site_sampling]") {
  // A fixed-address executable: the link-time address is the run-time one,
  // and the register is added by the kernel. Never the symbol alone.
  SiteSampling p = plan_site_sampling(resolved("-4@ho_recs(%rax) -2@ho_recs+4(%rax)", 0x404080, true),
                                      Arch::x86_64, non_pie());
  REQUIRE(p.sources.size() == 2);
  CHECK(p.sources[0] == ArgSource::kernel_read);
  CHECK(p.fetch_args[0] ==
        "a0=+0x404080(%ax):s32 a0f=+0x404080(%ax):string a0l=+0x404083(%ax):string");
  CHECK(p.fetch_args[1] ==
        "a1=+0x404084(%ax):s16 a1f=+0x404084(%ax):string a1l=+0x404085(%ax):string");
  CHECK(p.regs_mask == 0);

  // A PIE or a shared object: the symbol moves with the file, and no
  // fetch-arg adds the load bias to a register.
  SiteSampling q = plan_site_sampling(resolved("-4@ho_recs(%rax)", 0x4080, false), Arch::x86_64,
                                      choices(512, true));
  CHECK(q.sources[0] == ArgSource::not_in_sample);
  CHECK(q.missing_reasons[0] ==
        "is symbol 'ho_recs' plus register %rax in a position-independent file: the kernel's "
        "fetch-args cannot add the file's load bias to a register");
  CHECK(q.fetch_args[0].empty());
  // Also without tracefs, the form is the reason.
  SiteSampling r = plan_site_sampling(resolved("-4@ho_recs(%rax)", 0x4080, false), Arch::x86_64,
                                      choices(512, false));
  CHECK(r.missing_reasons[0].find("load bias") != std::string::npos);
  SiteSampling t = plan_site_sampling(resolved("-4@ho_recs(%rax)", 0x404080, true), Arch::x86_64,
                                      choices(512, false));
  CHECK(t.missing_reasons[0].find("tracefs") != std::string::npos);
}

TEST_CASE("a symbol alone or through %rip: the kernel adds the load bias", "[site_sampling]") {
  SiteSampling p = plan_site_sampling(resolved("-4@g32 8@g32+8(%rip)", 0x4040, false),
                                      Arch::x86_64, choices(512, true));
  CHECK(p.fetch_args[0] == "a0=@+0x4040:s32");
  CHECK(p.fetch_args[1] == "a1=@+0x4048:u64");
  // "sym(,%rax,1)" is "sym(%rax)".
  SiteSampling q = plan_site_sampling(resolved("-4@ho_recs(,%rax,1)", 0x404080, true),
                                      Arch::x86_64, non_pie());
  CHECK(q.fetch_args[0] ==
        "a0=+0x404080(%ax):s32 a0f=+0x404080(%ax):string a0l=+0x404083(%ax):string");
  // A symbol on the stack pointer is no stack slot: never the dump.
  SiteSampling s = plan_site_sampling(resolved("8@sym(%rsp)", 0x404000, true), Arch::x86_64,
                                      non_pie());
  CHECK(s.sources[0] == ArgSource::kernel_read);
  CHECK(s.stack_bytes == 0);
  CHECK(s.fetch_args[0].rfind("a0=+0x404000(%sp):u64 ", 0) == 0);
}

TEST_CASE("forms no fetch-arg can express are missing, each with its reason", "[site_sampling]") {
  SiteSampling p = plan_site_sampling(
      resolved("-8@gvals(,%rdi,8) -4@(%rsi,%rax) -8@%fs:tls_val@tpoff 4@%gs:0x28 -4@8(%rip)", 0x404060,
               true),
      Arch::x86_64, non_pie());
  REQUIRE(p.sources.size() == 5);
  for (ArgSource s : p.sources) CHECK(s == ArgSource::not_in_sample);
  CHECK(p.missing_reasons[0] ==
        "is at an address plus index register %rdi times 8, which the kernel's fetch-args "
        "cannot add");
  CHECK(p.missing_reasons[1] ==
        "is at base register %rsi plus index register %rax, which the kernel's fetch-args "
        "cannot add");
  CHECK(p.missing_reasons[2].rfind("is relative to the thread's %fs segment base", 0) == 0);
  CHECK(p.missing_reasons[3].rfind("is relative to the thread's %gs segment base", 0) == 0);
  CHECK(p.missing_reasons[4] == "is %rip-relative without a symbol");
  // An unresolved symbol says why.
  std::vector<ArgSpec> unresolved = specs("-4@nothere(%rip)");
  unresolved[0].error = "symbol not found";
  SiteSampling q = plan_site_sampling(unresolved, Arch::x86_64, non_pie());
  CHECK(q.missing_reasons[0] == "names symbol 'nothere', symbol not found");
}

TEST_CASE("the address of a symbol is a constant in a fixed-address executable only",
          "[site_sampling]") {
  SiteSampling p = plan_site_sampling(resolved("8@$ho_recs+48", 0x404080, true), Arch::x86_64,
                                      non_pie());
  CHECK(p.sources[0] == ArgSource::constant);
  SiteSampling q = plan_site_sampling(resolved("8@$ho_recs+48", 0x4080, false), Arch::x86_64,
                                      choices(512, true));
  CHECK(q.sources[0] == ArgSource::not_in_sample);
  CHECK(q.missing_reasons[0].find("position-independent") != std::string::npos);
  SiteSampling r = plan_site_sampling(specs("8@$ho_recs"), Arch::x86_64, choices(512, true));
  CHECK(r.sources[0] == ArgSource::not_in_sample);
  CHECK(r.missing_reasons[0].rfind("is the address of symbol 'ho_recs'", 0) == 0);
}

TEST_CASE("aarch64: stack operands are sampled, vector registers and other memory missing",
          "[site_sampling]") {
  std::vector<ArgSpec> args = parse_arg_specs("8@x0 -4@[sp, 8] 8f@d0 8@[x1, 8] 8@[x1, #:lo12:g]",
                                              Arch::aarch64);
  SiteSampling p = plan_site_sampling(args, Arch::aarch64, choices(512, true));
  REQUIRE(p.sources.size() == 5);
  CHECK(p.sources[0] == ArgSource::sampled_register);
  CHECK(p.sources[1] == ArgSource::sampled_stack);
  CHECK(p.stack_bytes == 16);
  CHECK(p.regs_mask == (bit(0) | bit(arm64_reg::sp)));
  CHECK(p.sources[2] == ArgSource::not_in_sample);
  CHECK(p.missing_reasons[2] == "is in register v0, which neither a sample nor the kernel's "
                                "fetch-args can read");
  CHECK(p.missing_reasons[3].find("x86-64 only") != std::string::npos);
  CHECK(p.missing_reasons[4].find("x86-64 only") != std::string::npos);
  CHECK_FALSE(p.needs_kernel_reads());
}
