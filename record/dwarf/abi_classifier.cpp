#include "record/dwarf/abi_classifier.h"

#include <dwarf.h>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace usdt::record {
namespace {

constexpr int kMaxDepth = 24;

uint64_t udata_attr(Dwarf_Die* die, unsigned attr, uint64_t fallback) {
  Dwarf_Attribute a;
  Dwarf_Word v = 0;
  if (dwarf_attr_integrate(die, attr, &a) == nullptr || dwarf_formudata(&a, &v) != 0)
    return fallback;
  return v;
}

bool flag_attr(Dwarf_Die* die, unsigned attr) {
  Dwarf_Attribute a;
  bool v = false;
  return dwarf_attr_integrate(die, attr, &a) != nullptr && dwarf_formflag(&a, &v) == 0 && v;
}

// The type a DIE's DW_AT_type names; false when it has none (void).
bool type_of(Dwarf_Die* die, Dwarf_Die* out) {
  Dwarf_Attribute a;
  return dwarf_attr_integrate(die, DW_AT_type, &a) != nullptr &&
         dwarf_formref_die(&a, out) != nullptr;
}

// "'name'" (built by appending: GCC 12 warns falsely on "'" + std::string).
std::string quoted(std::string_view name) {
  std::string out(1, '\'');
  out.append(name);
  out += '\'';
  return out;
}

Eightbyte merge(Eightbyte a, Eightbyte b) {
  if (a == b) return a;
  if (a == Eightbyte::none) return b;
  if (b == Eightbyte::none) return a;
  if (a == Eightbyte::memory || b == Eightbyte::memory) return Eightbyte::memory;
  return Eightbyte::integer;  // INTEGER wins over SSE
}

// Classifies the fields of a value of at most 16 bytes into two eightbytes.
class Fields {
 public:
  // Adds the value of `type` at byte `offset` of the whole value.
  void add(Dwarf_Die* type, uint64_t offset, int depth) {
    if (!why_.empty()) return;
    if (depth > kMaxDepth) return fail("its type nests too deeply");
    Dwarf_Die t;
    if (dwarf_peel_type(type, &t) != 0) return fail("its type cannot be read");
    switch (dwarf_tag(&t)) {
      case DW_TAG_base_type:
        return base(&t, offset);
      case DW_TAG_pointer_type:
      case DW_TAG_reference_type:
      case DW_TAG_rvalue_reference_type:
      case DW_TAG_enumeration_type:
      case DW_TAG_unspecified_type:
        return scalar(offset, dwarf_bytesize(&t) > 0 ? dwarf_bytesize(&t) : 8, Eightbyte::integer);
      case DW_TAG_ptr_to_member_type: {
        // A pointer to a member function is two INTEGER eightbytes.
        int size = dwarf_bytesize(&t) > 0 ? dwarf_bytesize(&t) : 8;
        for (int i = 0; i < size; i += 8) scalar(offset + i, 8, Eightbyte::integer);
        return;
      }
      case DW_TAG_array_type:
        return array(&t, offset, depth);
      case DW_TAG_structure_type:
      case DW_TAG_class_type:
      case DW_TAG_union_type:
        return aggregate(&t, offset, depth);
      default:
        return fail("its type (DWARF tag " + std::to_string(dwarf_tag(&t)) + ") is not classified");
    }
  }

  void fail(std::string why) {
    if (why_.empty()) why_ = std::move(why);
  }
  const std::string& why() const { return why_; }
  Eightbyte part(int i) const { return parts_[i]; }
  uint64_t align() const { return align_; }
  bool memory() const { return memory_; }

 private:
  void scalar(uint64_t offset, uint64_t size, Eightbyte cls) {
    align_ = std::max(align_, size);
    // A field that straddles an eightbyte is unaligned: MEMORY.
    if (size == 0 || (offset % 8) + size > 8 || offset / 8 > 1) {
      if (size != 0) memory_ = true;
      return;
    }
    parts_[offset / 8] = merge(parts_[offset / 8], cls);
  }

