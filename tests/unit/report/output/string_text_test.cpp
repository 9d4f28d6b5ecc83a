// How string arguments print in text and csv (report/output/string_text.h), and
// the EventCopy that keeps them past the reader's next record.
#include "report/output/string_text.h"

#include <catch2/catch.hpp>
#include <string>

#include "report/input/event_copy.h"

using namespace usdt::report;
namespace fmt = usdt::format;

TEST_CASE("text strings are quoted and escaped", "[string_text]") {
  CHECK(text_string("SELECT 1", false) == "\"SELECT 1\"");
  CHECK(text_string("", false) == "\"\"");
  CHECK(text_string("a\"b\\c", false) == "\"a\\\"b\\\\c\"");
  CHECK(text_string("l1\nl2\r\t", false) == "\"l1\\nl2\\r\\t\"");
  CHECK(text_string(std::string("\x01\x7f\0", 3), false) == "\"\\x01\\x7f\\x00\"");
  CHECK(text_string("caf\xc3\xa9", false) == "\"caf\xc3\xa9\"");  // valid UTF-8 is copied
  CHECK(text_string("caf\xe9 \xff", false) == "\"caf\\xe9 \\xff\"");
  CHECK(text_string("\xed\xa0\x80", false) == "\"\\xed\\xa0\\x80\"");  // a surrogate is not UTF-8
  CHECK(text_string("\xc3", false) == "\"\\xc3\"");                    // a sequence cut short
  CHECK(text_string("abc", true) == "\"abc\"...");
  std::string worst(100, '\x01');
  CHECK(text_string(worst, true).size() <= text_string_room(worst));
}

TEST_CASE("csv strings are RFC 4180 fields", "[string_text]") {
  auto csv = [](std::string_view s) {
    std::string out(csv_string_room(s), '\0');
    out.resize(static_cast<size_t>(put_csv_string(out.data(), s) - out.data()));
    return out;
  };
  CHECK(csv("null") == "\"null\"");
  CHECK(csv("") == "\"\"");
  CHECK(csv("a,\"b\"\nc") == "\"a,\"\"b\"\"\nc\"");
  CHECK(csv("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
  CHECK(csv("caf\xe9") == "\"caf\xef\xbf\xbd\"");  // U+FFFD
  std::string worst(50, '\xff');
  CHECK(csv(worst).size() <= csv_string_room(worst));
  std::string quotes(50, '"');
  CHECK(csv(quotes).size() <= csv_string_room(quotes));
}

TEST_CASE("labels are cut at a character or escape boundary", "[string_text]") {
  CHECK(text_label("SELECT 1", false, 60) == "\"SELECT 1\"");
  CHECK(text_label("SELECT 1", true, 60) == "\"SELECT 1\"...");
  CHECK(text_label("abcdef", false, 3) == "\"abc\"...");
  CHECK(text_label("ab\ncd", false, 3) == "\"ab\"...");  // \n would pass the width: not split
  CHECK(text_label("ab\ncd", false, 4) == "\"ab\\n\"...");
  CHECK(text_label("\xc3\xa9\xc3\xa9\xc3\xa9", false, 2) == "\"\xc3\xa9\xc3\xa9\"...");
}

TEST_CASE("an EventCopy owns its strings", "[string_text]") {
  std::string bytes = "SELECT 1";
  fmt::StringArg s{bytes, true};
  fmt::Event e;
  e.arg_count = 2;
  e.string_mask = 1;
  e.args[0] = reinterpret_cast<uintptr_t>(&s);
  e.args[1] = 42;
  EventCopy copy(e);
  bytes = "overwritten";  // the reader's next record reuses its memory
  s.truncated = false;
  EventCopy moved = std::move(copy);
  const fmt::Event& kept = moved.event();
  REQUIRE(kept.is_string(0));
  CHECK(kept.string_arg(0).bytes == "SELECT 1");
  CHECK(kept.string_arg(0).truncated);
  CHECK(kept.args[1] == 42);
  EventCopy again = moved;
  CHECK(again.event().string_arg(0).bytes == "SELECT 1");
  CHECK(&again.event().string_arg(0) != &moved.event().string_arg(0));
}
