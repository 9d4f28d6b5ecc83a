// Checks shared by the tests of the operand grammars (tests/unit/common/).
#pragma once

#include <catch2/catch.hpp>

#include "common/arg_spec.h"

namespace usdt::test {

// spec is a register operand: reg >> shift, size bytes, signed or not.
inline void require_reg(const ArgSpec& s, int16_t reg, uint8_t size, bool is_signed,
                        uint8_t shift = 0) {
  INFO(s.text << " error=" << s.error);
  REQUIRE(s.location == ArgLocation::reg);
  CHECK(s.reg == reg);
  CHECK(s.size == size);
  CHECK(s.is_signed == is_signed);
  CHECK(s.reg_shift == shift);
  CHECK(s.index_reg == kNoReg);
}

}  // namespace usdt::test