  void base(Dwarf_Die* t, uint64_t offset) {
    const uint64_t size = udata_attr(t, DW_AT_byte_size, 0);
    const uint64_t encoding = udata_attr(t, DW_AT_encoding, 0);
    const char* n = dwarf_diename(t);
    const std::string_view name = n != nullptr ? n : "";
    switch (encoding) {
      case DW_ATE_float:
        if (size == 16 && name == "long double") {
          memory_ = true;  // X87 and X87UP: MEMORY for arguments
          align_ = 16;
          return;
        }
        if (size > 8) return fail(quoted(name) + " is a 16-byte SSE type");
        return scalar(offset, size, Eightbyte::sse);
      case DW_ATE_complex_float:
        if (size > 16 || name.find("long double") != std::string_view::npos) {
          memory_ = true;  // COMPLEX_X87
          align_ = 16;
          return;
        }
        for (uint64_t i = 0; i < size; i += size / 2) scalar(offset + i, size / 2, Eightbyte::sse);
        return;
      case DW_ATE_boolean:
      case DW_ATE_signed:
      case DW_ATE_unsigned:
      case DW_ATE_signed_char:
      case DW_ATE_unsigned_char:
      case DW_ATE_UTF:
        if (size == 16) {  // __int128: two INTEGER eightbytes, 16-aligned
          scalar(offset, 8, Eightbyte::integer);
          scalar(offset + 8, 8, Eightbyte::integer);
          align_ = 16;
          return;
        }
        return scalar(offset, size, Eightbyte::integer);
      default:
        return fail(quoted(name) + " has an encoding this tracer does not classify");
    }
  }

  void array(Dwarf_Die* t, uint64_t offset, int depth) {
    if (flag_attr(t, DW_AT_GNU_vector)) return fail("it is a vector type");
    Dwarf_Die elem;
    if (!type_of(t, &elem)) return fail("an array of unknown elements");
    Dwarf_Word total = 0, elem_size = 0;
    if (dwarf_aggregate_size(t, &total) != 0) return;  // flexible array: no bytes
    if (dwarf_aggregate_size(&elem, &elem_size) != 0 || elem_size == 0) {
      return fail("an array of elements of unknown size");
    }
    if (offset + total > 16) {
      // MEMORY anyway; the first element still gives the alignment.
      memory_ = true;
      return add(&elem, offset, depth + 1);
    }
    for (uint64_t at = 0; at + elem_size <= total && why_.empty(); at += elem_size) {
      add(&elem, offset + at, depth + 1);
    }
  }

  void aggregate(Dwarf_Die* t, uint64_t offset, int depth) {
    if (flag_attr(t, DW_AT_declaration)) return fail("its type is only declared here");
    Dwarf_Die child;
    if (dwarf_child(t, &child) != 0) return;
    do {
      const int tag = dwarf_tag(&child);
      if (tag != DW_TAG_member && tag != DW_TAG_inheritance) continue;
      // DWARF 4 C++ static data members are DW_TAG_member declarations.
      if (flag_attr(&child, DW_AT_declaration) || flag_attr(&child, DW_AT_external)) continue;
      Dwarf_Die member_type;
      if (!type_of(&child, &member_type)) return fail("a member has no type");
      uint64_t at = 0;
      Dwarf_Attribute a;
      if (dwarf_attr(&child, DW_AT_data_bit_offset, &a) != nullptr) {
        Dwarf_Word bits = 0;
        if (dwarf_formudata(&a, &bits) != 0) return fail("a bit-field offset cannot be read");
        at = bits / 8;
        // A bit-field counts for the eightbyte holding its first bit.
        scalar(offset + (at & ~uint64_t{7}), 1, Eightbyte::integer);
        continue;
      }
      if (dwarf_attr(&child, DW_AT_data_member_location, &a) != nullptr) {
        Dwarf_Word loc = 0;
        if (dwarf_formudata(&a, &loc) != 0) return fail("a member's offset is a DWARF expression");
        at = loc;
      }
      if (dwarf_hasattr(&child, DW_AT_bit_size)) {  // DWARF 2/3 bit-field
        scalar(offset + (at & ~uint64_t{7}), 1, Eightbyte::integer);
        continue;
      }
      add(&member_type, offset + at, depth + 1);
    } while (why_.empty() && dwarf_siblingof(&child, &child) == 0);
    uint64_t explicit_align = udata_attr(t, DW_AT_alignment, 0);
    align_ = std::max(align_, explicit_align);
  }

