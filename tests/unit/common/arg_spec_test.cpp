#include "common/arg_spec.h"

#include <catch2/catch.hpp>

#include "tests/unit/support/arg_spec_checks.h"

using namespace usdt;

namespace {

ArgSpec x86(std::string_view text) { return parse_arg_spec(text, Arch::x86_64); }
ArgSpec arm(std::string_view text) { return parse_arg_spec(text, Arch::aarch64); }

using usdt::test::require_reg;

}  // namespace

TEST_CASE("sizes, signs and the float flag", "[arg_spec]") {
  require_reg(x86("1@%al"), x86_reg::ax, 1, false);
  require_reg(x86("-1@%al"), x86_reg::ax, 1, true);
  require_reg(x86("2@%ax"), x86_reg::ax, 2, false);
  require_reg(x86("-2@%ax"), x86_reg::ax, 2, true);
  require_reg(x86("4@%eax"), x86_reg::ax, 4, false);
  require_reg(x86("-4@%eax"), x86_reg::ax, 4, true);
  require_reg(x86("8@%rax"), x86_reg::ax, 8, false);
  require_reg(x86("-8@%rax"), x86_reg::ax, 8, true);
  auto f = x86("8f@%rdx");
  require_reg(f, x86_reg::dx, 8, false);
  CHECK(f.is_float);
  CHECK_FALSE(x86("8@%rdx").is_float);
  CHECK(x86("-4@%eax").text == "-4@%eax");
}

TEST_CASE("constants", "[arg_spec]") {
  auto s = x86("4@$42");
  REQUIRE(s.location == ArgLocation::constant);
  CHECK(s.constant == 42);
  CHECK(x86("-4@$-7").constant == -7);
  CHECK(x86("8@$0x1f").constant == 0x1f);
  CHECK(x86("-8@$-0x10").constant == -16);
  // GCC 12 writes negative literals for unsigned operands: keep size bits.
  CHECK(x86("4@$-1").constant == 0xffffffffLL);
  CHECK(x86("1@$-1").constant == 255);
  CHECK(x86("2@$-2").constant == 0xfffe);
  CHECK(x86("-1@$255").constant == -1);
  CHECK(x86("8@$-1").constant == -1);
  CHECK(x86("-4@$4294967295").constant == -1);
  CHECK(arg_source(s, Arch::x86_64) == ArgSource::constant);
  CHECK(describe(x86("4@$-1"), Arch::x86_64) == "uint32 constant 4294967295");
  CHECK(describe(x86("-4@$-7"), Arch::x86_64) == "int32 constant -7");
}

TEST_CASE("memory operands", "[arg_spec]") {
  auto s = x86("-8@-24(%rbp)");
  REQUIRE(s.location == ArgLocation::memory);
  CHECK(s.reg == x86_reg::bp);
  CHECK(s.displacement == -24);
  CHECK(s.index_reg == kNoReg);
  CHECK(s.size == 8);
  CHECK(s.is_signed);
  CHECK(arg_source(s, Arch::x86_64) == ArgSource::sampled_stack);
  CHECK(describe(s, Arch::x86_64) == "int64 at -24(%rbp)");

  auto heap = x86("4@60(%rax)");
  REQUIRE(heap.location == ArgLocation::memory);
  CHECK(heap.reg == x86_reg::ax);
  CHECK(heap.displacement == 60);
  CHECK(arg_source(heap, Arch::x86_64) == ArgSource::not_in_sample);
  CHECK(describe(heap, Arch::x86_64) == "uint32 at 60(%rax)");

  auto red_zone = x86("8@-8(%rsp)");
  CHECK(red_zone.reg == x86_reg::sp);
  CHECK(red_zone.displacement == -8);
  CHECK(arg_source(red_zone, Arch::x86_64) == ArgSource::sampled_stack);

  auto plain = x86("8@(%rsp)");
  REQUIRE(plain.location == ArgLocation::memory);
  CHECK(plain.displacement == 0);
  CHECK(plain.reg == x86_reg::sp);

  auto hexdisp = x86("8@0x10(%r12)");
  CHECK(hexdisp.reg == x86_reg::r8 + 4);
  CHECK(hexdisp.displacement == 16);
}

