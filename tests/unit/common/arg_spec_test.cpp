#include "common/arg_spec.h"

#include <catch2/catch.hpp>

using namespace usdt;

namespace {

ArgSpec x86(std::string_view text) { return parse_arg_spec(text, Arch::x86_64); }
ArgSpec arm(std::string_view text) { return parse_arg_spec(text, Arch::aarch64); }

void require_reg(const ArgSpec& s, int16_t reg, uint8_t size, bool is_signed, uint8_t shift = 0) {
  INFO(s.text << " error=" << s.error);
  REQUIRE(s.location == ArgLocation::reg);
  CHECK(s.reg == reg);
  CHECK(s.size == size);
  CHECK(s.is_signed == is_signed);
  CHECK(s.reg_shift == shift);
  CHECK(s.index_reg == kNoReg);
}

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

TEST_CASE("every x86-64 general-purpose register and sub-register", "[arg_spec]") {
  struct Case {
    const char* name;
    int16_t reg;
    uint8_t shift;
  };
  const Case cases[] = {
      {"rax", 0, 0}, {"eax", 0, 0}, {"ax", 0, 0}, {"al", 0, 0}, {"ah", 0, 8},
      {"rbx", 1, 0}, {"ebx", 1, 0}, {"bx", 1, 0}, {"bl", 1, 0}, {"bh", 1, 8},
      {"rcx", 2, 0}, {"ecx", 2, 0}, {"cx", 2, 0}, {"cl", 2, 0}, {"ch", 2, 8},
      {"rdx", 3, 0}, {"edx", 3, 0}, {"dx", 3, 0}, {"dl", 3, 0}, {"dh", 3, 8},
      {"rsi", 4, 0}, {"esi", 4, 0}, {"si", 4, 0}, {"sil", 4, 0},
      {"rdi", 5, 0}, {"edi", 5, 0}, {"di", 5, 0}, {"dil", 5, 0},
      {"rbp", 6, 0}, {"ebp", 6, 0}, {"bp", 6, 0}, {"bpl", 6, 0},
      {"rsp", 7, 0}, {"esp", 7, 0}, {"sp", 7, 0}, {"spl", 7, 0},
  };
  for (const auto& c : cases) {
    auto s = x86(std::string("8@%") + c.name);
    INFO(c.name);
    require_reg(s, c.reg, 8, false, c.shift);
  }
  // The instruction pointer is a sampled register like the others.
  require_reg(x86("8@%rip"), x86_reg::ip, 8, false);
  CHECK(arg_source(x86("8@%rip"), Arch::x86_64) == ArgSource::sampled_register);
  for (int n = 8; n <= 15; ++n) {
    auto r = std::to_string(n);
    INFO("r" << r);
    require_reg(x86("8@%r" + r), static_cast<int16_t>(16 + n - 8), 8, false);
    require_reg(x86("-4@%r" + r + "d"), static_cast<int16_t>(16 + n - 8), 4, true);
    require_reg(x86("2@%r" + r + "w"), static_cast<int16_t>(16 + n - 8), 2, false);
    require_reg(x86("1@%r" + r + "b"), static_cast<int16_t>(16 + n - 8), 1, false);
  }
}

TEST_CASE("xmm registers", "[arg_spec]") {
  for (int n = 0; n < 16; ++n) {
    auto s = x86("8f@%xmm" + std::to_string(n));
    REQUIRE(s.location == ArgLocation::reg);
    CHECK(s.reg == x86_reg::xmm0 + 2 * n);
    CHECK(s.is_float);
    CHECK(arg_source(s, Arch::x86_64) == ArgSource::not_in_sample);
    CHECK(register_name(s.reg, Arch::x86_64) == "xmm" + std::to_string(n));
  }
  CHECK(x86("8@%xmm16").location == ArgLocation::undecodable);
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

TEST_CASE("indexed memory operands", "[arg_spec]") {
  auto s = x86("8@(%rax,%rdx,8)");
  REQUIRE(s.location == ArgLocation::memory);
  CHECK(s.reg == x86_reg::ax);
  CHECK(s.index_reg == x86_reg::dx);
  CHECK(s.scale == 8);
  CHECK(s.displacement == 0);
  CHECK(arg_source(s, Arch::x86_64) == ArgSource::not_in_sample);
  CHECK(describe(s, Arch::x86_64) == "uint64 at (%rax,%rdx,8)");

  auto d = x86("-4@16(%rbx,%r9,4)");
  REQUIRE(d.location == ArgLocation::memory);
  CHECK(d.reg == x86_reg::bx);
  CHECK(d.index_reg == x86_reg::r8 + 1);
  CHECK(d.scale == 4);
  CHECK(d.displacement == 16);

  auto no_base = x86("4@(,%rcx,2)");
  REQUIRE(no_base.location == ArgLocation::memory);
  CHECK(no_base.reg == kNoReg);
  CHECK(no_base.index_reg == x86_reg::cx);
  CHECK(no_base.scale == 2);

  auto no_scale = x86("4@(%rax,%rcx)");
  REQUIRE(no_scale.location == ArgLocation::memory);
  CHECK(no_scale.scale == 1);

  // An index makes even an %rbp-based address something we do not copy.
  CHECK(arg_source(x86("4@-8(%rbp,%rax,4)"), Arch::x86_64) == ArgSource::not_in_sample);
}

TEST_CASE("scaled-index stack operands", "[arg_spec]") {
  auto s = x86("8@16(%rsp,%rcx,8)");
  REQUIRE(s.location == ArgLocation::memory);
  CHECK(s.reg == x86_reg::sp);
  CHECK(s.index_reg == x86_reg::cx);
  CHECK(s.scale == 8);
  CHECK(s.displacement == 16);
  CHECK(s.size == 8);
  CHECK_FALSE(s.is_signed);
  CHECK(is_stack_relative(s, Arch::x86_64));
  CHECK(describe(s, Arch::x86_64) == "uint64 at 16(%rsp,%rcx,8)");

  auto bp = x86("-4@(%rbp,%rax,4)");
  REQUIRE(bp.location == ArgLocation::memory);
  CHECK(bp.reg == x86_reg::bp);
  CHECK(bp.index_reg == x86_reg::ax);
  CHECK(bp.scale == 4);
  CHECK(bp.displacement == 0);
  CHECK(bp.is_signed);
  CHECK(is_stack_relative(bp, Arch::x86_64));

  auto neg = x86("-2@-0x20(%rbp,%r10,2)");
  REQUIRE(neg.location == ArgLocation::memory);
  CHECK(neg.reg == x86_reg::bp);
  CHECK(neg.index_reg == x86_reg::r8 + 2);
  CHECK(neg.scale == 2);
  CHECK(neg.displacement == -32);

  auto sum = x86("8@-8+24(%rsp,%rdx,8)");
  REQUIRE(sum.location == ArgLocation::memory);
  CHECK(sum.displacement == 16);
  CHECK(sum.index_reg == x86_reg::dx);

  // The recorder must sample the index register before it can read these.
  CHECK(arg_source(s, Arch::x86_64) == ArgSource::not_in_sample);
  CHECK_FALSE(is_stack_relative(x86("8@16(%rax,%rcx,8)"), Arch::x86_64));
  CHECK_FALSE(is_stack_relative(x86("8@sym(%rip)"), Arch::x86_64));
  CHECK_FALSE(is_stack_relative(x86("8@%rsp"), Arch::x86_64));
  CHECK(is_stack_relative(x86("8@-8(%rsp)"), Arch::x86_64));
  CHECK(is_stack_relative(arm("8@[sp, 8]"), Arch::aarch64));
  CHECK(is_stack_relative(arm("8@[x29, -8]"), Arch::aarch64));
  CHECK_FALSE(is_stack_relative(arm("8@[x1, 8]"), Arch::aarch64));
}

TEST_CASE("displacement expressions fold into one displacement", "[arg_spec]") {
  struct Case {
    const char* text;
    int16_t reg;
    int64_t displacement;
  };
  const Case cases[] = {
      {"8@-8+8(%rsp)", x86_reg::sp, 0},        {"8@8+-16(%rbp)", x86_reg::bp, -8},
      {"8@16-8(%rsp)", x86_reg::sp, 8},        {"4@0x10+4(%rax)", x86_reg::ax, 20},
      {"4@-4-4(%rbp)", x86_reg::bp, -8},       {"4@+8(%rsp)", x86_reg::sp, 8},
      {"4@1+2+3(%rsp)", x86_reg::sp, 6},       {"4@-0x10+0x8(%rbp)", x86_reg::bp, -8},
      {"4@8--8(%rsp)", x86_reg::sp, 16},       {"4@-24(%rbp)", x86_reg::bp, -24},
  };
  for (const auto& c : cases) {
    auto s = x86(c.text);
    INFO(c.text << " error=" << s.error);
    REQUIRE(s.location == ArgLocation::memory);
    CHECK(s.reg == c.reg);
    CHECK(s.displacement == c.displacement);
    CHECK(s.symbol.empty());
    CHECK(s.index_reg == kNoReg);
  }
  CHECK(describe(x86("8@-8+8(%rsp)"), Arch::x86_64) == "uint64 at (%rsp)");
  CHECK(describe(x86("8@8+-16(%rbp)"), Arch::x86_64) == "uint64 at -8(%rbp)");
  CHECK(arg_source(x86("8@-8+8(%rsp)"), Arch::x86_64) == ArgSource::sampled_stack);

  auto plus = x86("8@sym+8(%rip)");
  REQUIRE(plus.location == ArgLocation::memory);
  CHECK(plus.symbol == "sym");
  CHECK(plus.reg == x86_reg::ip);
  CHECK(plus.displacement == 8);
  auto minus = x86("-4@sym-4(%rip)");
  REQUIRE(minus.location == ArgLocation::memory);
  CHECK(minus.symbol == "sym");
  CHECK(minus.displacement == -4);
  auto both = x86("4@8+sym+4(%rip)");
  REQUIRE(both.location == ArgLocation::memory);
  CHECK(both.symbol == "sym");
  CHECK(both.displacement == 12);
  auto hex_sym = x86("4@counter.1+0x10(%rip)");
  REQUIRE(hex_sym.location == ArgLocation::memory);
  CHECK(hex_sym.symbol == "counter.1");
  CHECK(hex_sym.displacement == 16);
  auto dotted = x86("8@my.dotted.sym(%rip)");
  REQUIRE(dotted.location == ArgLocation::memory);
  CHECK(dotted.symbol == "my.dotted.sym");
  CHECK(dotted.displacement == 0);

  const char* bad[] = {"4@sym+(%rip)", "4@8+(%rsp)",     "4@+(%rsp)",       "4@-sym(%rip)",
                       "4@a+b(%rip)",  "4@8 8(%rsp)",    "4@8+-+8(%rsp)",   "4@0x(%rsp)",
                       "4@8*2(%rsp)",  "4@sym8+x(%rip)", "4@1+2+(%rsp)",    "4@8++(%rsp)"};
  for (const char* text : bad) {
    INFO(text);
    auto s = x86(text);
    CHECK(s.location == ArgLocation::undecodable);
    CHECK_FALSE(s.error.empty());
  }
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
  // A bare symbol is not taken: GCC writes sym(%rip) on x86-64.
  CHECK(x86("4@counter").location == ArgLocation::undecodable);
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

  for (const char* text : {"garbage", "%foo", "rdi", "-4(%rbx", "(%eax)", "$x", "%"}) {
    INFO(text);
    auto s = x86(text);
    CHECK(s.location == ArgLocation::undecodable);
    CHECK_FALSE(s.error.empty());
    CHECK(describe(s, Arch::x86_64).rfind("undecodable: ", 0) == 0);
  }
}

TEST_CASE("symbol-relative operands", "[arg_spec]") {
  auto s = x86("-4@NBuffers(%rip)");
  REQUIRE(s.location == ArgLocation::memory);
  CHECK(s.symbol == "NBuffers");
  CHECK(s.reg == x86_reg::ip);
  CHECK(s.displacement == 0);
  CHECK_FALSE(s.symbol_resolved);
  CHECK(arg_source(s, Arch::x86_64) == ArgSource::not_in_sample);

  auto plus = x86("8@foo+16(%rip)");
  CHECK(plus.symbol == "foo");
  CHECK(plus.displacement == 16);
  auto minus = x86("8@foo-8(%rip)");
  CHECK(minus.symbol == "foo");
  CHECK(minus.displacement == -8);
  auto leading = x86("-4@40+CheckpointStats(%rip)");
  REQUIRE(leading.location == ArgLocation::memory);
  CHECK(leading.symbol == "CheckpointStats");
  CHECK(leading.displacement == 40);
  auto dotted = x86("4@_ZN3foo3barE.lto_priv.0(%rip)");
  CHECK(dotted.symbol == "_ZN3foo3barE.lto_priv.0");

  s.symbol_resolved = true;
  s.symbol_address = 0x875f7c;
  CHECK(describe(s, Arch::x86_64) == "int32 at NBuffers(%rip) = 0x875f7c");
  leading.symbol_resolved = true;
  leading.symbol_address = 0x886000;
  CHECK(describe(leading, Arch::x86_64) == "int32 at CheckpointStats+40(%rip) = 0x886028");
}

TEST_CASE("descriptions of registers", "[arg_spec]") {
  CHECK(describe(x86("-4@%eax"), Arch::x86_64) == "int32 in %eax");
  CHECK(describe(x86("1@%ah"), Arch::x86_64) == "uint8 in bits 8-15 of %rax");
  CHECK(describe(x86("-2@%r8w"), Arch::x86_64) == "int16 in %r8w");
  CHECK(describe(x86("8@%r15"), Arch::x86_64) == "uint64 in %r15");
  CHECK(describe(x86("1@%sil"), Arch::x86_64) == "uint8 in %sil");
  CHECK(describe(x86("8f@%xmm1"), Arch::x86_64) == "float64 in %xmm1");
  CHECK(describe(x86("4f@%xmm0"), Arch::x86_64) == "float32 in %xmm0");
  CHECK(arg_source(x86("1@%ah"), Arch::x86_64) == ArgSource::sampled_register);
  CHECK(register_name(x86_reg::r8 + 7, Arch::x86_64) == "r15");
  CHECK(register_name(99, Arch::x86_64) == "?");
}

TEST_CASE("malformed specs are undecodable, never fatal", "[arg_spec]") {
  const char* bad[] = {"4@",          "@%rax",        "3@%rax",        "4@%foo",      "8@(%rax,%rbx,3)",
                       "",            "garbage",      "16@%rax",       "4@$",         "4@$12x",
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

TEST_CASE("aarch64 operands", "[arg_spec]") {
  auto x0 = arm("8@x0");
  REQUIRE(x0.location == ArgLocation::reg);
  CHECK(x0.reg == 0);
  CHECK(arm("-4@w30").reg == 30);
  CHECK(arm("8@x29").reg == 29);
  CHECK(arm("8@sp").reg == arm64_reg::sp);
  CHECK(describe(arm("-4@w3"), Arch::aarch64) == "int32 in w3");
  CHECK(describe(x0, Arch::aarch64) == "uint64 in x0");

  auto sp = arm("-4@[sp, 8]");
  REQUIRE(sp.location == ArgLocation::memory);
  CHECK(sp.reg == arm64_reg::sp);
  CHECK(sp.displacement == 8);
  CHECK(arg_source(sp, Arch::aarch64) == ArgSource::sampled_stack);
  CHECK(describe(sp, Arch::aarch64) == "int32 at [sp, 8]");

  auto bare = arm("8@[sp]");
  REQUIRE(bare.location == ArgLocation::memory);
  CHECK(bare.displacement == 0);
  auto fp = arm("8@[x29, -16]");
  REQUIRE(fp.location == ArgLocation::memory);
  CHECK(fp.reg == 29);
  CHECK(fp.displacement == -16);
  CHECK(arg_source(fp, Arch::aarch64) == ArgSource::sampled_stack);
  auto hash = arm("4@[x1, #8]");
  REQUIRE(hash.location == ArgLocation::memory);
  CHECK(hash.reg == 1);
  CHECK(hash.displacement == 8);
  CHECK(arg_source(hash, Arch::aarch64) == ArgSource::not_in_sample);

  CHECK(arm("-4@5").constant == 5);
  CHECK(arm("-4@#-5").constant == -5);
  CHECK(arm("4@-1").constant == 0xffffffffLL);
  CHECK(arg_source(arm("-4@5"), Arch::aarch64) == ArgSource::constant);

  CHECK(arm("8@x31").location == ArgLocation::undecodable);
  CHECK(arm("8@[x1, foo]").location == ArgLocation::undecodable);
  CHECK(arm("8@[w1]").location == ArgLocation::undecodable);
  CHECK(arm("8@[x1").location == ArgLocation::undecodable);
  CHECK(arm("8@%rax").location == ArgLocation::undecodable);
}

TEST_CASE("every cut and byte flip of the new forms is a value, never a crash", "[arg_spec]") {
  const char* forms[] = {"8@16(%rsp,%rcx,8)", "-4@(%rbp,%rax,4)", "8@-8+8(%rsp)",
                         "8@8+-16(%rbp)",     "4@sym-4(%rip)",    "4@8+sym+4(%rip)",
                         "8@0x20000000",      "%rdi",             "-8+32(%rbp)",
                         "$-5",               "%esi",             "4@counter.0(%rip)"};
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