  bool memory_ = false;
  Eightbyte parts_[2] = {Eightbyte::none, Eightbyte::none};
  uint64_t align_ = 1;
  std::string why_;
};

// Whether a C++ class is passed in registers/memory like a C struct, or by
// invisible reference (Itanium C++ ABI 3.1.2.3: a non-trivial copy or move
// constructor or destructor). DWARF 5 producers may state it
// (DW_AT_calling_convention); GCC 12 does not, so the class is read: a
// user-provided destructor or copy/move constructor, a virtual function or
// base, or a member or base that is itself non-trivial makes it
// non-trivial. Special members defaulted in the class (DW_AT_defaulted)
// stay trivial when everything under them is; deleted ones are unsure.
enum class CopyKind { trivial, by_reference, unknown };

CopyKind worse(CopyKind a, CopyKind b) {
  if (a == CopyKind::by_reference || b == CopyKind::by_reference) return CopyKind::by_reference;
  if (a == CopyKind::unknown || b == CopyKind::unknown) return CopyKind::unknown;
  return CopyKind::trivial;
}

CopyKind cxx_copy_kind(Dwarf_Die* t, int depth);

// The copy kind of a member's or base's type: classes count, arrays of them too.
CopyKind member_copy_kind(Dwarf_Die* type, int depth) {
  Dwarf_Die p;
  if (dwarf_peel_type(type, &p) != 0) return CopyKind::unknown;
  for (int dims = 0; dwarf_tag(&p) == DW_TAG_array_type; ++dims) {
    if (dims > kMaxDepth) return CopyKind::unknown;  // a loop in damaged DWARF
    Dwarf_Die elem;
    if (!type_of(&p, &elem) || dwarf_peel_type(&elem, &p) != 0) return CopyKind::unknown;
  }
  const int tag = dwarf_tag(&p);
  if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type && tag != DW_TAG_union_type)
    return CopyKind::trivial;
  return cxx_copy_kind(&p, depth + 1);
}

