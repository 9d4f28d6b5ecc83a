// Group labels (report/output/group_key_text.h): long strings shortened in
// the middle, and never two that look the same.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "report/output/group_key_text.h"
#include "report/output/string_text.h"

using namespace usdt::report;

namespace {

GroupKey text_key(std::string s) {
  GroupKey k;
  k.present = true;
  k.type = ArgType::string;
  k.text = std::move(s);
  return k;
}

}  // namespace

TEST_CASE("a long label keeps its start and end", "[group_labels]") {
  const std::string s =
      "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, now())";
  const std::string label = middle_label(s, false, 60);
  CHECK(label.rfind("\"INSERT INTO pgbench_history", 0) == 0);
  CHECK(label.find("\u2026") != std::string::npos);
  CHECK(label.size() >= 2 + 60);
  CHECK(label.substr(label.size() - 11) == "$4, now())\"");
  CHECK(middle_label("short", false, 60) == "\"short\"");
  CHECK(middle_label("cut", true, 60) == "\"cut\"...");
}

TEST_CASE("labels of different groups never look the same", "[group_labels]") {
  const std::string head(70, 'a');
  const GroupKey a = text_key(head + "X" + head), b = text_key(head + "Y" + head),
                 c = text_key("short");
  const std::vector<std::string> labels = group_labels({&a, &b, &c});
  REQUIRE(labels.size() == 3);
  CHECK(labels[0] != labels[1]);
  CHECK(labels[0].find('X') != std::string::npos);
  CHECK(labels[1].find('Y') != std::string::npos);
  CHECK(labels[2] == "\"short\"");
}
