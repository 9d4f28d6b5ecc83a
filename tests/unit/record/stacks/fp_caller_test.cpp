#include "record/stacks/fp_caller.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

using namespace usdt;
using namespace usdt::record;

namespace {

SiteFrame stack_top(uint32_t return_address_at, bool rbp_unchanged = true,
                    int32_t rbp_saved_at = -1) {
  SiteFrame f;
  f.kind = SiteFrame::Kind::stack_top;
  f.return_address_at = return_address_at;
  f.rbp_unchanged = rbp_unchanged;
  f.rbp_saved_at = rbp_saved_at;
  return f;
}

SiteFrame of_kind(SiteFrame::Kind kind, bool looks_like_entry = false) {
  SiteFrame f;
  f.kind = kind;
  f.looks_like_entry = looks_like_entry;
  return f;
}

// A sample's stack copy of 8-byte words from %rsp, and its %rbp and %rsp.
struct Sample {
  std::vector<uint64_t> words;
  std::vector<uint64_t> reg_values;  // bp, sp, in mask order
  SampledRegs regs;
  StackDump stack;
  Sample(std::vector<uint64_t> w, uint64_t bp, uint64_t sp) : words(std::move(w)) {
    regs.set_layout(uint64_t{1} << x86_reg::bp | uint64_t{1} << x86_reg::sp);
    reg_values = {bp, sp};
    regs.set_values(reinterpret_cast<const uint8_t*>(reg_values.data()), true);
    stack.data = reinterpret_cast<const uint8_t*>(words.data());
    stack.size = 8 * words.size();
  }
};

struct Repaired {
  std::vector<uint64_t> frames;
  bool truncated = false;
};

Repaired repaired(const CallerRepair& repair, const Sample& s, std::vector<uint64_t> chain) {
  Repaired r{std::move(chain), false};
  repair_caller(repair, s.regs, s.stack, &r.frames, &r.truncated);
  return r;
}

constexpr uint64_t kIp = 0x401010, kCaller = 0x402020, kCallersCaller = 0x403030;
constexpr uint64_t kSp = 0x7ffc0000, kCallerRbp = 0x7ffc0100;

}  // namespace

TEST_CASE("plan_caller_repair: what each frame needs", "[fp_caller]") {
  using K = KernelEntryCaller;
  // A leaf at a USDT site (a nop): the caller from 0(%rsp).
  CallerRepair leaf = plan_caller_repair(stack_top(0), K::unknown);
  CHECK_FALSE(leaf.drop_kernel_entry);
  CHECK(leaf.return_address_at == 0);
  CHECK(leaf.rbp_saved_at == -1);
  CHECK(caller_repair_stack_bytes(leaf) == 8);
  CHECK_FALSE(caller_repair_reads_registers(leaf));

  // After a push: from 8(%rsp).
  CHECK(plan_caller_repair(stack_top(8), K::unknown).return_address_at == 8);
  CHECK(caller_repair_stack_bytes(plan_caller_repair(stack_top(8), K::unknown)) == 16);

  // %rbp pushed but maybe changed since: checked against its saved copy.
  CallerRepair saved = plan_caller_repair(stack_top(8, false, 0), K::unknown);
  CHECK(saved.return_address_at == 8);
  CHECK(saved.rbp_saved_at == 0);
  CHECK(caller_repair_reads_registers(saved));
  CHECK(caller_repair_stack_bytes(saved) == 16);

  // Frame set up, or nothing known: the kernel's walk as it is.
  for (SiteFrame::Kind kind : {SiteFrame::Kind::frame_set_up, SiteFrame::Kind::no_cfi,
                               SiteFrame::Kind::other_rule, SiteFrame::Kind::far_stack_top}) {
    CallerRepair none = plan_caller_repair(of_kind(kind), K::added);
    CHECK_FALSE(none.needed());
    CHECK(caller_repair_stack_bytes(none) == 0);
  }

  // An instruction the kernel takes for an entry.
  SiteFrame entry = stack_top(0);
  entry.looks_like_entry = true;
  // ... where it is one: the kernel names the caller itself, nothing to add.
  CHECK_FALSE(plan_caller_repair(entry, K::added).needed());
  // ... on a kernel that does not: added here.
  CHECK(plan_caller_repair(entry, K::not_added).return_address_at == 0);
  CHECK_FALSE(plan_caller_repair(entry, K::not_added).drop_kernel_entry);
  // ... not known what the kernel does: left as it walks.
  CHECK_FALSE(plan_caller_repair(entry, K::unknown).needed());
  // ... where it is none (a push %rbp after another push): the kernel's word
  // goes, the real caller comes in.
  SiteFrame inner = stack_top(8, false, 0);
  inner.looks_like_entry = true;
  CallerRepair replaced = plan_caller_repair(inner, K::added);
  CHECK(replaced.drop_kernel_entry);
  CHECK(replaced.return_address_at == 8);
  // ... in a function whose frame is set up: the kernel's word only goes.
  CallerRepair dropped = plan_caller_repair(of_kind(SiteFrame::Kind::frame_set_up, true), K::added);
  CHECK(dropped.drop_kernel_entry);
  CHECK(dropped.return_address_at == -1);
  CHECK(caller_repair_stack_bytes(dropped) == 8);
  // ... with no CFI: not known, as the kernel walks.
  CHECK_FALSE(plan_caller_repair(of_kind(SiteFrame::Kind::no_cfi, true), K::added).needed());
}

