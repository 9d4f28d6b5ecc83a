// JsonWriter: builds one JSON text (an object, an array, or a run of values)
// into a std::string, placing the commas and the quotes itself, so that the
// commands say what they print instead of concatenating punctuation. Strings
// go through append_json_string (report/output/json_text.h): any bytes, also invalid
// UTF-8, give valid JSON. The writer does not check that calls nest
// properly (an end_object() for a begin_array()); the commands' tests do.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace usdt::report {

class JsonWriter {
 public:
  // Appends to out, which must outlive the writer.
  explicit JsonWriter(std::string& out) : out_(out) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();

  // Continues an object whose start (and some members) the caller wrote
  // elsewhere: the next key gets a comma; no '{' is written. For the
  // pieces of a line that dump's fast path assembles (",\"provider\":...").
  JsonWriter& continue_object();

  // The key of the next value in the current object.
  JsonWriter& key(std::string_view name);

  // Values.
  JsonWriter& string(std::string_view s);
  JsonWriter& uint(uint64_t v);
  JsonWriter& sint(int64_t v);
  JsonWriter& boolean(bool v);
  JsonWriter& null();
  // A double; NaN and infinities become null.
  JsonWriter& number(double v);
  // A number (or null) already formatted by the caller, such as an exact
  // mean "12.345" or an argument value; written as is.
  JsonWriter& number_text(std::string_view text);

  // v when present, else null: `key("min_ns").uint_or_null(count > 0, min)`.
  JsonWriter& uint_or_null(bool present, uint64_t v) { return present ? uint(v) : null(); }

  // Starts a new top-level value (e.g. the next line of JSONL) without a comma.
  void reset_top_level() {
    depth_first_.clear();
    after_key_ = false;
  }

 private:
  void before_value();

  std::string& out_;
  std::vector<bool> depth_first_;  // per open container: no element yet
  bool after_key_ = false;
};

}  // namespace usdt::report
