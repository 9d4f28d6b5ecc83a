#include "record/dwarf/function_signature.h"

#include <dwarf.h>

#include <cstdio>

namespace usdt::record {
namespace {

constexpr int kMaxDepth = 32;

bool flag_attr(Dwarf_Die* die, unsigned attr) {
  Dwarf_Attribute a;
  bool v = false;
  return dwarf_attr_integrate(die, attr, &a) != nullptr && dwarf_formflag(&a, &v) == 0 && v;
}

uint64_t udata_attr(Dwarf_Die* die, unsigned attr, uint64_t fallback) {
  Dwarf_Attribute a;
  Dwarf_Word v = 0;
  if (dwarf_attr_integrate(die, attr, &a) == nullptr || dwarf_formudata(&a, &v) != 0)
    return fallback;
  return v;
}

bool type_of(Dwarf_Die* die, Dwarf_Die* out) {
  Dwarf_Attribute a;
  return dwarf_attr_integrate(die, DW_AT_type, &a) != nullptr &&
         dwarf_formref_die(&a, out) != nullptr;
}

bool is_cplusplus(Dwarf_Die* cu) {
  switch (dwarf_srclang(cu)) {
    case DW_LANG_C_plus_plus:
    case DW_LANG_C_plus_plus_03:
    case DW_LANG_C_plus_plus_11:
    case DW_LANG_C_plus_plus_14:
    case 0x2a:  // DW_LANG_C_plus_plus_17 (DWARF 6 draft, emitted by newer compilers)
    case 0x2b:  // DW_LANG_C_plus_plus_20
    case DW_LANG_ObjC_plus_plus:
      return true;
    default:
      return false;
  }
}

// C's spelling of a type; C++ drops the struct/union/enum keyword.
std::string type_name(Dwarf_Die* type, bool cplusplus, int depth = 0) {
  if (type == nullptr) return "void";
  if (depth > kMaxDepth) return "?";
  const char* n = dwarf_diename(type);
  const std::string name = n != nullptr ? n : "";
  Dwarf_Die inner;
  const bool has_inner = type_of(type, &inner);
  auto inner_name = [&] { return type_name(has_inner ? &inner : nullptr, cplusplus, depth + 1); };
  auto suffixed = [](std::string base, const char* suffix) {
    if (!base.empty() && (base.back() == '*' || base.back() == '&')) return base + suffix;
    return base + " " + suffix;
  };
  auto keyword = [&](const char* word) {
    std::string shown = name.empty() ? "<anonymous>" : name;
    return cplusplus ? shown : std::string(word) + " " + shown;
  };
  switch (dwarf_tag(type)) {
    case DW_TAG_base_type:
    case DW_TAG_typedef:
    case DW_TAG_unspecified_type:
      return name.empty() ? "?" : name;
    case DW_TAG_structure_type:
      return keyword("struct");
    case DW_TAG_class_type:
      return keyword("class");
    case DW_TAG_union_type:
      return keyword("union");
    case DW_TAG_enumeration_type:
      return keyword("enum");
    case DW_TAG_pointer_type:
      return suffixed(inner_name(), "*");
    case DW_TAG_reference_type:
      return suffixed(inner_name(), "&");
    case DW_TAG_rvalue_reference_type:
      return suffixed(inner_name(), "&&");
    case DW_TAG_const_type:
    case DW_TAG_volatile_type: {
      const char* q = dwarf_tag(type) == DW_TAG_const_type ? "const" : "volatile";
      std::string base = inner_name();
      // "char *const" qualifies the pointer; "const char" the pointee.
      if (!base.empty() && base.back() == '*') return base + q;
      return std::string(q) + " " + base;
    }
    case DW_TAG_restrict_type:
      return suffixed(inner_name(), "restrict");
    case DW_TAG_array_type:
      return inner_name() + "[]";
    case DW_TAG_subroutine_type:
      return "function";
    case DW_TAG_ptr_to_member_type:
      return "pointer to member";
    default:
      return name.empty() ? "?" : name;
  }
}

bool is_char(Dwarf_Die* type) {
  Dwarf_Die t;
  if (dwarf_peel_type(type, &t) != 0 || dwarf_tag(&t) != DW_TAG_base_type) return false;
  const uint64_t enc = udata_attr(&t, DW_AT_encoding, 0);
  return udata_attr(&t, DW_AT_byte_size, 0) == 1 &&
         (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char);
}

TypeInfo type_info(Dwarf_Die* type, bool cplusplus) {
  TypeInfo info;
  info.name = type_name(type, cplusplus);
  info.passing = classify_type(type, cplusplus);
  if (type == nullptr) return info;  // void
  Dwarf_Die t;
  if (dwarf_peel_type(type, &t) != 0) {
    info.kind = TypeKind::other;
    return info;
  }
  int bytes = dwarf_bytesize(&t);
  info.size = bytes > 0 ? static_cast<uint64_t>(bytes) : 0;
  switch (dwarf_tag(&t)) {
    case DW_TAG_base_type: {
      const uint64_t enc = udata_attr(&t, DW_AT_encoding, 0);
      if (enc == DW_ATE_float) {
        info.kind = TypeKind::floating;
      } else if (enc == DW_ATE_signed || enc == DW_ATE_signed_char || enc == DW_ATE_unsigned ||
                 enc == DW_ATE_unsigned_char || enc == DW_ATE_boolean || enc == DW_ATE_UTF) {
        info.kind = TypeKind::integer;
        info.is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
      } else {
        info.kind = TypeKind::other;
      }
      break;
    }
    case DW_TAG_enumeration_type: {
      info.kind = TypeKind::integer;
      Dwarf_Die underlying;
      if (type_of(&t, &underlying)) {
        Dwarf_Die u;
        if (dwarf_peel_type(&underlying, &u) == 0) {
          const uint64_t enc = udata_attr(&u, DW_AT_encoding, 0);
          info.is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
        }
      }
      break;
    }
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type: {
      info.kind = TypeKind::pointer;
      if (info.size == 0) info.size = 8;
      Dwarf_Die pointee;
      info.is_char_pointer =
          dwarf_tag(&t) == DW_TAG_pointer_type && type_of(&t, &pointee) && is_char(&pointee);
      break;
    }
    case DW_TAG_unspecified_type:  // std::nullptr_t
      info.kind = TypeKind::pointer;
      info.size = 8;
      break;
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
    case DW_TAG_union_type:
      info.kind = TypeKind::aggregate;
      info.size = info.passing.size;
      break;
    default:
      info.kind = TypeKind::other;
  }
  return info;
}

// The address where the function a DIE describes is entered.
bool starts_at(Dwarf_Die* die, uint64_t address) {
  Dwarf_Addr pc = 0;
  if (dwarf_entrypc(die, &pc) == 0) return pc == address;
  // Hot/cold split functions: DW_AT_ranges, entered at the first range.
  Dwarf_Addr base = 0, start = 0, end = 0;
  return dwarf_ranges(die, 0, &base, &start, &end) > 0 && start == address;
}

bool find_in(Dwarf_Die* parent, uint64_t address, Dwarf_Die* out, int depth) {
  Dwarf_Die child;
  if (depth > kMaxDepth || dwarf_child(parent, &child) != 0) return false;
  do {
    switch (dwarf_tag(&child)) {
      case DW_TAG_subprogram:
        if (starts_at(&child, address)) {
          *out = child;
          return true;
        }
        break;
      case DW_TAG_namespace:
      case DW_TAG_structure_type:
      case DW_TAG_class_type:
      case DW_TAG_union_type:
      case DW_TAG_module:
        if (find_in(&child, address, out, depth + 1)) return true;
        break;
      default:
        break;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

// The subprogram entered at `address`, and its compilation unit.
bool find_subprogram(Dwarf* dwarf, uint64_t address, Dwarf_Die* cu, Dwarf_Die* out) {
  // .debug_aranges names the CU directly; not every producer writes it.
  if (dwarf_addrdie(dwarf, address, cu) != nullptr && find_in(cu, address, out, 0)) return true;
  Dwarf_CU* unit = nullptr;
  Dwarf_Half version = 0;
  uint8_t unit_type = 0;
  Dwarf_Die subdie;
  while (dwarf_get_units(dwarf, unit, &unit, &version, &unit_type, cu, &subdie) == 0) {
    if (unit_type != DW_UT_compile && unit_type != DW_UT_partial) continue;
    if (dwarf_haspc(cu, address) != 1) continue;
    if (find_in(cu, address, out, 0)) return true;
  }
  return false;
}

}  // namespace

Result<FunctionSignature> read_function_signature(Dwarf* dwarf, uint64_t address) {
  Dwarf_Die cu, fn;
  if (!find_subprogram(dwarf, address, &cu, &fn)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "no DWARF subprogram starts at 0x%llx",
                  static_cast<unsigned long long>(address));
    return Error(buf);
  }
  const bool cplusplus = is_cplusplus(&cu);
  FunctionSignature sig;
  const char* name = dwarf_diename(&fn);
  sig.name = name != nullptr ? name : "";
  if (udata_attr(&fn, DW_AT_calling_convention, DW_CC_normal) == DW_CC_nocall) {
    sig.abi_changed = "the compiler changed its calling convention (DW_CC_nocall)";
  }
  Dwarf_Die ret;
  sig.return_type = type_info(type_of(&fn, &ret) ? &ret : nullptr, cplusplus);
  // An out-of-line copy of an inline function points at its abstract
  // instance, which lists every declared parameter; the copy may leave out
  // the ones it does not use, and the ABI follows the declaration.
  Dwarf_Die origin;
  Dwarf_Attribute origin_attr;
  Dwarf_Die* declared = &fn;
  if (dwarf_attr(&fn, DW_AT_abstract_origin, &origin_attr) != nullptr &&
      dwarf_formref_die(&origin_attr, &origin) != nullptr && dwarf_haschildren(&origin) > 0) {
    declared = &origin;
  }
  Dwarf_Die child;
  if (dwarf_child(declared, &child) == 0) {
    do {
      const int tag = dwarf_tag(&child);
      if (tag == DW_TAG_unspecified_parameters) sig.variadic = true;
      if (tag != DW_TAG_formal_parameter) continue;
      Parameter p;
      const char* pname = dwarf_diename(&child);
      p.name = pname != nullptr ? pname : "";
      p.artificial = flag_attr(&child, DW_AT_artificial);
      Dwarf_Die type;
      if (!type_of(&child, &type)) return Error("parameter '" + p.name + "' has no type");
      p.type = type_info(&type, cplusplus);
      sig.params.push_back(std::move(p));
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  return sig;
}

}  // namespace usdt::record
