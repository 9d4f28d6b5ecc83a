// The x86-64 operand grammar (common/arch/x86_64.cpp): registers and
// sub-registers, indexed and displacement forms, symbols (through %rip, plus a
// base register, as constants), segments, and what a reader may do with a
// symbol once resolve_symbol() has placed it. Sizes, signs, constants and the
// size-less forms are in tests/unit/common/arg_spec_test.cpp.
#include "common/arch/x86_64.h"

#include <catch2/catch.hpp>

#include "common/arg_spec.h"
#include "tests/unit/support/arg_spec_checks.h"

using namespace usdt;

namespace {

ArgSpec parse(std::string_view text) { return parse_arg_spec(text, Arch::x86_64); }
ArgSpec arm(std::string_view text) { return parse_arg_spec(text, Arch::aarch64); }

using usdt::test::require_reg;

ArgSpec resolved(std::string_view text, uint64_t address, bool fixed_file) {
  ArgSpec s = parse(text);
  resolve_symbol(s, address, fixed_file);
  return s;
}

}  // namespace

TEST_CASE("every x86-64 general-purpose register and sub-register", "[x86_64]") {
  struct Case {
    const char* name;
    int16_t reg;
    uint8_t shift;
  };
  const Case cases[] = {
      {"rax", 0, 0}, {"eax", 0, 0}, {"ax", 0, 0},  {"al", 0, 0},  {"ah", 0, 8},  {"rbx", 1, 0},
      {"ebx", 1, 0}, {"bx", 1, 0},  {"bl", 1, 0},  {"bh", 1, 8},  {"rcx", 2, 0}, {"ecx", 2, 0},
      {"cx", 2, 0},  {"cl", 2, 0},  {"ch", 2, 8},  {"rdx", 3, 0}, {"edx", 3, 0}, {"dx", 3, 0},
      {"dl", 3, 0},  {"dh", 3, 8},  {"rsi", 4, 0}, {"esi", 4, 0}, {"si", 4, 0},  {"sil", 4, 0},
      {"rdi", 5, 0}, {"edi", 5, 0}, {"di", 5, 0},  {"dil", 5, 0}, {"rbp", 6, 0}, {"ebp", 6, 0},
      {"bp", 6, 0},  {"bpl", 6, 0}, {"rsp", 7, 0}, {"esp", 7, 0}, {"sp", 7, 0},  {"spl", 7, 0},
  };
  for (const auto& c : cases) {
    auto s = parse(std::string("8@%") + c.name);
    INFO(c.name);
    require_reg(s, c.reg, 8, false, c.shift);
  }
  // The instruction pointer is a sampled register like the others.
  require_reg(parse("8@%rip"), x86_reg::ip, 8, false);
  CHECK(arg_source(parse("8@%rip"), Arch::x86_64) == ArgSource::sampled_register);
  for (int n = 8; n <= 15; ++n) {
    auto r = std::to_string(n);
    INFO("r" << r);
    require_reg(parse("8@%r" + r), static_cast<int16_t>(16 + n - 8), 8, false);
    require_reg(parse("-4@%r" + r + "d"), static_cast<int16_t>(16 + n - 8), 4, true);
    require_reg(parse("2@%r" + r + "w"), static_cast<int16_t>(16 + n - 8), 2, false);
    require_reg(parse("1@%r" + r + "b"), static_cast<int16_t>(16 + n - 8), 1, false);
  }
}

TEST_CASE("xmm registers", "[x86_64]") {
  for (int n = 0; n < 16; ++n) {
    auto s = parse("8f@%xmm" + std::to_string(n));
    REQUIRE(s.location == ArgLocation::reg);
    CHECK(s.reg == x86_reg::xmm0 + 2 * n);
    CHECK(s.is_float);
    CHECK(arg_source(s, Arch::x86_64) == ArgSource::not_in_sample);
    CHECK(register_name(s.reg, Arch::x86_64) == "xmm" + std::to_string(n));
  }
  CHECK(parse("8@%xmm16").location == ArgLocation::undecodable);
}

