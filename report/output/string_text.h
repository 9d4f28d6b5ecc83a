// How string arguments (usdt-record --string) print outside JSON. Their bytes
// come from the traced program: any bytes, not necessarily UTF-8, possibly
// cut by the recorder (truncated).
//
// text: in double quotes; \" \\ \n \r \t escaped, other control bytes
//   (below 0x20, 0x7f) and every byte that is not part of valid UTF-8 as
//   \xNN; valid UTF-8 is copied. A string the recorder cut is followed by
//   `...` after its closing quote: "SELECT * FROM t"... (the quotes hold
//   exactly the bytes kept).
// csv: RFC 4180: always in double quotes (so the string "null" is "null",
//   never the bare null of a missing argument), quotes doubled, newlines
//   kept; bytes that are not valid UTF-8 become U+FFFD, as in JSON, so that
//   the file is valid UTF-8.
// JSON strings are written by append_json_string (report/output/json_text.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace usdt::report {

// The length of the valid UTF-8 sequence at s[i] (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF), or 0 when it is not one.
size_t utf8_sequence_length(std::string_view s, size_t i);

// Room put_text_string and put_csv_string need for s, in bytes.
inline size_t text_string_room(std::string_view s) { return 4 * s.size() + 8; }
inline size_t csv_string_room(std::string_view s) { return 3 * s.size() + 2; }

// Unchecked writers for OutputBuffer::begin() space: each returns the new end.
char* put_text_string(char* p, std::string_view s, bool truncated);
char* put_csv_string(char* p, std::string_view s);

void append_text_string(std::string& out, std::string_view s, bool truncated);
std::string text_string(std::string_view s, bool truncated);

// A string as a short label (a --by group in text output): escaped like
// put_text_string, its escaped text cut to at most max_chars characters at a
// character or escape boundary; `...` follows the closing quote when it was
// cut here or by the recorder.
std::string text_label(std::string_view s, bool truncated, size_t max_chars);

// The same, shortened in the middle: the first and last characters kept,
// "\u2026" (an ellipsis, which escaped text never holds) between them, so
// that statements that differ only at their end still look different.
std::string middle_label(std::string_view s, bool truncated, size_t max_chars);

}  // namespace usdt::report
