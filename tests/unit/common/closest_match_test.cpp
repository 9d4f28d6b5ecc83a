#include "common/closest_match.h"

#include <catch2/catch.hpp>

using usdt::closest_match;
using usdt::closest_matches;
using usdt::edit_distance;
using usdt::suggest_option;

TEST_CASE("edit distance", "[closest_match]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("abc", "abc") == 0);
  CHECK(edit_distance("method_entry", "method__entry") == 1);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
}

TEST_CASE("the closest names, nearest first, only when close enough", "[closest_match]") {
  const std::vector<std::string> probes = {"ruby:method__return", "ruby:cmethod__entry",
                                           "ruby:method__entry", "ruby:gc__mark__begin"};
  CHECK(closest_match("ruby:method_entry", probes) == "ruby:method__entry");
  CHECK(
      closest_matches("ruby:method_entry", probes, 3) ==
      std::vector<std::string>{"ruby:method__entry", "ruby:cmethod__entry", "ruby:method__return"});
  CHECK(closest_matches("ruby:method_entry", probes, 1) ==
        std::vector<std::string>{"ruby:method__entry"});
  CHECK(closest_match("postgresql:query__start", probes).empty());
  // Short words: a distance of 2 at most.
  CHECK(closest_match("dmp", {"dump", "summary"}) == "dump");
  CHECK(closest_match("xyz", {"dump"}).empty());
  // A candidate given twice is suggested once.
  CHECK(closest_matches("a:b", {"a:c", "a:c"}, 3) == std::vector<std::string>{"a:c"});
}

TEST_CASE("an unknown option gets the closest known one", "[closest_match]") {
  const std::vector<std::string> options = {"--string", "--string-bytes", "--stack-bytes",
                                            "-e",       "--event",        "--allow-missing"};
  CHECK(suggest_option("unrecognised option '--strng'", options) ==
        "unrecognised option '--strng' (did you mean '--string'?)");
  CHECK(suggest_option("unrecognised option '--allow-mising=x'", options) ==
        "unrecognised option '--allow-mising=x' (did you mean '--allow-missing'?)");
  // Nothing close, or another error: the message as it was.
  CHECK(suggest_option("unrecognised option '--bogus'", options) ==
        "unrecognised option '--bogus'");
  CHECK(suggest_option("the required argument for option '--event' is missing", options) ==
        "the required argument for option '--event' is missing");
}
