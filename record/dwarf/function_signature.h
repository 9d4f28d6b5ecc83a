// A function's parameters and return type as DWARF describes them, read
// through libdw for the function that starts at a given address (its ELF
// symbol's st_value): the DW_TAG_subprogram whose entry is that address, in
// any namespace or class, names and types taken through
// DW_AT_abstract_origin and DW_AT_specification (out-of-line copies of
// inline functions, C++ methods defined outside their class).
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "record/dwarf/abi_classifier.h"

namespace usdt::record {

enum class TypeKind : uint8_t { void_type, integer, pointer, floating, aggregate, other };

struct TypeInfo {
  std::string name;  // as C writes it: "int", "const char *", "struct pair"
  TypeKind kind = TypeKind::void_type;
  uint64_t size = 0;
  bool is_signed = false;
  bool is_char_pointer = false;  // a pointer to (cv) char, signed char or unsigned char
  PassingClass passing;          // how the ABI passes a value of this type
};

struct Parameter {
  std::string name;  // "" for an unnamed parameter
  TypeInfo type;
  bool artificial = false;  // C++ `this`
};

struct FunctionSignature {
  std::string name;
  std::vector<Parameter> params;
  TypeInfo return_type;
  bool variadic = false;
  // Non-empty when the compiler says the function does not follow the
  // ABI for its declared parameters (DW_CC_nocall): why.
  std::string abi_changed;
};

// The signature of the function whose entry is `address` (link-time). Fails
// when no DW_TAG_subprogram starts there (an assembly function, a CU built
// without -g) or its DWARF is malformed.
Result<FunctionSignature> read_function_signature(Dwarf* dwarf, uint64_t address);

}  // namespace usdt::record
