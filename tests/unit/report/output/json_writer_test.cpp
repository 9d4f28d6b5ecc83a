#include "report/output/json_writer.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "report/output/json_text.h"

using usdt::report::JsonWriter;
using usdt::report::json_string;

TEST_CASE("the writer places commas and colons", "[json_writer]") {
  std::string s;
  JsonWriter w(s);
  w.begin_object();
  w.key("a").uint(1).key("b").sint(-2).key("c").boolean(true).key("d").null();
  w.key("e").begin_array().uint(1).string("x").begin_object().end_object().begin_array().end_array().end_array();
  w.key("f").number(1.5).key("g").number(1.0 / 0.0).key("h").number_text("3.250");
  w.key("i").uint_or_null(false, 7).key("j").uint_or_null(true, 7);
  w.key("k").uint(UINT64_MAX).key("l").sint(INT64_MIN);
  w.end_object();
  CHECK(s ==
        "{\"a\":1,\"b\":-2,\"c\":true,\"d\":null,\"e\":[1,\"x\",{},[]],\"f\":1.5,\"g\":null,\"h\":3.250,"
        "\"i\":null,\"j\":7,\"k\":18446744073709551615,\"l\":-9223372036854775808}");
}

TEST_CASE("the writer continues an object started elsewhere", "[json_writer]") {
  std::string s;
  JsonWriter(s).continue_object().key("provider").string("demo").key("args").begin_array();
  CHECK(s == ",\"provider\":\"demo\",\"args\":[");
}

TEST_CASE("the writer starts new top-level values without commas", "[json_writer]") {
  std::string s;
  JsonWriter w(s);
  w.begin_object().key("a").uint(1).end_object();
  s += '\n';
  w.reset_top_level();
  w.begin_object().key("b").uint(2).end_object();
  CHECK(s == "{\"a\":1}\n{\"b\":2}");
}

TEST_CASE("strings are escaped, keys too", "[json_writer]") {
  std::string s;
  JsonWriter w(s);
  w.begin_object().key("q\"k").string("a\\b\n\x01").end_object();
  CHECK(s == "{\"q\\\"k\":\"a\\\\b\\n\\u0001\"}");
}

TEST_CASE("invalid UTF-8 becomes U+FFFD, valid UTF-8 is kept", "[json_writer][json_text]") {
  CHECK(json_string("caf\xc3\xa9") == "\"caf\xc3\xa9\"");                   // 2 bytes
  CHECK(json_string("\xe2\x82\xac") == "\"\xe2\x82\xac\"");                 // 3 bytes (euro)
  CHECK(json_string("\xf0\x9f\x98\x80") == "\"\xf0\x9f\x98\x80\"");         // 4 bytes
  CHECK(json_string("a\xff" "b") == "\"a\\ufffdb\"");                       // never valid
  CHECK(json_string("\x80") == "\"\\ufffd\"");                              // lone continuation
  CHECK(json_string("\xc3") == "\"\\ufffd\"");                              // cut short at the end
  CHECK(json_string("\xc3(") == "\"\\ufffd(\"");                            // cut short by ASCII
  CHECK(json_string("\xc0\xaf") == "\"\\ufffd\\ufffd\"");                   // overlong '/'
  CHECK(json_string("\xe0\x80\xaf") == "\"\\ufffd\\ufffd\\ufffd\"");        // overlong, 3 bytes
  CHECK(json_string("\xed\xa0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");        // UTF-16 surrogate
  CHECK(json_string("\xf4\x90\x80\x80") == "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // above U+10FFFF
  std::string s;
  JsonWriter(s).string(std::string("\0\x7f", 2));
  CHECK(s == "\"\\u0000\\u007f\"");
}

TEST_CASE("any bytes give valid JSON strings", "[json_writer][json_text]") {
  // Every 2-byte input: the output holds no control character, and what it
  // holds besides the \ufffd replacements is valid UTF-8 (escaping it again
  // replaces nothing).
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      std::string in{static_cast<char>(a), static_cast<char>(b)};
      std::string out = json_string(in);
      std::string inner = out.substr(1, out.size() - 2);
      for (char c : inner) REQUIRE(static_cast<unsigned char>(c) >= 0x20);
      std::string kept;
      for (size_t i = 0; i < inner.size();) {
        if (inner.compare(i, 6, "\\ufffd") == 0) {
          i += 6;
        } else {
          kept += inner[i++];
        }
      }
      REQUIRE(json_string(kept).find("ufffd") == std::string::npos);
    }
  }
}
