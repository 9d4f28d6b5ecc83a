#include "report/export/clickhouse_text.h"

namespace usdt::report {

namespace {

// The escape for byte c inside a TSV field or a quoted string, or 0 when c
// is copied as it is.
char escape_of(char c, bool quoted) {
  switch (c) {
    case '\\':
      return '\\';
    case '\t':
      return 't';
    case '\n':
      return 'n';
    case '\r':
      return 'r';
    case '\0':
      return '0';
    case '\b':
      return 'b';
    case '\f':
      return 'f';
    case '\'':
      return quoted ? '\'' : 0;
    default:
      return 0;
  }
}

void append_escaped(std::string& out, std::string_view s, bool quoted) {
  out.reserve(out.size() + s.size() + 2);
  for (char c : s) {
    char e = escape_of(c, quoted);
    if (e == 0) {
      out += c;
    } else {
      out += '\\';
      out += e;
    }
  }
}

}  // namespace

void append_tsv_string(std::string& out, std::string_view s) { append_escaped(out, s, false); }

void append_quoted_string(std::string& out, std::string_view s) {
  out += '\'';
  append_escaped(out, s, true);
  out += '\'';
}

}  // namespace usdt::report
