#include "report/output/json_writer.h"

#include <charconv>

#include "report/output/json_text.h"

namespace usdt::report {

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (depth_first_.empty()) return;
  if (!depth_first_.back()) out_ += ',';
  depth_first_.back() = false;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  depth_first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::continue_object() {
  depth_first_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  out_ += '}';
  if (!depth_first_.empty()) depth_first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  depth_first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  out_ += ']';
  if (!depth_first_.empty()) depth_first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  before_value();
  append_json_string(out_, name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view s) {
  before_value();
  append_json_string(out_, s);
  return *this;
}

JsonWriter& JsonWriter::uint(uint64_t v) {
  before_value();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, r.ptr);
  return *this;
}

JsonWriter& JsonWriter::sint(int64_t v) {
  before_value();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, r.ptr);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool v) {
  before_value();
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::number(double v) {
  before_value();
  out_ += json_double(v);
  return *this;
}

JsonWriter& JsonWriter::number_text(std::string_view text) {
  before_value();
  out_ += text;
  return *this;
}

}  // namespace usdt::report