TEST_CASE("indexed memory operands", "[x86_64]") {
  auto s = parse("8@(%rax,%rdx,8)");
  REQUIRE(s.location == ArgLocation::memory);
  CHECK(s.reg == x86_reg::ax);
  CHECK(s.index_reg == x86_reg::dx);
  CHECK(s.scale == 8);
  CHECK(s.displacement == 0);
  CHECK(arg_source(s, Arch::x86_64) == ArgSource::not_in_sample);
  CHECK(describe(s, Arch::x86_64) == "uint64 at (%rax,%rdx,8)");

  auto d = parse("-4@16(%rbx,%r9,4)");
  REQUIRE(d.location == ArgLocation::memory);
  CHECK(d.reg == x86_reg::bx);
  CHECK(d.index_reg == x86_reg::r8 + 1);
  CHECK(d.scale == 4);
  CHECK(d.displacement == 16);

  auto no_base = parse("4@(,%rcx,2)");
  REQUIRE(no_base.location == ArgLocation::memory);
  CHECK(no_base.reg == kNoReg);
  CHECK(no_base.index_reg == x86_reg::cx);
  CHECK(no_base.scale == 2);

  auto no_scale = parse("4@(%rax,%rcx)");
  REQUIRE(no_scale.location == ArgLocation::memory);
  CHECK(no_scale.scale == 1);

  // An index makes even an %rbp-based address something we do not copy.
  CHECK(arg_source(parse("4@-8(%rbp,%rax,4)"), Arch::x86_64) == ArgSource::not_in_sample);
}

TEST_CASE("scaled-index stack operands", "[x86_64]") {
  auto s = parse("8@16(%rsp,%rcx,8)");
  REQUIRE(s.location == ArgLocation::memory);
  CHECK(s.reg == x86_reg::sp);
  CHECK(s.index_reg == x86_reg::cx);
  CHECK(s.scale == 8);
  CHECK(s.displacement == 16);
  CHECK(s.size == 8);
  CHECK_FALSE(s.is_signed);
  CHECK(is_stack_relative(s, Arch::x86_64));
  CHECK(describe(s, Arch::x86_64) == "uint64 at 16(%rsp,%rcx,8)");

  auto bp = parse("-4@(%rbp,%rax,4)");
  REQUIRE(bp.location == ArgLocation::memory);
  CHECK(bp.reg == x86_reg::bp);
  CHECK(bp.index_reg == x86_reg::ax);
  CHECK(bp.scale == 4);
  CHECK(bp.displacement == 0);
  CHECK(bp.is_signed);
  CHECK(is_stack_relative(bp, Arch::x86_64));

  auto neg = parse("-2@-0x20(%rbp,%r10,2)");
  REQUIRE(neg.location == ArgLocation::memory);
  CHECK(neg.reg == x86_reg::bp);
  CHECK(neg.index_reg == x86_reg::r8 + 2);
  CHECK(neg.scale == 2);
  CHECK(neg.displacement == -32);

  auto sum = parse("8@-8+24(%rsp,%rdx,8)");
  REQUIRE(sum.location == ArgLocation::memory);
  CHECK(sum.displacement == 16);
  CHECK(sum.index_reg == x86_reg::dx);

  // The recorder must sample the index register before it can read these.
  CHECK(arg_source(s, Arch::x86_64) == ArgSource::not_in_sample);
  CHECK_FALSE(is_stack_relative(parse("8@16(%rax,%rcx,8)"), Arch::x86_64));
  CHECK_FALSE(is_stack_relative(parse("8@sym(%rip)"), Arch::x86_64));
  CHECK_FALSE(is_stack_relative(parse("8@%rsp"), Arch::x86_64));
  CHECK(is_stack_relative(parse("8@-8(%rsp)"), Arch::x86_64));
  CHECK(is_stack_relative(arm("8@[sp, 8]"), Arch::aarch64));
  CHECK(is_stack_relative(arm("8@[x29, -8]"), Arch::aarch64));
  CHECK_FALSE(is_stack_relative(arm("8@[x1, 8]"), Arch::aarch64));
}

