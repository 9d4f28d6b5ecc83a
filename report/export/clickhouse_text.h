// Values in ClickHouse's TabSeparated text, as `clickhouse-client --query
// "INSERT INTO t FORMAT TabSeparated"` reads it: the layout docs/clickhouse.md
// documents, read the same by ClickHouse 18.16 (Debian 12) and current ones.
//
// A field of type String is its bytes with \ tab newline (and \r \0 \b \f,
// which some tools mangle) escaped by a backslash; other bytes, including
// bytes that are not valid UTF-8, are copied: a ClickHouse String holds
// bytes, so a string argument arrives byte for byte. A NULL is \N.
// Elements of an Array field are in the array's own text form, [a,b]: a
// string is in single quotes with \ and ' escaped too, a NULL is NULL. The
// array's text is not escaped again for the TSV field, so its strings escape
// tab and newline as well (a raw tab would end the field).
#pragma once

#include <string>
#include <string_view>

namespace usdt::report {

// A String field of a row (no quotes).
void append_tsv_string(std::string& out, std::string_view s);
// A NULL field of a Nullable column.
inline void append_tsv_null(std::string& out) { out += "\\N"; }
// A string element of an Array field: '...'.
void append_quoted_string(std::string& out, std::string_view s);

}  // namespace usdt::report