TEST_CASE("absolute addresses", "[arg_spec]") {
  auto s = x86("8@0x20000000");
  REQUIRE(s.location == ArgLocation::memory);
  CHECK(s.reg == kNoReg);
  CHECK(s.index_reg == kNoReg);
  CHECK(s.symbol.empty());
  CHECK(s.displacement == 0x20000000);
  CHECK(arg_source(s, Arch::x86_64) == ArgSource::not_in_sample);
  CHECK_FALSE(is_stack_relative(s, Arch::x86_64));
  CHECK(describe(s, Arch::x86_64) == "uint64 at absolute address 0x20000000");
  CHECK(x86("-4@4096").displacement == 4096);
  CHECK(x86("4@0x1000+8").displacement == 0x1008);
  // A bare symbol is the memory at that symbol (SystemTap's
  // try_parse_arg_varname), as in AT&T syntax.
  auto bare = x86("4@counter+8");
  REQUIRE(bare.location == ArgLocation::memory);
  CHECK(bare.symbol == "counter");
  CHECK(bare.displacement == 8);
  CHECK(bare.reg == kNoReg);
  CHECK(describe(bare, Arch::x86_64) == "uint32 at counter+8");
  CHECK_FALSE(needs_load_bias(bare));
}

TEST_CASE("size-less operands follow SystemTap", "[arg_spec]") {
  // tapsets.cxx, parse_out_arg_precision: no '@' in a v3 note means
  // sizeof(long), unsigned; try_parse_arg_register masks a sub-register
  // to its width without sign extension.
  auto rdi = x86("%rdi");
  REQUIRE(rdi.location == ArgLocation::reg);
  CHECK(rdi.reg == x86_reg::di);
  CHECK(rdi.size == 8);
  CHECK_FALSE(rdi.is_signed);
  CHECK_FALSE(rdi.is_float);
  CHECK(rdi.implicit_size);
  CHECK(rdi.text == "%rdi");
  CHECK(arg_source(rdi, Arch::x86_64) == ArgSource::sampled_register);
  CHECK(describe(rdi, Arch::x86_64) == "uint64 in %rdi (no size in the note: SystemTap's default)");
  CHECK_FALSE(x86("8@%rdi").implicit_size);

  struct Case {
    const char* text;
    int16_t reg;
    uint8_t size;
    uint8_t shift;
  };
  const Case regs[] = {
      {"%eax", x86_reg::ax, 4, 0}, {"%ax", x86_reg::ax, 2, 0},  {"%al", x86_reg::ax, 1, 0},
      {"%ah", x86_reg::ax, 1, 8},  {"%r9d", x86_reg::r8 + 1, 4, 0}, {"%r10w", x86_reg::r8 + 2, 2, 0},
      {"%r11b", x86_reg::r8 + 3, 1, 0}, {"%r15", x86_reg::r8 + 7, 8, 0}, {"%sil", x86_reg::si, 1, 0},
  };
  for (const auto& c : regs) {
    INFO(c.text);
    auto s = x86(c.text);
    require_reg(s, c.reg, c.size, false, c.shift);
    CHECK(s.implicit_size);
  }

  auto mem = x86("-4(%rbp)");
  REQUIRE(mem.location == ArgLocation::memory);
  CHECK(mem.reg == x86_reg::bp);
  CHECK(mem.displacement == -4);
  CHECK(mem.size == 8);
  CHECK_FALSE(mem.is_signed);
  CHECK(arg_source(mem, Arch::x86_64) == ArgSource::sampled_stack);
  auto sum = x86("-8+16(%rsp)");
  REQUIRE(sum.location == ArgLocation::memory);
  CHECK(sum.displacement == 8);
  CHECK(sum.size == 8);
  auto idx = x86("8(%rsp,%rcx,8)");
  REQUIRE(idx.location == ArgLocation::memory);
  CHECK(idx.index_reg == x86_reg::cx);
  CHECK(idx.scale == 8);
  CHECK(idx.size == 8);
  auto glob = x86("sym+4(%rip)");
  REQUIRE(glob.location == ArgLocation::memory);
  CHECK(glob.symbol == "sym");
  CHECK(glob.displacement == 4);

  auto five = x86("$5");
  REQUIRE(five.location == ArgLocation::constant);
  CHECK(five.constant == 5);
  CHECK(five.size == 8);
  CHECK_FALSE(five.is_signed);
  // uint64 of "-5": the same 64 bits as -5.
  CHECK(x86("$-5").constant == -5);
  CHECK(describe(x86("$-5"), Arch::x86_64) ==
        "uint64 constant 18446744073709551611 (no size in the note: SystemTap's default)");

  auto specs = parse_arg_specs("%rdi -4(%rbp) $5 8@%rsi", Arch::x86_64);
  REQUIRE(specs.size() == 4);
  CHECK(specs[0].implicit_size);
  CHECK(specs[1].implicit_size);
  CHECK(specs[2].implicit_size);
  CHECK_FALSE(specs[3].implicit_size);
  CHECK(specs[1].location == ArgLocation::memory);

  auto x1 = arm("x1");
  REQUIRE(x1.location == ArgLocation::reg);
  CHECK(x1.size == 8);
  CHECK(x1.implicit_size);
  auto w2 = arm("w2");
  REQUIRE(w2.location == ArgLocation::reg);
  CHECK(w2.size == 4);
  CHECK_FALSE(w2.is_signed);
  auto armmem = arm("[sp, 16]");
  REQUIRE(armmem.location == ArgLocation::memory);
  CHECK(armmem.size == 8);

  // Without '%' or '$' a name is a symbol, as GNU as reads it.
  for (const char* text : {"garbage", "rdi"}) {
    INFO(text);
    auto s = x86(text);
    REQUIRE(s.location == ArgLocation::memory);
    CHECK(s.symbol == text);
    CHECK(s.size == 8);
  }
  auto address_of = x86("$x");
  REQUIRE(address_of.location == ArgLocation::constant);
  CHECK(address_of.symbol == "x");
  for (const char* text : {"%foo", "-4(%rbx", "(%eax)", "$", "%", "$x+", "%fs:"}) {
    INFO(text);
    auto s = x86(text);
    CHECK(s.location == ArgLocation::undecodable);
    CHECK_FALSE(s.error.empty());
    CHECK(describe(s, Arch::x86_64).rfind("undecodable: ", 0) == 0);
  }
}