TEST_CASE("displacement expressions fold into one displacement", "[x86_64]") {
  struct Case {
    const char* text;
    int16_t reg;
    int64_t displacement;
  };
  const Case cases[] = {
      {"8@-8+8(%rsp)", x86_reg::sp, 0},  {"8@8+-16(%rbp)", x86_reg::bp, -8},
      {"8@16-8(%rsp)", x86_reg::sp, 8},  {"4@0x10+4(%rax)", x86_reg::ax, 20},
      {"4@-4-4(%rbp)", x86_reg::bp, -8}, {"4@+8(%rsp)", x86_reg::sp, 8},
      {"4@1+2+3(%rsp)", x86_reg::sp, 6}, {"4@-0x10+0x8(%rbp)", x86_reg::bp, -8},
      {"4@8--8(%rsp)", x86_reg::sp, 16}, {"4@-24(%rbp)", x86_reg::bp, -24},
  };
  for (const auto& c : cases) {
    auto s = parse(c.text);
    INFO(c.text << " error=" << s.error);
    REQUIRE(s.location == ArgLocation::memory);
    CHECK(s.reg == c.reg);
    CHECK(s.displacement == c.displacement);
    CHECK(s.symbol.empty());
    CHECK(s.index_reg == kNoReg);
  }
  CHECK(describe(parse("8@-8+8(%rsp)"), Arch::x86_64) == "uint64 at (%rsp)");
  CHECK(describe(parse("8@8+-16(%rbp)"), Arch::x86_64) == "uint64 at -8(%rbp)");
  CHECK(arg_source(parse("8@-8+8(%rsp)"), Arch::x86_64) == ArgSource::sampled_stack);

  auto plus = parse("8@sym+8(%rip)");
  REQUIRE(plus.location == ArgLocation::memory);
  CHECK(plus.symbol == "sym");
  CHECK(plus.reg == x86_reg::ip);
  CHECK(plus.displacement == 8);
  auto minus = parse("-4@sym-4(%rip)");
  REQUIRE(minus.location == ArgLocation::memory);
  CHECK(minus.symbol == "sym");
  CHECK(minus.displacement == -4);
  auto both = parse("4@8+sym+4(%rip)");
  REQUIRE(both.location == ArgLocation::memory);
  CHECK(both.symbol == "sym");
  CHECK(both.displacement == 12);
  auto hex_sym = parse("4@counter.1+0x10(%rip)");
  REQUIRE(hex_sym.location == ArgLocation::memory);
  CHECK(hex_sym.symbol == "counter.1");
  CHECK(hex_sym.displacement == 16);
  auto dotted = parse("8@my.dotted.sym(%rip)");
  REQUIRE(dotted.location == ArgLocation::memory);
  CHECK(dotted.symbol == "my.dotted.sym");
  CHECK(dotted.displacement == 0);

  const char* bad[] = {"4@sym+(%rip)", "4@8+(%rsp)",     "4@+(%rsp)",     "4@-sym(%rip)",
                       "4@a+b(%rip)",  "4@8 8(%rsp)",    "4@8+-+8(%rsp)", "4@0x(%rsp)",
                       "4@8*2(%rsp)",  "4@sym8+x(%rip)", "4@1+2+(%rsp)",  "4@8++(%rsp)"};
  for (const char* text : bad) {
    INFO(text);
    auto s = parse(text);
    CHECK(s.location == ArgLocation::undecodable);
    CHECK_FALSE(s.error.empty());
  }
}

TEST_CASE("symbol-relative operands", "[x86_64]") {
  auto s = parse("-4@NBuffers(%rip)");
  REQUIRE(s.location == ArgLocation::memory);
  CHECK(s.symbol == "NBuffers");
  CHECK(s.reg == x86_reg::ip);
  CHECK(s.displacement == 0);
  CHECK_FALSE(s.symbol_resolved);
  CHECK(arg_source(s, Arch::x86_64) == ArgSource::not_in_sample);

  auto plus = parse("8@foo+16(%rip)");
  CHECK(plus.symbol == "foo");
  CHECK(plus.displacement == 16);
  auto minus = parse("8@foo-8(%rip)");
  CHECK(minus.symbol == "foo");
  CHECK(minus.displacement == -8);
  auto leading = parse("-4@40+CheckpointStats(%rip)");
  REQUIRE(leading.location == ArgLocation::memory);
  CHECK(leading.symbol == "CheckpointStats");
  CHECK(leading.displacement == 40);
  auto dotted = parse("4@_ZN3foo3barE.lto_priv.0(%rip)");
  CHECK(dotted.symbol == "_ZN3foo3barE.lto_priv.0");

  s.symbol_resolved = true;
  s.symbol_address = 0x875f7c;
  CHECK(describe(s, Arch::x86_64) == "int32 at NBuffers(%rip) = 0x875f7c");
  leading.symbol_resolved = true;
  leading.symbol_address = 0x886000;
  CHECK(describe(leading, Arch::x86_64) == "int32 at CheckpointStats+40(%rip) = 0x886028");
}

