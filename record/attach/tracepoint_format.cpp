#include "record/attach/tracepoint_format.h"

#include <charconv>
#include <string_view>

namespace usdt::record {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool parse_u32(std::string_view s, uint32_t& out) {
  s = trim(s);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// "key:VALUE" pieces of a field line, after the declaration.
bool take_value(std::string_view piece, std::string_view key, uint32_t& out) {
  piece = trim(piece);
  if (piece.substr(0, key.size()) != key) return false;
  return parse_u32(piece.substr(key.size()), out);
}

// Whether an element type is a character type whose arrays hold text. Signed
// or plain char only: "unsigned char" and __u8 arrays hold bytes (addresses).
bool is_text_type(std::string_view type) {
  type = trim(type);
  if (type.substr(0, 6) == "const ") type = trim(type.substr(6));
  return type == "char" || type == "signed char";
}

// Splits "TYPE NAME[LEN]" into its type, name and whether it is an array.
bool split_declaration(std::string_view decl, std::string& type, std::string& name, bool& array) {
  decl = trim(decl);
  size_t space = decl.find_last_of(" \t*");
  if (space == std::string_view::npos || space + 1 >= decl.size()) return false;
  std::string_view id = decl.substr(space + 1);
  type = std::string(trim(decl.substr(0, decl[space] == '*' ? space + 1 : space)));
  size_t bracket = id.find('[');
  array = bracket != std::string_view::npos;
  name = std::string(array ? id.substr(0, bracket) : id);
  return !name.empty() && !type.empty();
}

Result<TracepointField> parse_field(std::string_view line) {
  TracepointField f;
  std::string text;
  for (char c : trim(line)) text += c == '\t' ? ' ' : c;
  f.line = text;
  const std::string where = "format line '" + text + "'";
  std::string_view rest = trim(line);
  rest.remove_prefix(6);  // "field:"
  size_t semi = rest.find(';');
  if (semi == std::string_view::npos) return Error(where + " has no ';' after the declaration");
  bool array = false;
  if (!split_declaration(rest.substr(0, semi), f.type, f.name, array)) {
    return Error(where + " has no type and name");
  }
  bool have_offset = false, have_size = false;
  uint32_t sign = 0;
  for (std::string_view pieces = rest.substr(semi + 1); !pieces.empty();) {
    size_t end = pieces.find(';');
    std::string_view piece = pieces.substr(0, end);
    have_offset |= take_value(piece, "offset:", f.offset);
    have_size |= take_value(piece, "size:", f.size);
    take_value(piece, "signed:", sign);
    if (end == std::string_view::npos) break;
    pieces.remove_prefix(end + 1);
  }
  if (!have_offset || !have_size || f.size == 0)
    return Error(where + " has no valid offset or size");
  f.is_signed = sign != 0;

  std::string_view type = f.type;
  const bool data_loc = type.substr(0, 11) == "__data_loc ";
  f.rel_loc = type.substr(0, 10) == "__rel_loc ";
  if (data_loc || f.rel_loc) {
    std::string_view elem = type.substr(data_loc ? 11 : 10);
    size_t bracket = elem.find('[');
    if (bracket != std::string_view::npos) elem = elem.substr(0, bracket);
    if (f.size != 4) return Error(where + ": a dynamic array's field must be 4 bytes");
    f.form = is_text_type(elem) ? FieldForm::data_loc_string : FieldForm::data_loc_bytes;
  } else if (array) {
    f.form = is_text_type(type) ? FieldForm::char_array : FieldForm::byte_array;
  } else if (f.size == 1 || f.size == 2 || f.size == 4 || f.size == 8) {
    f.form = FieldForm::integer;
  } else {
    f.form = FieldForm::byte_array;  // e.g. a struct copied whole
  }
  return f;
}

}  // namespace

Result<TracepointFormat> parse_tracepoint_format(const std::string& text) {
  TracepointFormat format;
  bool have_id = false;
  std::string_view all = text;
  while (!all.empty()) {
    size_t nl = all.find('\n');
    std::string_view line = trim(all.substr(0, nl));
    all.remove_prefix(nl == std::string_view::npos ? all.size() : nl + 1);
    if (line.substr(0, 5) == "name:") {
      format.name = std::string(trim(line.substr(5)));
    } else if (line.substr(0, 3) == "ID:") {
      if (!parse_u32(line.substr(3), format.id)) {
        return Error("format has a malformed ID line '" + std::string(line) + "'");
      }
      have_id = true;
    } else if (line.substr(0, 6) == "field:") {
      Result<TracepointField> field = parse_field(line);
      if (!field) return field.error();
      format.fields.push_back(std::move(*field));
    } else if (line.substr(0, 10) == "print fmt:") {
      break;  // the rest is C for the kernel's own printing
    }
  }
  if (!have_id) return Error("format has no ID line");
  return format;
}

}  // namespace usdt::record
