// The pieces a dump line is made of, written straight into OutputBuffer
// begin() space: fixed-size copies of padded storage, argument labels,
// fast decimal digits. For the per-event loops of dump_text.cpp and
// dump_rows.cpp, where a memcpy call of unknown length per field would show.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "formats/trace_types.h"
#include "report/output/output_buffer.h"
#include "report/dump/dump_setup.h"

namespace usdt::report {

// Copies len bytes in 16-byte steps from storage padded to a multiple of 16:
// a fixed-size copy per step instead of a memcpy call of unknown length. May
// write up to 15 bytes past p + len (kOvershoot; begin() space covers it).
constexpr size_t kOvershoot = 16;
inline char* put_chunked(char* p, const char* src, size_t len) {
  for (size_t i = 0; i < len; i += 16) std::memcpy(p + i, src + i, 16);
  return p + len;
}

// The text labels " argN=" as 8-byte words with their lengths.
struct ArgLabel {
  char text[8];
  size_t len;
};
inline constexpr ArgLabel kTextArgLabels[format::kMaxArgs] = {
    {" arg0=", 6}, {" arg1=", 6}, {" arg2=", 6}, {" arg3=", 6},  {" arg4=", 6},  {" arg5=", 6},
    {" arg6=", 6}, {" arg7=", 6}, {" arg8=", 6}, {" arg9=", 6}, {" arg10=", 7}, {" arg11=", 7}};

// Writes argument i's label of a site: its name or argN.
inline char* put_arg_label(char* p, const SitePrefix& sp, size_t i) {
  if (sp.labels.empty()) {
    std::memcpy(p, kTextArgLabels[i].text, 8);
    return p + kTextArgLabels[i].len;
  }
  std::memcpy(p, sp.labels[i].data(), sp.labels[i].size());
  return p + sp.labels[i].size();
}

// The start of a text line for one thread of one file: host label, padded
// comm, "pid/tid [". Kept inline when short (the usual case).
struct ThreadPrefix {
  static constexpr size_t kInline = 96;
  char text[kInline + kOvershoot];
  size_t len = 0;
  std::string long_text;  // when len > kInline
};

// Room for the string arguments of e, at room(bytes) each (0 when it has none).
template <typename Room>
size_t string_args_room(const format::Event& e, size_t nargs, Room room) {
  size_t n = 0;
  for (size_t i = 0; i < nargs; ++i) {
    int k = static_cast<int>(i);
    if (e.is_string(k) && e.has_arg(k)) n += room(e.string_arg(k).bytes);
  }
  return n;
}

// JSON strings take at most 6 bytes per input byte (\u00NN, \ufffd).
inline size_t json_string_room(std::string_view s) { return 6 * s.size() + 2; }

// JSON strings take at most 6 bytes per input byte (\u00NN, \ufffd).

// The indexes of e's cut string arguments, separated by sep (3 bytes each at most).
inline char* put_truncated_indexes(char* p, const format::Event& e, size_t nargs, char sep) {
  bool first = true;
  for (size_t i = 0; i < nargs; ++i) {
    int k = static_cast<int>(i);
    if (!e.is_string(k) || !e.has_arg(k) || !e.string_arg(k).truncated) continue;
    if (!first) *p++ = sep;
    first = false;
    p = put_int(p, k);
  }
  return p;
}

// Decimal digits of v < 10^8 from a table of 4-digit groups (digits4[x] is
// x as four zero-padded digits): the head without leading zeros, then the
// tail. Stores up to 8 bytes.
// An address: "0x" and lowercase hex digits, without leading zeros.
inline char* put_hex_address(char* p, uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  *p++ = '0';
  *p++ = 'x';
  int shift = 60;
  while (shift > 0 && (v >> shift) == 0) shift -= 4;
  for (; shift >= 0; shift -= 4) *p++ = kDigits[(v >> shift) & 0xf];
  return p;
}

inline char* put_below_1e8(char* p, uint32_t v, const uint32_t* digits4) {
  uint32_t head = v, tail = 0;
  const bool split = v >= 10000;
  if (split) {
    head = v / 10000u;
    tail = v % 10000u;
  }
  const int n = 1 + (head >= 10) + (head >= 100) + (head >= 1000);
  const uint32_t w = digits4[head] >> ((4 - n) * 8);
  std::memcpy(p, &w, 4);
  p += n;
  if (split) {
    std::memcpy(p, &digits4[tail], 4);
    p += 4;
  }
  return p;
}

}  // namespace usdt::report
