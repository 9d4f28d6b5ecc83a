// aarch64 operands (common/arch/aarch64.cpp): registers, the zero and vector
// registers, immediates, [base, offset], register offsets and :lo12: symbols.
#include "common/arch/aarch64.h"

#include <catch2/catch.hpp>

#include "common/arg_spec.h"

using namespace usdt;

namespace {

ArgSpec arm(std::string_view text) { return parse_arg_spec(text, Arch::aarch64); }

}  // namespace

TEST_CASE("aarch64 operands", "[aarch64]") {
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

TEST_CASE("aarch64 zero, vector and named registers", "[aarch64]") {
  auto zero = arm("-4@wzr");
  REQUIRE(zero.location == ArgLocation::constant);
  CHECK(zero.constant == 0);
  CHECK(arm("8@xzr").constant == 0);
  CHECK(arm("8@fp").reg == arm64_reg::fp);
  CHECK(arm("8@lr").reg == arm64_reg::lr);
  for (const char* name : {"d0", "s1", "v2", "q3", "h4", "b31"}) {
    INFO(name);
    auto v = arm(std::string("8f@") + name);
    REQUIRE(v.location == ArgLocation::reg);
    CHECK(is_vector_register(v, Arch::aarch64));
    CHECK(arg_source(v, Arch::aarch64) == ArgSource::not_in_sample);
  }
  CHECK(arm("8@d32").location == ArgLocation::undecodable);
  CHECK(describe(arm("8f@d1"), Arch::aarch64) == "float64 in v1");
  CHECK(arm64::sizeless_width("w3") == 4);
  CHECK(arm64::sizeless_width("wzr") == 4);
  CHECK(arm64::sizeless_width("x3") == 8);
  CHECK(arm("w3").size == 4);
}

TEST_CASE("aarch64 register offsets and :lo12: symbols", "[aarch64]") {
  auto idx = arm("8@[x1, x2, lsl #3]");
  REQUIRE(idx.location == ArgLocation::memory);
  CHECK(idx.reg == 1);
  CHECK(idx.index_reg == 2);
  CHECK(idx.scale == 8);
  CHECK(describe(idx, Arch::aarch64) == "uint64 at [x1, x2, lsl #3]");
  auto plain = arm("4@[sp, x3]");
  REQUIRE(plain.location == ArgLocation::memory);
  CHECK(plain.index_reg == 3);
  CHECK(plain.scale == 1);
  CHECK(is_stack_relative(plain, Arch::aarch64));
  CHECK(arg_source(plain, Arch::aarch64) == ArgSource::not_in_sample);

  auto low = arm("-4@[x0, #:lo12:ho_recs+4]");
  REQUIRE(low.location == ArgLocation::memory);
  CHECK(low.symbol == "ho_recs");
  CHECK(low.symbol_low12);
  CHECK(low.displacement == 4);
  CHECK(low.reg == 0);
  CHECK_FALSE(is_stack_relative(low, Arch::aarch64));
  // The page comes from adrp at run time: the load bias is in the register.
  resolve_symbol(low, 0x411ff0, false);
  CHECK_FALSE(needs_load_bias(low));
  CHECK(describe(low, Arch::aarch64) == "int32 at [x0, #:lo12:ho_recs+4] = x0 + 0xff4");

  for (const char* text :
       {"8@[x1, w2, sxtw #2]", "8@[x1, x2, lsl #4]", "8@[x1, sp]", "8@[x1, x2, x3]",
        "8@[x1, #:lo12:]", "8@[x1, :hi12:sym]", "8@[x1, 8]!"}) {
    INFO(text);
    auto s = arm(text);
    CHECK(s.location == ArgLocation::undecodable);
    CHECK_FALSE(s.error.empty());
  }
}

TEST_CASE("every cut and byte flip of the aarch64 forms is a value, never a crash", "[aarch64]") {
  const char* forms[] = {"8@[x1, x2, lsl #3]",
                         "-4@[x0, #:lo12:ho_recs+4]",
                         "-4@[sp, 8]",
                         "8@[x29, #-16]",
                         "-4@wzr",
                         "8f@d31",
                         "#-5"};
  for (const char* form : forms) {
    std::string text(form);
    for (size_t cut = 0; cut <= text.size(); ++cut) {
      auto s = arm(text.substr(0, cut));
      INFO("'" << text.substr(0, cut) << "'");
      CHECK((s.location != ArgLocation::undecodable || !s.error.empty()));
      (void)describe(s, Arch::aarch64);
    }
    for (size_t i = 0; i < text.size(); ++i) {
      for (char c : {'[', ']', ',', '#', ':', ' ', 'x', 'w', '9', '-', '\0', '\xff'}) {
        std::string flipped = text;
        flipped[i] = c;
        auto s = arm(flipped);
        CHECK((s.location != ArgLocation::undecodable || !s.error.empty()));
        resolve_symbol(s, 0x411ff0, false);
        (void)needs_load_bias(s);
        (void)describe(s, Arch::aarch64);
      }
    }
  }
}
