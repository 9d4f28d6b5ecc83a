// The shape of a string, for grouping by it (--by 'sql(argN)', 'digits(argN)').
//
// sql(): a statement normalized the way PostgreSQL's pg_stat_statements
// shows it, so that the statements a program runs with different values
// group together. Read as PostgreSQL's lexer reads (scan.l): comments (--
// and nested /* */) are dropped; string constants ('...' with '' doubled,
// E'...' with backslash escapes, B'', X'', U&'', N'' and $tag$...$tag$
// dollar quoting), numbers (integers, decimals, exponents, 0x/0o/0b forms,
// a minus sign that negates a constant) and $n parameters become $1, $2, ...
// in order; a list of constants only, such as IN (1, 2, 3), becomes one
// placeholder followed by /*, ... */ as PostgreSQL 18 writes it; unquoted
// words are lower-cased (PostgreSQL folds them so: keywords and names alike),
// quoted "Names" kept; whitespace folded to one space between tokens, none
// inside parentheses or around . and ::. true, false and null stay words
// (pg_stat_statements keeps IS NULL, and these are few).
// A text that is not SQL still gets a shape: bytes the lexer does not know
// stay as they are; an unterminated quote or comment runs to the end of the
// text and becomes a placeholder (or disappears) like a whole one.
//
// digits(): every number in a string (a run of decimal digits, with a
// fraction, not preceded by a letter, digit or '_' so that names like utf8
// or v2 stay) becomes '#'; nothing else changes.
#pragma once

#include <string>
#include <string_view>

#include "report/input/query.h"

namespace usdt::report {

std::string sql_shape(std::string_view statement);
std::string digits_shape(std::string_view text);

// The shape of text as shape says (none: text itself).
std::string shape_of(KeyShape shape, std::string_view text);

// "sql", "digits" (or "" for none): the word of --by 'WORD(argN)'.
const char* key_shape_name(KeyShape shape);

}  // namespace usdt::report
