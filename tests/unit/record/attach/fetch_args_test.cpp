// The tracefs fetch-args of each memory form (record/attach/fetch_args.cpp):
// the exact address expression, or the reason none exists.
#include "record/attach/fetch_args.h"

#include <catch2/catch.hpp>

using namespace usdt;
using namespace usdt::record;

namespace {

ArgSpec spec(const char* text) { return parse_arg_spec(text, Arch::x86_64); }

ArgSpec resolved(const char* text, uint64_t address, bool fixed_file) {
  ArgSpec s = spec(text);
  resolve_symbol(s, address, fixed_file);
  return s;
}

std::string fetch(const ArgSpec& s, bool as_string = false, uint64_t file_base = 0) {
  Result<std::string> f = kernel_read_fetch_args(s, 0, as_string, file_base);
  return f ? *f : "error: " + f.error().message();
}

}  // namespace

TEST_CASE("register-relative memory: decimal offsets, symbol addresses in hex", "[fetch_args]") {
  CHECK(fetch(spec("8@8(%rax)")) == "a0=+8(%ax):u64 a0f=+8(%ax):string a0l=+15(%ax):string");
  CHECK(fetch(spec("-1@-20(%rbp)")) == "a0=-20(%bp):s8 a0f=-20(%bp):string");
  CHECK(fetch(spec("2@(%r12)")) == "a0=+0(%r12):u16 a0f=+0(%r12):string a0l=+1(%r12):string");
  CHECK(fetch(resolved("-4@ho_recs+12(%rdx)", 0x404080, true)) ==
        "a0=+0x40408c(%dx):s32 a0f=+0x40408c(%dx):string a0l=+0x40408f(%dx):string");
  // An absolute address and a symbol of the file: @ and @+.
  CHECK(fetch(spec("8@0x20000000")) ==
        "a0=@0x20000000:u64 a0f=@0x20000000:string a0l=@0x20000007:string");
  CHECK(fetch(resolved("8f@gd(%rip)", 0x404048, true), false, 0x400000) == "a0=@+0x4048:x64");
  CHECK(fetch(resolved("4@counter+8", 0x4040, false)) == "a0=@+0x4048:u32");
}

TEST_CASE("strings through every pointer form the kernel can read", "[fetch_args]") {
  CHECK(fetch(spec("8@%rdi"), true) == "a0=+0(%di):string");
  CHECK(fetch(resolved("8@names+8(%rax)", 0x404100, true), true) == "a0=+0(+0x404108(%ax)):string");
  CHECK(fetch(resolved("8@name_ptr(%rip)", 0x4100, false), true) == "a0=+0(@+0x4100):string");
  CHECK(fetch(resolved("8@names(%rax)", 0x4100, false), true).find("load bias") !=
        std::string::npos);
  CHECK(fetch(spec("8@%fs:p@tpoff"), true).find("thread-local") != std::string::npos);
  CHECK(fetch(spec("1@%ah"), true) == "error: is in a part of a register");
  CHECK(fetch(spec("8f@%xmm0"), true).find("%xmm") != std::string::npos);
  CHECK(fetch(spec("8@$5"), true) == "error: is a constant, not a pointer to a string");
}

TEST_CASE("forms without a fetch-arg", "[fetch_args]") {
  CHECK(fetch(resolved("-4@ho_recs(%rax)", 0x4080, false)) ==
        "error: is symbol 'ho_recs' plus register %rax in a position-independent file: the "
        "kernel's fetch-args cannot add the file's load bias to a register");
  CHECK(fetch(spec("8@(%rax,%rdx,8)")) ==
        "error: is at base register %rax plus index register %rdx times 8, which the kernel's "
        "fetch-args cannot add");
  CHECK(fetch(spec("-4@%fs:tv@tpoff")).rfind("error: is relative to the thread's %fs", 0) == 0);
  CHECK(fetch(spec("8@16(%rip)")) == "error: is %rip-relative without a symbol");
  CHECK(fetch(spec("8@%rax")) == "error: is not in memory");
  ArgSpec absent = spec("4@gone(%rip)");
  absent.error = "symbol not found";
  CHECK(fetch(absent) == "error: names symbol 'gone', symbol not found");
  CHECK(tracefs_register(x86_reg::r8 + 7) == "r15");
  CHECK(tracefs_register(x86_reg::xmm0).empty());
}
