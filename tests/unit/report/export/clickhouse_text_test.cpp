// ClickHouse TabSeparated escaping (report/export/clickhouse_text.h): what
// clickhouse-client reads back byte for byte (checked against a real server
// by tests/integration/clickhouse_test.cpp).
#include "report/export/clickhouse_text.h"

#include <catch2/catch.hpp>
#include <string>

using namespace usdt::report;

namespace {

std::string field(std::string_view s) {
  std::string out;
  append_tsv_string(out, s);
  return out;
}

std::string element(std::string_view s) {
  std::string out;
  append_quoted_string(out, s);
  return out;
}

}  // namespace

TEST_CASE("a TSV field escapes what would end the field or the row", "[clickhouse_text]") {
  CHECK(field("SELECT 1") == "SELECT 1");
  CHECK(field("") == "");
  CHECK(field("a\tb") == "a\\tb");
  CHECK(field("a\nb") == "a\\nb");
  CHECK(field("a\\b") == "a\\\\b");
  CHECK(field("\r\b\f") == "\\r\\b\\f");
  CHECK(field(std::string_view("a\0b", 3)) == "a\\0b");
  // Quotes mean nothing in a TSV field.
  CHECK(field("it's \"x\"") == "it's \"x\"");
  // \N is NULL: a string that reads \N stays a string.
  CHECK(field("\\N") == "\\\\N");
  std::string null;
  append_tsv_null(null);
  CHECK(null == "\\N");
}

TEST_CASE("bytes that are not UTF-8 are copied: a String holds bytes", "[clickhouse_text]") {
  CHECK(field("\xff\xfe abc\xc3(") == "\xff\xfe abc\xc3(");
  CHECK(element("\xff\xfe abc\xc3(") == "'\xff\xfe abc\xc3('");
  CHECK(field("caf\xc3\xa9") == "caf\xc3\xa9");
}

TEST_CASE("an array element is quoted, with quotes, tabs and newlines escaped",
          "[clickhouse_text]") {
  CHECK(element("arg0") == "'arg0'");
  CHECK(element("") == "''");
  CHECK(element("it's") == "'it\\'s'");
  CHECK(element("a\tb\nc\\d") == "'a\\tb\\nc\\\\d'");
  CHECK(element("\"q\"") == "'\"q\"'");
  CHECK(element("NULL") == "'NULL'");  // the string, not the NULL
}
