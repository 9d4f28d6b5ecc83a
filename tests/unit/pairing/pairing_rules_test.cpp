#include "pairing/pairing_rules.h"

#include <catch2/catch.hpp>

using namespace usdt::pairing;

TEST_CASE("function probes in two files get a pairing class per file", "[pairing]") {
  const std::vector<SiteRole> roles = {SiteRole::start, SiteRole::end, SiteRole::start,
                                       SiteRole::end, SiteRole::none};
  const std::vector<std::string> paths = {"/b/libx.so", "/b/libx.so", "/a/app", "/a/app", ""};
  // Classes follow the paths' order: /a/app is 1, /b/libx.so 2; a site
  // without a role keeps 0.
  CHECK(pair_classes_by_file(roles, paths) == std::vector<uint16_t>{2, 2, 1, 1, 0});
}

TEST_CASE("one file, or a USDT probe among the sites, means one class for all", "[pairing]") {
  const std::vector<SiteRole> roles = {SiteRole::start, SiteRole::end};
  CHECK(pair_classes_by_file(roles, {"/a/app", "/a/app"}).empty());
  CHECK(pair_classes_by_file(roles, {"/a/app", ""}).empty());
  CHECK(pair_classes_by_file(roles, {}).empty());
}
