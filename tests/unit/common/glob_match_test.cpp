#include "common/glob_match.h"

#include <catch2/catch.hpp>
#include <string>

using usdt::glob_match;

TEST_CASE("literal patterns", "[glob]") {
  CHECK(glob_match("query__start", "query__start"));
  CHECK_FALSE(glob_match("query__start", "query__star"));
  CHECK_FALSE(glob_match("query", "query__start"));
  CHECK(glob_match("", ""));
  CHECK_FALSE(glob_match("", "a"));
  CHECK(glob_match("libstdc++.so.6", "libstdc++.so.6"));
}

TEST_CASE("star and question mark", "[glob]") {
  CHECK(glob_match("*", ""));
  CHECK(glob_match("*", "anything"));
  CHECK(glob_match("query__*", "query__start"));
  CHECK(glob_match("query__*", "query__"));
  CHECK_FALSE(glob_match("query__*", "query_"));
  CHECK(glob_match("*__start", "lwlock__wait__start"));
  CHECK(glob_match("*wait*", "lwlock__wait__start"));
  CHECK(glob_match("l?lock*", "lwlock__wait__start"));
  CHECK_FALSE(glob_match("?", ""));
  CHECK(glob_match("??", "ab"));
  CHECK_FALSE(glob_match("??", "abc"));
  CHECK(glob_match("a*b*c", "aXXbYYc"));
  CHECK_FALSE(glob_match("a*b*c", "aXXbYY"));
  CHECK(glob_match("*a*a*a*", "aaa"));
  CHECK(glob_match("**", "x"));
}

TEST_CASE("backtracking stays cheap", "[glob]") {
  std::string text(10000, 'a');
  CHECK_FALSE(glob_match("*a*a*a*a*a*a*a*a*b", text));
  CHECK(glob_match("*a*a*a*a*a*a*a*a*", text));
}

TEST_CASE("has_wildcard", "[glob]") {
  CHECK(usdt::has_wildcard("a*"));
  CHECK(usdt::has_wildcard("a?"));
  CHECK_FALSE(usdt::has_wildcard("libstdc++"));
}