TEST_CASE("malformed specs are undecodable, never fatal", "[arg_spec]") {
  const char* bad[] = {"4@",          "@%rax",        "3@%rax",        "4@%foo",      "8@(%rax,%rbx,3)",
                       "",            "garbage(",     "16@%rax",       "4@$",         "4@$12x",
                       "x@%rax",      "-@%rax",       "4@(%eax)",      "4@()",        "4@8(%rax",
                       "4@%eip",      "4@(%rax,%rsp,2)", "4@(%rax,%rbx,2,1)", "4@sym+(%rip)", "4@12abc(%rax)",
                       "4@%",         "8@%r16",       "8@%r8x",        "0@%rax",      "4f@"};
  for (const char* text : bad) {
    INFO("'" << text << "'");
    auto s = x86(text);
    CHECK(s.location == ArgLocation::undecodable);
    CHECK_FALSE(s.error.empty());
    CHECK(s.text == text);
    CHECK(arg_source(s, Arch::x86_64) == ArgSource::not_in_sample);
    CHECK(describe(s, Arch::x86_64).rfind("undecodable: ", 0) == 0);
  }
}

TEST_CASE("splitting an argument string", "[arg_spec]") {
  auto specs = parse_arg_specs("8@%rdi  -4@$5 -8@-24(%rbp)", Arch::x86_64);
  REQUIRE(specs.size() == 3);
  CHECK(specs[0].text == "8@%rdi");
  CHECK(specs[1].text == "-4@$5");
  CHECK(specs[2].text == "-8@-24(%rbp)");
  CHECK(parse_arg_specs("", Arch::x86_64).empty());
  CHECK(parse_arg_specs("   ", Arch::x86_64).empty());
  auto a = parse_arg_specs("-4@[sp, 8] 8@x0", Arch::aarch64);
  REQUIRE(a.size() == 2);
  CHECK(a[0].text == "-4@[sp, 8]");
  CHECK(a[1].text == "8@x0");
}

TEST_CASE("every cut and byte flip of the new forms is a value, never a crash", "[arg_spec]") {
  const char* forms[] = {"8@16(%rsp,%rcx,8)", "-4@(%rbp,%rax,4)", "8@-8+8(%rsp)",
                         "8@8+-16(%rbp)",     "4@sym-4(%rip)",    "4@8+sym+4(%rip)",
                         "8@0x20000000",      "%rdi",             "-8+32(%rbp)",
                         "$-5",               "%esi",             "4@counter.0(%rip)",
                         "-4@ho_recs+4(%rax)", "-8@gvals(,%rdi,8)", "-8@%fs:tv@tpoff",
                         "8@%ds:8(%rdx)",     "8@$ho_recs+32",    "-2@ho_recs+20",
                         "4@ho_recs(,%rax,1)"};
  for (const char* form : forms) {
    std::string text(form);
    for (size_t cut = 0; cut <= text.size(); ++cut) {
      auto s = x86(text.substr(0, cut));
      INFO("'" << text.substr(0, cut) << "'");
      CHECK((s.location != ArgLocation::undecodable || !s.error.empty()));
      (void)describe(s, Arch::x86_64);
      (void)arg_source(s, Arch::x86_64);
    }
    for (size_t i = 0; i < text.size(); ++i) {
      for (char c : {'+', '-', '(', ')', ',', '@', '%', '$', ' ', 'x', '9', '\0', '\xff'}) {
        std::string flipped = text;
        flipped[i] = c;
        auto s = x86(flipped);
        CHECK((s.location != ArgLocation::undecodable || !s.error.empty()));
        (void)describe(s, Arch::x86_64);
      }
    }
  }
}