TEST_CASE("descriptions of registers", "[x86_64]") {
  CHECK(describe(parse("-4@%eax"), Arch::x86_64) == "int32 in %eax");
  CHECK(describe(parse("1@%ah"), Arch::x86_64) == "uint8 in bits 8-15 of %rax");
  CHECK(describe(parse("-2@%r8w"), Arch::x86_64) == "int16 in %r8w");
  CHECK(describe(parse("8@%r15"), Arch::x86_64) == "uint64 in %r15");
  CHECK(describe(parse("1@%sil"), Arch::x86_64) == "uint8 in %sil");
  CHECK(describe(parse("8f@%xmm1"), Arch::x86_64) == "float64 in %xmm1");
  CHECK(describe(parse("4f@%xmm0"), Arch::x86_64) == "float32 in %xmm0");
  CHECK(arg_source(parse("1@%ah"), Arch::x86_64) == ArgSource::sampled_register);
  CHECK(register_name(x86_reg::r8 + 7, Arch::x86_64) == "r15");
  CHECK(register_name(99, Arch::x86_64) == "?");
}

TEST_CASE("a symbol plus a base register: GCC's array-of-struct fields in non-PIE code",
          "[x86_64]") {
  auto s = parse("-4@ho_recs(%rax)");
  REQUIRE(s.location == ArgLocation::memory);
  CHECK(s.symbol == "ho_recs");
  CHECK(s.reg == x86_reg::ax);
  CHECK(s.displacement == 0);
  CHECK(s.index_reg == kNoReg);
  CHECK_FALSE(is_stack_relative(s, Arch::x86_64));
  CHECK(arg_source(s, Arch::x86_64) == ArgSource::not_in_sample);

  auto off = parse("-2@ho_recs+4(%rax)");
  REQUIRE(off.location == ArgLocation::memory);
  CHECK(off.symbol == "ho_recs");
  CHECK(off.displacement == 4);
  CHECK(off.reg == x86_reg::ax);

  // The address is the symbol plus %rax, never the symbol alone.
  ArgSpec fixed = resolved("-2@ho_recs+4(%rax)", 0x404080, true);
  CHECK(describe(fixed, Arch::x86_64) == "int16 at ho_recs+4(%rax) = 0x404084 + %rax");
  CHECK_FALSE(needs_load_bias(fixed));
  // In a position-independent file the symbol moves by the load bias, which
  // nothing adds to a register.
  ArgSpec moving = resolved("-2@ho_recs+4(%rax)", 0x4080, false);
  CHECK(needs_load_bias(moving));
  CHECK(describe(moving, Arch::x86_64) == "int16 at ho_recs+4(%rax) = 0x4084 + %rax");
  // Through %rip, or alone, the kernel adds the bias itself.
  CHECK_FALSE(needs_load_bias(resolved("4@g32(%rip)", 0x4040, false)));
  CHECK_FALSE(needs_load_bias(resolved("4@g32", 0x4040, false)));
  // A symbol on the stack pointer is no stack slot.
  CHECK_FALSE(is_stack_relative(parse("8@sym(%rsp)"), Arch::x86_64));
  CHECK_FALSE(is_stack_relative(parse("8@sym-8(%rbp)"), Arch::x86_64));
}

TEST_CASE("an index without a base: scale 1 is a plain register, others stay indexed", "[x86_64]") {
  auto one = parse("-4@ho_recs(,%rax,1)");
  REQUIRE(one.location == ArgLocation::memory);
  CHECK(one.reg == x86_reg::ax);
  CHECK(one.index_reg == kNoReg);
  CHECK(one.symbol == "ho_recs");
  CHECK(describe(one, Arch::x86_64) == "int32 at ho_recs(%rax)");
  auto plain = parse("8@16(,%rdx,1)");
  CHECK(plain.reg == x86_reg::dx);
  CHECK(plain.index_reg == kNoReg);
  CHECK(plain.displacement == 16);

  auto eight = parse("-8@gvals(,%rdi,8)");
  REQUIRE(eight.location == ArgLocation::memory);
  CHECK(eight.reg == kNoReg);
  CHECK(eight.index_reg == x86_reg::di);
  CHECK(eight.scale == 8);
  CHECK(describe(resolved("-8@gvals(,%rdi,8)", 0x404060, true), Arch::x86_64) ==
        "int64 at gvals(,%rdi,8) = 0x404060 + %rdi*8");
  auto four = parse("4@sarr+12(,%rdi,4)");
  CHECK(four.displacement == 12);
  CHECK(four.scale == 4);
  CHECK(describe(parse("-4@(%rsi,%rax)"), Arch::x86_64) == "int32 at (%rsi,%rax,1)");
}

