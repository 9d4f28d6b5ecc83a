// JSON text: escaped strings, doubles.
#include <catch2/catch.hpp>
#include <cmath>

#include "report/output/json_text.h"

using namespace usdt::report;

TEST_CASE("JSON strings are escaped", "[json_text]") {
  CHECK(json_string("demo") == "\"demo\"");
  CHECK(json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_string("l1\nl2\t") == "\"l1\\nl2\\t\"");
  CHECK(json_string(std::string("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(json_string("\xc3\xa9") == "\"\xc3\xa9\"");  // UTF-8 passes through
  CHECK(json_double(1.5) == "1.5");
  CHECK(json_double(1.0 / 0.0) == "null");
  CHECK(json_double(std::nan("")) == "null");
}