TEST_CASE("repair_caller: the caller goes after the ip", "[fp_caller]") {
  CallerRepair repair;
  repair.return_address_at = 0;
  Sample s({kCaller, 0}, kCallerRbp, kSp);
  // The kernel's walk from the caller's %rbp gave the caller's caller.
  Repaired r = repaired(repair, s, {kIp, kCallersCaller});
  CHECK(r.frames == std::vector<uint64_t>{kIp, kCaller, kCallersCaller});
  CHECK_FALSE(r.truncated);
  // A walk that found nothing more (its %rbp was 0): still the caller.
  CHECK(repaired(repair, s, {kIp}).frames == std::vector<uint64_t>{kIp, kCaller});
  // No stack: no stack.
  CHECK(repaired(repair, s, {}).frames.empty());
  // Nothing to repair: as it was.
  CHECK(repaired(CallerRepair(), s, {kIp, kCallersCaller}).frames ==
        std::vector<uint64_t>{kIp, kCallersCaller});
}

TEST_CASE("repair_caller: a copy without the caller keeps only the ip", "[fp_caller]") {
  CallerRepair repair;
  repair.return_address_at = 8;
  Sample s({kCaller}, kCallerRbp, kSp);  // 8 bytes: not as far as 8(%rsp)
  Repaired r = repaired(repair, s, {kIp, kCallersCaller});
  CHECK(r.frames == std::vector<uint64_t>{kIp});
  CHECK(r.truncated);
}

TEST_CASE("repair_caller: the kernel's word at an entry-looking instruction", "[fp_caller]") {
  CallerRepair repair;
  repair.drop_kernel_entry = true;
  repair.return_address_at = 8;
  const uint64_t pushed_rbx = 0x5555;
  Sample s({pushed_rbx, kCaller}, kCallerRbp, kSp);
  // The kernel put (%rsp) after the ip: it goes, the caller comes in.
  CHECK(repaired(repair, s, {kIp, pushed_rbx, kCallersCaller}).frames ==
        std::vector<uint64_t>{kIp, kCaller, kCallersCaller});
  // It did not (its read failed): nothing is taken out.
  CHECK(repaired(repair, s, {kIp, kCallersCaller}).frames ==
        std::vector<uint64_t>{kIp, kCaller, kCallersCaller});
}

TEST_CASE("repair_caller: a pushed %rbp tells whether the walk was the caller's", "[fp_caller]") {
  CallerRepair repair;
  repair.return_address_at = 8;
  repair.rbp_saved_at = 0;
  // %rbp still the caller's: the walk was right.
  Sample same({kCallerRbp, kCaller}, kCallerRbp, kSp);
  CHECK(repaired(repair, same, {kIp, kCallersCaller}).frames ==
        std::vector<uint64_t>{kIp, kCaller, kCallersCaller});
  // %rbp changed since it was saved: the walk is someone else's.
  Sample changed({kCallerRbp, kCaller}, 0x1234, kSp);
  Repaired r = repaired(repair, changed, {kIp, 0x999, 0x888});
  CHECK(r.frames == std::vector<uint64_t>{kIp, kCaller});
  CHECK(r.truncated);
  // %rbp points at the saved copy (mov %rsp,%rbp done): the walk started at
  // this frame and has the caller already.
  Sample set_up({kCallerRbp, kCaller}, kSp, kSp);
  CHECK(repaired(repair, set_up, {kIp, kCaller, kCallersCaller}).frames ==
        std::vector<uint64_t>{kIp, kCaller, kCallersCaller});
  // No registers in the sample: not known to be wrong, repaired as usual.
  Sample none({kCallerRbp, kCaller}, 0, 0);
  none.regs.set_values(nullptr, false);
  CHECK(repaired(repair, none, {kIp, kCallersCaller}).frames ==
        std::vector<uint64_t>{kIp, kCaller, kCallersCaller});
}
