// Printing argument values by their type: signed decimal, unsigned decimal,
// or the shortest round-trip form of a float. In JSON a non-finite float
// (which JSON cannot hold) is null.
#pragma once

#include <cstdint>
#include <string>

#include "report/output_buffer.h"
#include "report/probe_catalog.h"

namespace usdt::report {

void append_arg(OutputBuffer& out, uint64_t raw, ArgType type, bool json);

// The same into begin() space (at most kMaxArgChars bytes).
constexpr size_t kMaxArgChars = 40;
char* put_float_arg(char* p, uint64_t raw, ArgType type, bool json);
inline char* put_arg(char* p, uint64_t raw, ArgType type, bool json) {
  if (type == ArgType::unsigned_int) return put_u64(p, raw);
  if (type == ArgType::signed_int) return put_i64(p, static_cast<int64_t>(raw));
  return put_float_arg(p, raw, type, json);
}
std::string arg_text(uint64_t raw, ArgType type, bool json);

// The type of argument i of a site (unsigned when the site has no
// descriptor for it).
inline ArgType arg_type_at(const SiteInfo* site, int i) {
  if (site == nullptr || i < 0 || static_cast<size_t>(i) >= site->arg_types.size()) {
    return ArgType::unsigned_int;
  }
  return site->arg_types[static_cast<size_t>(i)];
}

}  // namespace usdt::report
