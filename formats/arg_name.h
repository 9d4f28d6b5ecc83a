// The rule for argument names (FORMAT.md, section 3.4, version 1.2): what a
// user can type after --key and what the text dump prints before '='. The
// recorder only writes names that pass; the reader drops names that do not,
// so reports never print a name that could break a line or a selector.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace usdt::format {

constexpr size_t kMaxArgNameBytes = 256;

// Whether name may name argument `index` of a site: 1 to 256 bytes of
// [A-Za-z0-9_.], not starting with a digit, and not "argM" for M != index.
inline bool is_valid_arg_name(std::string_view name, size_t index) {
  if (name.empty() || name.size() > kMaxArgNameBytes) return false;
  if (name[0] >= '0' && name[0] <= '9') return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.';
    if (!ok) return false;
  }
  if (name.size() > 3 && name.substr(0, 3) == "arg" &&
      name.find_first_not_of("0123456789", 3) == std::string_view::npos) {
    return name.substr(3) == std::to_string(index);
  }
  return true;
}

}  // namespace usdt::format
