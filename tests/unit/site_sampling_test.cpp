#include "record/site_sampling.h"

#include <catch2/catch.hpp>

using namespace usdt;
using namespace usdt::record;

namespace {

std::vector<ArgSpec> specs(const char* text) { return parse_arg_specs(text, Arch::x86_64); }

uint64_t bit(int16_t r) { return uint64_t{1} << r; }

}  // namespace

TEST_CASE("only the registers the arguments name are sampled", "[site_sampling]") {
  SiteSampling p = plan_site_sampling(specs("-4@%eax 8@%rdx 1@%ah 4@$5"), Arch::x86_64, 512);
  CHECK(p.regs_mask == (bit(x86_reg::ax) | bit(x86_reg::dx)));
  CHECK(p.stack_bytes == 0);
  REQUIRE(p.sources.size() == 4);
  CHECK(p.sources[3] == ArgSource::constant);
  for (const std::string& r : p.missing_reasons) CHECK(r.empty());
}

TEST_CASE("no arguments: no registers, no stack", "[site_sampling]") {
  SiteSampling p = plan_site_sampling({}, Arch::x86_64, 512);
  CHECK(p.regs_mask == 0);
  CHECK(p.stack_bytes == 0);
}

TEST_CASE("%rsp operands size the dump exactly, rounded to 8", "[site_sampling]") {
  SiteSampling p = plan_site_sampling(specs("-4@8(%rsp) 2@26(%rsp)"), Arch::x86_64, 512);
  CHECK(p.stack_bytes == 32);
  CHECK(p.regs_mask == bit(x86_reg::sp));
}

TEST_CASE("%rbp operands take the stack option", "[site_sampling]") {
  SiteSampling p = plan_site_sampling(specs("-8@-24(%rbp)"), Arch::x86_64, 300);
  CHECK(p.stack_bytes == 304);
  CHECK(p.regs_mask == (bit(x86_reg::bp) | bit(x86_reg::sp)));
  CHECK(p.sources[0] == ArgSource::sampled_stack);
}

TEST_CASE("arguments a sample cannot hold are missing with a reason", "[site_sampling]") {
  SiteSampling p = plan_site_sampling(
      specs("8@-8(%rsp) -4@NBuffers(%rip) 4@60(%rax) 8@(%rax,%rdx,8) 8f@%xmm0"), Arch::x86_64, 512);
  REQUIRE(p.sources.size() == 5);
  for (ArgSource s : p.sources) CHECK(s == ArgSource::not_in_sample);
  CHECK(p.missing_reasons[0].find("red zone") != std::string::npos);
  CHECK(p.missing_reasons[1] == "is in memory outside the stack");
  CHECK(p.missing_reasons[2] == "is in memory outside the stack");
  CHECK_FALSE(p.missing_reasons[3].empty());
  CHECK_FALSE(p.missing_reasons[4].empty());
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