TEST_CASE("segment-prefixed operands: %fs: and %gs: are thread-relative, the others flat",
          "[x86_64]") {
  auto tls = parse("-8@%fs:tls_val@tpoff");
  REQUIRE(tls.location == ArgLocation::memory);
  CHECK(tls.segment == "fs");
  CHECK(tls.symbol == "tls_val@tpoff");
  CHECK(tls.size == 8);
  CHECK(tls.is_signed);
  CHECK(describe(tls, Arch::x86_64) == "int64 at %fs:tls_val@tpoff");
  CHECK_FALSE(is_stack_relative(tls, Arch::x86_64));
  auto clang = parse("-8@%fs:tv@TPOFF");
  CHECK(clang.segment == "fs");
  auto gs = parse("8@%gs:0x28");
  REQUIRE(gs.location == ArgLocation::memory);
  CHECK(gs.segment == "gs");
  CHECK(gs.displacement == 0x28);
  CHECK(describe(gs, Arch::x86_64) == "uint64 at %gs:0x28");
  auto gs_base = parse("4@%fs:8(%rax)");
  CHECK(gs_base.segment == "fs");
  CHECK(gs_base.reg == x86_reg::ax);
  CHECK_FALSE(is_stack_relative(parse("8@%fs:8(%rsp)"), Arch::x86_64));

  // Base 0 in 64-bit mode: the same address as without the prefix.
  auto ds = parse("4@%ds:60(%rax)");
  REQUIRE(ds.location == ArgLocation::memory);
  CHECK(ds.segment.empty());
  CHECK(ds.reg == x86_reg::ax);
  CHECK(ds.displacement == 60);
  CHECK(is_stack_relative(parse("8@%ss:8(%rsp)"), Arch::x86_64));

  for (const char* text : {"4@%xs:8(%rax)", "4@%fs:", "4@%fs:%rax", "4@%fs:$5", "4@%fs:8(%eax)"}) {
    INFO(text);
    auto s = parse(text);
    CHECK(s.location == ArgLocation::undecodable);
    CHECK_FALSE(s.error.empty());
  }
  // Size-less: the '@' of "tv@tpoff" is no size.
  auto sizeless = parse("%fs:tv@tpoff");
  REQUIRE(sizeless.location == ArgLocation::memory);
  CHECK(sizeless.implicit_size);
  CHECK(sizeless.segment == "fs");
}

TEST_CASE("the address of a symbol as a constant", "[x86_64]") {
  auto s = parse("8@$ho_recs+48");
  REQUIRE(s.location == ArgLocation::constant);
  CHECK(s.symbol == "ho_recs");
  CHECK(s.displacement == 48);
  CHECK(arg_source(s, Arch::x86_64) == ArgSource::not_in_sample);
  ArgSpec fixed = resolved("8@$ho_recs+48", 0x404080, true);
  CHECK(fixed.constant == 0x4040b0);
  CHECK(arg_source(fixed, Arch::x86_64) == ArgSource::constant);
  CHECK(describe(fixed, Arch::x86_64) == "uint64 constant 4210864 (the address of ho_recs+48)");
  ArgSpec moving = resolved("8@$ho_recs+48", 0x4080, false);
  CHECK(needs_load_bias(moving));
  CHECK(arg_source(moving, Arch::x86_64) == ArgSource::not_in_sample);
  CHECK(describe(moving, Arch::x86_64) ==
        "uint64 constant: the address of ho_recs+48, 0x40b0 plus the load bias");
  // Truncated to its size like any constant.
  CHECK(resolved("4@$sym", 0x1122334455, true).constant == 0x22334455);
  CHECK(parse("4@$-sym").location == ArgLocation::undecodable);
}

TEST_CASE("xmm registers are no address registers", "[x86_64]") {
  CHECK(parse("8@(%xmm0)").location == ArgLocation::undecodable);
  CHECK(parse("8@8(%rax,%xmm1,2)").location == ArgLocation::undecodable);
  CHECK(is_vector_register(parse("8f@%xmm3"), Arch::x86_64));
  CHECK_FALSE(is_vector_register(parse("8@%rax"), Arch::x86_64));
  CHECK(x86::register_name(x86_reg::xmm0 + 6) == "xmm3");
  CHECK(x86::sizeless_width("%ah") == 1);
  CHECK(x86::sizeless_width("%r9d") == 4);
  CHECK(x86::sizeless_width("8(%rsp)") == 8);
}
