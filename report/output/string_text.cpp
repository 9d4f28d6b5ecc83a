#include "report/output/string_text.h"

#include <utility>
#include <vector>

namespace usdt::report {

size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  auto continuation = [&](size_t k) { return k < s.size() && (byte(k) & 0xc0) == 0x80; };
  unsigned char b = byte(i);
  if (b >= 0xc2 && b <= 0xdf) return continuation(i + 1) ? 2 : 0;
  if (b >= 0xe0 && b <= 0xef) {
    if (!continuation(i + 1) || !continuation(i + 2)) return 0;
    unsigned char b1 = byte(i + 1);
    if (b == 0xe0 && b1 < 0xa0) return 0;   // overlong
    if (b == 0xed && b1 >= 0xa0) return 0;  // UTF-16 surrogate
    return 3;
  }
  if (b >= 0xf0 && b <= 0xf4) {
    if (!continuation(i + 1) || !continuation(i + 2) || !continuation(i + 3)) return 0;
    unsigned char b1 = byte(i + 1);
    if (b == 0xf0 && b1 < 0x90) return 0;   // overlong
    if (b == 0xf4 && b1 >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

namespace {

// Escapes the character at s[i] for text into out (at most 4 bytes);
// returns the bytes written and sets *consumed to the input bytes taken.
size_t escape_text_unit(std::string_view s, size_t i, char* out, size_t* consumed) {
  static const char kHex[] = "0123456789abcdef";
  unsigned char u = static_cast<unsigned char>(s[i]);
  *consumed = 1;
  if (u >= 0x80) {
    size_t n = utf8_sequence_length(s, i);
    if (n > 0) {
      for (size_t k = 0; k < n; ++k) out[k] = s[i + k];
      *consumed = n;
      return n;
    }
  } else if (u >= 0x20 && u != 0x7f) {
    if (u == '"' || u == '\\') {
      out[0] = '\\';
      out[1] = static_cast<char>(u);
      return 2;
    }
    out[0] = static_cast<char>(u);
    return 1;
  } else if (u == '\n' || u == '\r' || u == '\t') {
    out[0] = '\\';
    out[1] = u == '\n' ? 'n' : u == '\r' ? 'r' : 't';
    return 2;
  }
  out[0] = '\\';
  out[1] = 'x';
  out[2] = kHex[u >> 4];
  out[3] = kHex[u & 15];
  return 4;
}

}  // namespace

char* put_text_string(char* p, std::string_view s, bool truncated) {
  *p++ = '"';
  for (size_t i = 0; i < s.size();) {
    unsigned char u = static_cast<unsigned char>(s[i]);
    if (u >= 0x20 && u < 0x7f && u != '"' && u != '\\') {  // the common case
      *p++ = s[i++];
      continue;
    }
    size_t consumed = 0;
    p += escape_text_unit(s, i, p, &consumed);
    i += consumed;
  }
  *p++ = '"';
  if (truncated) {
    for (int k = 0; k < 3; ++k) *p++ = '.';
  }
  return p;
}

char* put_csv_string(char* p, std::string_view s) {
  *p++ = '"';
  for (size_t i = 0; i < s.size();) {
    unsigned char u = static_cast<unsigned char>(s[i]);
    if (u < 0x80) {
      if (u == '"') *p++ = '"';
      *p++ = s[i++];
      continue;
    }
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      *p++ = '\xef';  // U+FFFD, the replacement character
      *p++ = '\xbf';
      *p++ = '\xbd';
      ++i;
      continue;
    }
    for (size_t k = 0; k < n; ++k) *p++ = s[i + k];
    i += n;
  }
  *p++ = '"';
  return p;
}

void append_text_string(std::string& out, std::string_view s, bool truncated) {
  size_t old = out.size();
  out.resize(old + text_string_room(s));
  char* end = put_text_string(out.data() + old, s, truncated);
  out.resize(static_cast<size_t>(end - out.data()));
}

std::string text_string(std::string_view s, bool truncated) {
  std::string out;
  append_text_string(out, s, truncated);
  return out;
}

std::string text_label(std::string_view s, bool truncated, size_t max_chars) {
  std::string out = "\"";
  size_t chars = 0;
  bool cut = false;
  for (size_t i = 0; i < s.size();) {
    char unit[4];
    size_t consumed = 0;
    size_t n = escape_text_unit(s, i, unit, &consumed);
    if (chars + (consumed > 1 ? 1 : n) > max_chars) {
      cut = true;
      break;
    }
    chars += consumed > 1 ? 1 : n;  // a UTF-8 character shows as one
    out.append(unit, n);
    i += consumed;
  }
  out += '"';
  if (cut || truncated) out += "...";
  return out;
}

std::string middle_label(std::string_view s, bool truncated, size_t max_chars) {
  // Each character as shown (an escape whole) and its width on screen.
  std::vector<std::pair<std::string, size_t>> units;
  size_t width = 0;
  for (size_t i = 0; i < s.size();) {
    char unit[8];
    size_t consumed = 0;
    const size_t n = escape_text_unit(s, i, unit, &consumed);
    if (consumed > 1) {
      units.emplace_back(std::string(s.substr(i, consumed)), 1);  // a UTF-8 character shows as one
    } else {
      units.emplace_back(std::string(unit, n), n);
    }
    width += units.back().second;
    i += consumed;
  }
  std::string out = "\"";
  if (width <= max_chars || max_chars < 3) {
    for (const auto& u : units) out += u.first;
  } else {
    // As many characters from each end as fit, the end's half first.
    const size_t room = max_chars - 1;
    size_t tail_begin = units.size(), tail_width = 0;
    while (tail_begin > 0 && tail_width + units[tail_begin - 1].second <= room / 2) tail_width += units[--tail_begin].second;
    size_t head_width = 0;
    for (size_t k = 0; k < tail_begin && head_width + units[k].second <= room - tail_width; ++k) {
      out += units[k].first;
      head_width += units[k].second;
    }
    out += "\u2026";
    for (size_t k = tail_begin; k < units.size(); ++k) out += units[k].first;
  }
  out += '"';
  if (truncated) out += "...";
  return out;
}

}  // namespace usdt::report
