// How the System V x86-64 ABI passes a value of a DWARF type (psABI 1.0,
// section 3.2.3 "Parameter Passing"): each eightbyte of a value of at most
// 16 bytes is INTEGER or SSE after merging the classes of the fields it
// holds; larger values, x87 types and unaligned fields go to MEMORY (a copy
// on the stack); C++ classes that are not trivially copyable are passed by
// invisible reference (a pointer in an INTEGER register). What this code
// cannot classify with certainty (vector types, C++ classes whose copy
// semantics DWARF does not state, DWARF expressions as member offsets) is
// `unknown`, with the reason: callers must not guess past it.
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <string>

namespace usdt::record {

enum class Eightbyte : uint8_t { none, integer, sse, memory };

struct PassingClass {
  enum class Kind : uint8_t {
    registers,     // parts[0..part_count) in INTEGER / SSE registers, if enough are free
    memory,        // a copy on the stack
    by_reference,  // a pointer to a copy, in an INTEGER register
    ignored,       // an empty class: takes no register and no stack
    unknown,       // see why
  };
  Kind kind = Kind::unknown;
  Eightbyte parts[2] = {Eightbyte::none, Eightbyte::none};
  uint8_t part_count = 0;
  uint64_t size = 0;
  uint64_t align = 8;
  std::string why;  // unknown: the reason

  int integer_parts() const;
  int sse_parts() const;
};

// Classifies a (parameter or return) type; null means void (kind ignored).
PassingClass classify_type(Dwarf_Die* type, bool cplusplus);

}  // namespace usdt::record