// Whether a constructor of class `cls` takes one reference to that class.
bool is_copy_or_move_constructor(Dwarf_Die* ctor, Dwarf_Die* cls) {
  Dwarf_Die child;
  int params = 0;
  bool self_reference = false;
  if (dwarf_child(ctor, &child) != 0) return false;
  do {
    if (dwarf_tag(&child) != DW_TAG_formal_parameter || flag_attr(&child, DW_AT_artificial))
      continue;
    ++params;
    Dwarf_Die ref, target;
    if (!type_of(&child, &ref) || dwarf_peel_type(&ref, &ref) != 0) continue;
    if (dwarf_tag(&ref) != DW_TAG_reference_type && dwarf_tag(&ref) != DW_TAG_rvalue_reference_type)
      continue;
    if (type_of(&ref, &target) && dwarf_peel_type(&target, &target) == 0 &&
        dwarf_dieoffset(&target) == dwarf_dieoffset(cls)) {
      self_reference = true;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  return params == 1 && self_reference;
}

CopyKind cxx_copy_kind(Dwarf_Die* t, int depth) {
  if (depth > kMaxDepth) return CopyKind::unknown;
  const uint64_t cc = udata_attr(t, DW_AT_calling_convention, 0);
  if (cc == DW_CC_pass_by_reference) return CopyKind::by_reference;
  if (cc == DW_CC_pass_by_value) return CopyKind::trivial;
  const char* name = dwarf_diename(t);
  CopyKind kind = CopyKind::trivial;
  Dwarf_Die child;
  if (dwarf_child(t, &child) != 0) return kind;
  do {
    const int tag = dwarf_tag(&child);
    if (tag == DW_TAG_inheritance) {
      if (dwarf_hasattr(&child, DW_AT_virtuality)) return CopyKind::by_reference;
      Dwarf_Die base;
      kind =
          worse(kind, type_of(&child, &base) ? member_copy_kind(&base, depth) : CopyKind::unknown);
      continue;
    }
    if (tag == DW_TAG_member) {
      if (flag_attr(&child, DW_AT_declaration) || flag_attr(&child, DW_AT_external)) continue;
      Dwarf_Die type;
      kind =
          worse(kind, type_of(&child, &type) ? member_copy_kind(&type, depth) : CopyKind::unknown);
      continue;
    }
    if (tag != DW_TAG_subprogram || flag_attr(&child, DW_AT_artificial)) continue;
    const uint64_t virtuality = udata_attr(&child, DW_AT_virtuality, 0);
    if (virtuality != 0) return CopyKind::by_reference;  // a vtable pointer to copy
    const char* f = dwarf_diename(&child);
    if (f == nullptr) continue;
    const bool dtor = f[0] == '~';
    const bool copy =
        name != nullptr && std::strcmp(f, name) == 0 && is_copy_or_move_constructor(&child, t);
    if (!dtor && !copy) continue;
    if (flag_attr(&child, DW_AT_deleted)) {
      kind = worse(kind, CopyKind::unknown);
    } else if (udata_attr(&child, DW_AT_defaulted, 0) != DW_DEFAULTED_in_class) {
      return CopyKind::by_reference;  // user-provided
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  return kind;
}

}  // namespace

int PassingClass::integer_parts() const {
  return (parts[0] == Eightbyte::integer) + (part_count > 1 && parts[1] == Eightbyte::integer);
}

int PassingClass::sse_parts() const {
  return (parts[0] == Eightbyte::sse) + (part_count > 1 && parts[1] == Eightbyte::sse);
}

PassingClass classify_type(Dwarf_Die* type, bool cplusplus) {
  PassingClass c;
  if (type == nullptr) {
    c.kind = PassingClass::Kind::ignored;
    c.size = 0;
    return c;
  }
  Dwarf_Die t;
  if (dwarf_peel_type(type, &t) != 0) {
    c.why = "its type cannot be read";
    return c;
  }
  const int tag = dwarf_tag(&t);
  const bool is_class =
      tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
  if (is_class && cplusplus) {
    CopyKind copy = cxx_copy_kind(&t, 0);
    if (copy == CopyKind::by_reference) {
      c.kind = PassingClass::Kind::by_reference;
      c.size = 8;
      return c;
    }
    if (copy == CopyKind::unknown) {
      const char* n = dwarf_diename(&t);
      c.why = "whether class '" + std::string(n != nullptr ? n : "?") +
              "' is passed by value or by reference is not in the DWARF";
      return c;
    }
  }
  Dwarf_Word size = 0;
  if (dwarf_aggregate_size(&t, &size) != 0) {
    // A pointer or base type without a size attribute: assume nothing.
    int bytes = dwarf_bytesize(&t);
    if (bytes <= 0) {
      c.why = "its size is not in the DWARF";
      return c;
    }
    size = static_cast<Dwarf_Word>(bytes);
  }
  c.size = size;
  if (size == 0) {
    c.kind = PassingClass::Kind::ignored;
    return c;
  }
  Fields fields;
  fields.add(&t, 0, 0);
  c.align = std::max<uint64_t>(fields.align(), 1);
  if (!fields.why().empty()) {
    c.why = fields.why();
    return c;
  }
  if (size > 16 || fields.memory()) {
    c.kind = PassingClass::Kind::memory;
    return c;
  }
  c.part_count = size > 8 ? 2 : 1;
  for (int i = 0; i < c.part_count; ++i) {
    c.parts[i] = fields.part(i);
    // Padding-only eightbytes (NO_CLASS) of a 16-byte value stay unused.
    if (c.parts[i] == Eightbyte::memory) c.kind = PassingClass::Kind::memory;
  }
  if (c.kind == PassingClass::Kind::memory) return c;
  if (c.parts[0] == Eightbyte::none && c.parts[1] == Eightbyte::none) {
    c.kind = PassingClass::Kind::ignored;
    return c;
  }
  c.kind = PassingClass::Kind::registers;
  return c;
}

}  // namespace usdt::record
